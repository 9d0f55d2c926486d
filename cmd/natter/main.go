// Command natter is a self-hostable chat server that speaks the hosted chat service's REST
// API v3. Subcommands: serve, apps create, apps keys create, migrate, import, version.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	// The IANA time zone database, embedded (about 450 KB): users' notification time zones
	// are checked and read against it, so they never depend on the host's /usr/share/zoneinfo.
	_ "time/tzdata"
)

// version is set at build time with -ldflags "-X main.version=…"; without it, natter version
// reads the build information Go embeds (version.go).
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, errHelp) {
		return
	}
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "natter:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

const usage = `natter — a self-hostable chat server speaking CometChat's REST API v3

Usage:
  natter serve [flags]                                    run the server
  natter apps create --id ID --region REGION [--name N]   create an app, print it as JSON
  natter apps keys create --app ID [--scope S] [--name N] add an API key, print it as JSON
  natter migrate [--database URL]                         apply database migrations
  natter import (--url URL --key K | --database URL --app ID) FILE
                                                          import a JSON Lines export
  natter version                                          print the version

Run "natter COMMAND --help" for a command's flags and settings. serve's flags can each be set
by a NATTER_* variable instead.
`

// run is the whole program with its environment passed in, so tests can drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "apps":
		return apps(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], getenv, stdout, stderr)
	case "import":
		return importCmd(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, versionString())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "natter: unknown command %q\n\n%s", args[0], usage)
	return errUsage
}
