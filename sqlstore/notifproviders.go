package sqlstore

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// Notification providers (chat.ProviderStore, chat.ProviderTx). The default rule is the
// service's; a partial unique index keeps two defaults of a kind from ever being stored.

const providerColumns = `app_id, kind, id, is_default, enabled, settings, secret, secret_hint, created_at, updated_at`

func scanProvider(s scanner) (chat.Provider, error) {
	var p chat.Provider
	var kind, settings string
	var def, enabled int64
	err := s.Scan(&p.AppID, &kind, &p.ID, &def, &enabled, &settings, &p.Secret, &p.SecretHint, &p.CreatedAt, &p.UpdatedAt)
	p.Kind, p.Default, p.Enabled, p.Settings = chat.ProviderKind(kind), def == 1, enabled == 1, []byte(settings)
	return p, mapErr(err)
}

const providersQuery = `SELECT ` + providerColumns + ` FROM notification_providers WHERE app_id = $1 AND kind = $2 ORDER BY created_at, id`

// Providers lists an app's providers of a kind, oldest first.
func (db *DB) Providers(ctx context.Context, appID string, kind chat.ProviderKind) ([]chat.Provider, error) {
	return collect(db.read(ctx).rows(providersQuery, appID, string(kind)), scanProvider)
}

// Provider reads one provider.
func (db *DB) Provider(ctx context.Context, appID string, kind chat.ProviderKind, id string) (chat.Provider, error) {
	return scanProvider(db.read(ctx).row(`SELECT `+providerColumns+` FROM notification_providers WHERE app_id = $1 AND kind = $2 AND id = $3`,
		appID, string(kind), id))
}

// DefaultProvider reads a kind's default provider.
func (db *DB) DefaultProvider(ctx context.Context, appID string, kind chat.ProviderKind) (chat.Provider, error) {
	return scanProvider(db.read(ctx).row(`SELECT `+providerColumns+` FROM notification_providers WHERE app_id = $1 AND kind = $2 AND is_default = 1`,
		appID, string(kind)))
}

// LockProviders locks the app's row, which every change of its providers locks first, and
// lists the providers of a kind (chat.ProviderTx).
func (tx txStore) LockProviders(appID string, kind chat.ProviderKind) ([]chat.Provider, error) {
	var app string
	if err := tx.row(`SELECT id FROM apps WHERE id = $1`+tx.db.dialect.forUpdate, appID).Scan(&app); err != nil {
		return nil, mapErr(err)
	}
	return collect(tx.rows(providersQuery, appID, string(kind)), scanProvider)
}

// InsertProvider stores a provider (chat.ProviderTx).
func (tx txStore) InsertProvider(p chat.Provider) error {
	_, err := tx.exec(`INSERT INTO notification_providers (`+providerColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		p.AppID, string(p.Kind), p.ID, b2i(p.Default), b2i(p.Enabled), string(p.Settings), p.Secret, p.SecretHint, p.CreatedAt, p.UpdatedAt)
	return mapErr(err)
}

// UpdateProvider writes a provider's flag, settings and credential (chat.ProviderTx).
func (tx txStore) UpdateProvider(p chat.Provider) error {
	return affected(tx.exec(`UPDATE notification_providers SET enabled = $4, settings = $5, secret = $6, secret_hint = $7, updated_at = $8
		WHERE app_id = $1 AND kind = $2 AND id = $3`,
		p.AppID, string(p.Kind), p.ID, b2i(p.Enabled), string(p.Settings), p.Secret, p.SecretHint, p.UpdatedAt))
}

// SetDefaultProvider moves a kind's default to id (chat.ProviderTx): the old default is
// cleared first, as a unique index checks each row as it changes.
func (tx txStore) SetDefaultProvider(appID string, kind chat.ProviderKind, id string) error {
	if _, err := tx.exec(`UPDATE notification_providers SET is_default = 0 WHERE app_id = $1 AND kind = $2 AND is_default = 1 AND id <> $3`,
		appID, string(kind), id); err != nil {
		return mapErr(err)
	}
	return affected(tx.exec(`UPDATE notification_providers SET is_default = 1 WHERE app_id = $1 AND kind = $2 AND id = $3`, appID, string(kind), id))
}

// DeleteProvider removes a provider (chat.ProviderTx).
func (tx txStore) DeleteProvider(appID string, kind chat.ProviderKind, id string) error {
	return affected(tx.exec(`DELETE FROM notification_providers WHERE app_id = $1 AND kind = $2 AND id = $3`, appID, string(kind), id))
}
