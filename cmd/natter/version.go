package main

import (
	"runtime/debug"
	"strings"
)

// versionString is what natter version prints: the version set with -ldflags, else the
// module's version from the build information Go embeds, with the VCS commit when the build
// recorded one.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionFrom(version, bi)
}

func versionFrom(ldflags string, bi *debug.BuildInfo) string {
	v := ldflags
	if bi == nil {
		return "natter " + v
	}
	if v == "dev" {
		if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
			v = mv
		}
	}
	var details []string
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	if rev := set["vcs.revision"]; rev != "" {
		details = append(details, "commit "+rev[:min(12, len(rev))])
		if set["vcs.modified"] == "true" {
			details = append(details, "modified")
		}
		if t := set["vcs.time"]; t != "" {
			details = append(details, t)
		}
	}
	if bi.GoVersion != "" {
		details = append(details, bi.GoVersion)
	}
	if len(details) == 0 {
		return "natter " + v
	}
	return "natter " + v + " (" + strings.Join(details, ", ") + ")"
}
