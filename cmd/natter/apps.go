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

func appsCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("natter apps create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := fs.String("id", "", "app id: lowercase letters, digits and hyphens (required)")
	region := fs.String("region", "", "us, eu or in (required)")
	name := fs.String("name", "", "display name (default: the id)")
	database := fs.String("database", defaultDatabase(getenv), "sqlite:PATH or postgres://… (NATTER_DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *id == "" || *region == "" {
		fmt.Fprintln(stderr, "natter apps create: --id and --region are required")
		return errUsage
	}
	// Shared: adding an app is safe beside the natter serve that owns a SQLite file.
	db, err := sqlstore.Open(ctx, *database, sqlstore.Options{Shared: true})
	if err != nil {
		return err
	}
	defer db.Close()
	app, keys, err := chat.New(db, chat.Config{}).CreateApp(ctx, chat.AppCreate{ID: *id, Region: chat.Region(*region), Name: *name})
	if err != nil {
		return errors.New(describe(err))
	}
	out := appJSON{AppID: app.ID, Region: app.Region, Name: app.Name}
	for _, k := range keys {
		out.APIKeys = append(out.APIKeys, appKeyJSON{APIKey: k.Value, Scope: k.Scope})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("natter migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	database := fs.String("database", defaultDatabase(getenv), "sqlite:PATH or postgres://… (NATTER_DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	db, err := sqlstore.Open(ctx, *database, sqlstore.Options{}) // Open migrates
	if err != nil {
		return err
	}
	return db.Close()
}
