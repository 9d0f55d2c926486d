package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "1d5918b3c4a2e5f60718293a4b5c6d7e8f901234"},
		{Key: "vcs.time", Value: "2026-11-22T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, tc := range []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"no build information", "dev", nil, "natter dev"},
		{"-ldflags wins", "v1.2.3", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.0.0"}}, "natter v1.2.3 (go1.26.8)"},
		{"module version", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.0.0"}}, "natter v1.0.0 (go1.26.8)"},
		{"checkout with VCS stamp", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261122100000-1d5918b3c4a2+dirty"}, Settings: vcs},
			"natter v0.0.0-20261122100000-1d5918b3c4a2+dirty (commit 1d5918b3c4a2, modified, 2026-11-22T10:00:00Z, go1.26.8)"},
		{"checkout without version", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs[:2]},
			"natter dev (commit 1d5918b3c4a2, go1.26.8)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionFrom(tc.ldflags, tc.bi); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
