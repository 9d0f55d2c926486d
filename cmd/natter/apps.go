package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore"
)

type appJSON struct {
	AppID   string       `json:"appId"`
	Region  chat.Region  `json:"region"`
	Name    string       `json:"name"`
	APIKeys []appKeyJSON `json:"apiKeys"`
}

type appKeyJSON struct {
	APIKey string     `json:"apiKey"`
	Scope  chat.Scope `json:"scope"`
}

const appsUsage = `Usage:
  natter apps create --id ID --region us|eu|in [--name NAME] [--create-database]
        create an app; print it and its two API keys as JSON
  natter apps keys create --app ID [--scope fullAccess|authOnly] [--name NAME]
        add an API key to an app; print it as JSON

Both may run beside the natter serve that owns a SQLite file. Run "natter apps create --help"
or "natter apps keys create --help" for their flags.
`

// apps dispatches natter apps SUBCOMMAND.
func apps(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		fmt.Fprintf(stderr, "natter apps: missing subcommand\n\n%s", appsUsage)
		return errUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, appsUsage)
		return errHelp
	case args[0] == "create":
		return appsCreate(ctx, args[1:], getenv, stdout, stderr)
	case args[0] == "keys" && len(args) == 1:
		fmt.Fprintf(stderr, "natter apps keys: missing subcommand\n\n%s", appsUsage)
		return errUsage
	case args[0] == "keys" && args[1] == "create":
		return appsKeysCreate(ctx, args[2:], getenv, stdout, stderr)
	}
	fmt.Fprintf(stderr, "natter apps: unknown subcommand %q\n\n%s", args[0], appsUsage)
	return errUsage
}

func appsCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("natter apps create", flag.ContinueOnError)
	id := fs.String("id", "", "app id: 1 to 63 lowercase letters, digits or hyphens, starting with a letter or digit (required)")
	region := fs.String("region", "", "us, eu or in (required)")
	name := fs.String("name", "", "display name (default: the id)")
	database := fs.String("database", defaultDatabase(getenv), "sqlite:PATH or postgres://… (NATTER_DATABASE_URL)")
	create := fs.Bool("create-database", false, "create and migrate the SQLite file if it does not exist")
	if err := parseFlags(fs, `natter apps create — create an app

Usage: natter apps create --id ID --region us|eu|in [--name NAME] [--database URL] [--create-database]

Creates an app with a fullAccess and an authOnly API key and prints it as JSON on standard
output: appId, region, name, apiKeys (apiKey, scope). The keys are shown only then. It may run
beside the natter serve that owns a SQLite file; that server sees the new app within its key
cache TTL. A SQLite file that does not exist is refused (natter serve creates it on its first
start), unless --create-database says to create it.
`, "", args, stdout, stderr); err != nil {
		return err
	}
	if *id == "" || *region == "" {
		fmt.Fprintln(stderr, "natter apps create: --id and --region are required")
		return errUsage
	}
	// Shared: adding an app is safe beside the natter serve that owns a SQLite file.
	db, err := sqlstore.Open(ctx, *database, sqlstore.Options{Shared: true, MustExist: !*create})
	if err != nil {
		return missingDatabase(err, "apps create", "; natter serve creates it on its first start, or add --create-database to create it now")
	}
	defer db.Close()
	app, keys, err := chat.New(db, chat.Config{StatsFlushInterval: -1}).CreateApp(ctx, chat.AppCreate{ID: *id, Region: chat.Region(*region), Name: *name})
	if err != nil {
		return fmt.Errorf("apps create: %s", describe(err, map[string]string{"appId": "--id", "region": "--region", "name": "--name"}))
	}
	out := appJSON{AppID: app.ID, Region: app.Region, Name: app.Name}
	for _, k := range keys {
		out.APIKeys = append(out.APIKeys, appKeyJSON{APIKey: k.Value, Scope: k.Scope})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	fmt.Fprint(stderr, keysNote(app.ID, flagDatabase(*database, getenv)))
	return nil
}

// missingDatabase explains a refused SQLite file that does not exist (sqlstore.MissingError):
// a mistyped --database, or a command run before natter serve made the file. Other errors
// pass through.
func missingDatabase(err error, cmd, hint string) error {
	var me *sqlstore.MissingError
	if errors.As(err, &me) {
		return fmt.Errorf("%s: %v%s", cmd, me, hint)
	}
	return err
}

// flagDatabase is database if it is not what the command would pick by itself, else "".
func flagDatabase(database string, getenv func(string) string) string {
	if database == defaultDatabase(getenv) {
		return ""
	}
	return database
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("natter migrate", flag.ContinueOnError)
	database := fs.String("database", defaultDatabase(getenv), "sqlite:PATH or postgres://… (NATTER_DATABASE_URL)")
	if err := parseFlags(fs, `natter migrate — apply the database migrations and exit

Usage: natter migrate [--database URL]

Applies the embedded migrations not yet applied, creating a SQLite file if it does not exist;
it creates no app (natter serve does that on its first start). natter serve migrates at
start-up too, so this is for preparing a database ahead of time. On SQLite it refuses to run
while a natter serve holds the file.
`, "", args, stdout, stderr); err != nil {
		return err
	}
	db, err := sqlstore.Open(ctx, *database, sqlstore.Options{}) // Open migrates
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "natter migrate: %s is up to date\n", redactURL(*database))
	return nil
}
