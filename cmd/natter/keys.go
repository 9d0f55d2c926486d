package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/sqlstore"
)

// keyJSON is what natter apps keys create prints: the API's key shape plus the app.
type keyJSON struct {
	AppID     string     `json:"appId"`
	APIKey    string     `json:"apiKey"`
	Name      string     `json:"name"`
	Scope     chat.Scope `json:"scope"`
	CreatedAt int64      `json:"createdAt"`
}

// appsKeysCreate adds a key to an app from the command line: the way back in when an app's
// keys were lost, since natter stores only their hashes.
func appsKeysCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("natter apps keys create", flag.ContinueOnError)
	appID := fs.String("app", "", "the app id (required)")
	scope := fs.String("scope", string(chat.ScopeFullAccess), "fullAccess or authOnly")
	name := fs.String("name", "Command-line key", "the key's name, at most 50 characters")
	database := fs.String("database", defaultDatabase(getenv), "sqlite:PATH or postgres://… (NATTER_DATABASE_URL)")
	if err := parseFlags(fs, `natter apps keys create — add an API key to an app

Usage: natter apps keys create --app ID [--scope fullAccess|authOnly] [--name NAME] [--database URL]

Creates a key and prints it as JSON on standard output: appId, apiKey, name, scope, createdAt.
The key is shown only then: natter stores only its SHA-256 hash. Use it to get back into an
app whose keys were lost. It may run beside the natter serve that owns a SQLite file. An app
has at most 25 keys. A SQLite file that does not exist is refused: it has no apps.
`, "", args, stdout, stderr); err != nil {
		return err
	}
	if *appID == "" {
		fmt.Fprintln(stderr, "natter apps keys create: --app is required")
		return errUsage
	}
	// As apps create, but a new file is never made: an empty database has no app to add to.
	db, err := sqlstore.Open(ctx, *database, sqlstore.Options{Shared: true, MustExist: true})
	if err != nil {
		return missingDatabase(err, "apps keys create", ", so it has no app "+strconv.Quote(*appID)+" (natter serve creates the file on its first start)")
	}
	defer db.Close()
	svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
	labels := map[string]string{"name": "--name", "scope": "--scope", "apiKey": ""}
	p, err := svc.OperatorPrincipal(ctx, *appID)
	if err != nil {
		return fmt.Errorf("apps keys create: %s", describe(err, labels))
	}
	k, err := svc.CreateAPIKey(ctx, p, chat.APIKeyCreate{Name: *name, Scope: chat.Scope(*scope)})
	if err != nil {
		return fmt.Errorf("apps keys create: %s", describe(err, labels))
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(keyJSON{AppID: p.App.ID, APIKey: k.Value, Name: k.Name, Scope: k.Scope, CreatedAt: k.CreatedAt}); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "The key is shown only now: natter stores only its SHA-256 hash.")
	return nil
}
