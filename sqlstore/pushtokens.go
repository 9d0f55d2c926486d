package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// Push tokens (chat.PushTokenStore, chat.PushTokenTx). A token's auth token is a foreign key
// with ON DELETE CASCADE: whatever deletes an auth token deletes its push tokens with it.

const pushTokenColumns = `p.app_id, p.token, p.auth_hash, p.uid, p.platform, p.kind, p.provider_id, p.timezone, p.created_at, p.updated_at`

// pushTokenJoin reads tokens with their auth token's visible characters, for the masked form.
const pushTokenJoin = `SELECT ` + pushTokenColumns + `, a.prefix, a.suffix FROM push_tokens p JOIN auth_tokens a ON a.hash = p.auth_hash`

func scanPushToken(s scanner) (chat.PushToken, error) {
	var t chat.PushToken
	var kind, prefix, suffix string
	err := s.Scan(&t.AppID, &t.Token, &t.AuthHash, &t.UID, &t.Platform, &kind, &t.ProviderID, &t.Timezone, &t.CreatedAt, &t.UpdatedAt, &prefix, &suffix)
	t.Kind = chat.PushTokenKind(kind)
	t.AuthMasked = chat.AuthToken{UID: t.UID, Prefix: prefix, Suffix: suffix}.Masked()
	return t, err
}

// PushTokens lists the tokens of the active users among uids.
func (db *DB) PushTokens(ctx context.Context, appID string, uids []string) ([]chat.PushToken, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	args := []any{appID}
	for _, u := range uids {
		args = append(args, u)
	}
	return collect(db.read(ctx).rows(pushTokenJoin+` JOIN users u ON u.app_id = p.app_id AND u.uid = p.uid
		WHERE p.app_id = $1 AND p.uid IN (`+placeholders(2, len(uids))+`) AND u.deactivated_at = 0 AND u.deleted_at = 0
		ORDER BY p.uid, p.created_at, p.token`, args...), scanPushToken)
}

// AuthPushTokens lists the tokens registered with one auth token.
func (db *DB) AuthPushTokens(ctx context.Context, appID, authHash string) ([]chat.PushToken, error) {
	return collect(db.read(ctx).rows(pushTokenJoin+` WHERE p.app_id = $1 AND p.auth_hash = $2 ORDER BY p.created_at, p.token`, appID, authHash), scanPushToken)
}

// DeletePushTokens deletes the tokens f selects and returns them, as they were.
func (db *DB) DeletePushTokens(ctx context.Context, appID string, f chat.PushTokenFilter) ([]chat.PushToken, error) {
	where, args := []string{"app_id = $1"}, []any{appID}
	for _, c := range []struct{ col, v string }{{"uid", f.UID}, {"auth_hash", f.AuthHash}, {"token", f.Token}} {
		if c.v != "" {
			args = append(args, c.v)
			where = append(where, c.col+" = $"+itoa(len(args)))
		}
	}
	if len(args) == 1 {
		return nil, nil
	}
	var out []chat.PushToken
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		out, err = collect(tx.rows(`DELETE FROM push_tokens WHERE `+strings.Join(where, " AND ")+` RETURNING `+strings.ReplaceAll(pushTokenColumns, "p.", "")+`, '', ''`, args...),
			scanPushToken)
		if err != nil || len(out) == 0 {
			return err
		}
		// Their auth tokens stay: read the characters of the masked form.
		hashes := []any{}
		for _, t := range out {
			hashes = append(hashes, t.AuthHash)
		}
		shown := map[string][2]string{}
		if err := each(tx.rows(`SELECT hash, prefix, suffix FROM auth_tokens WHERE hash IN (`+placeholders(1, len(hashes))+`)`, hashes...), func(s scanner) error {
			var h, pre, suf string
			err := s.Scan(&h, &pre, &suf)
			shown[h] = [2]string{pre, suf}
			return err
		}); err != nil {
			return err
		}
		for i, t := range out {
			out[i].AuthMasked = chat.AuthToken{UID: t.UID, Prefix: shown[t.AuthHash][0], Suffix: shown[t.AuthHash][1]}.Masked()
		}
		slices.SortFunc(out, func(a, b chat.PushToken) int {
			return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), strings.Compare(a.Token, b.Token))
		})
		return nil
	})
	return out, err
}

// LockAuthToken locks an auth token of an active user of the app (chat.PushTokenTx).
func (tx txStore) LockAuthToken(appID, hash string) (chat.AuthToken, error) {
	return scanToken(tx.row(`SELECT `+tokenColumns+` FROM auth_tokens t WHERE t.app_id = $1 AND t.hash = $2
		AND EXISTS (SELECT 1 FROM users u WHERE u.app_id = t.app_id AND u.uid = t.uid AND u.deactivated_at = 0 AND u.deleted_at = 0)`+
		tx.db.dialect.forUpdate, appID, hash))
}

// DeleteOtherPushTokens deletes an auth token's tokens of a kind but one (chat.PushTokenTx).
func (tx txStore) DeleteOtherPushTokens(appID, authHash string, kind chat.PushTokenKind, token string) error {
	_, err := tx.exec(`DELETE FROM push_tokens WHERE app_id = $1 AND auth_hash = $2 AND kind = $3 AND token <> $4`, appID, authHash, string(kind), token)
	return mapErr(err)
}

// UpsertPushToken stores a token, or moves the app's token of the same value to this
// registration, keeping when it was first registered (chat.PushTokenTx).
func (tx txStore) UpsertPushToken(t chat.PushToken) error {
	_, err := tx.exec(`INSERT INTO push_tokens (app_id, token, auth_hash, uid, platform, kind, provider_id, timezone, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (app_id, token) DO UPDATE SET auth_hash = excluded.auth_hash, uid = excluded.uid, platform = excluded.platform,
			kind = excluded.kind, provider_id = excluded.provider_id, timezone = excluded.timezone, updated_at = excluded.updated_at`,
		t.AppID, t.Token, t.AuthHash, t.UID, t.Platform, string(t.Kind), t.ProviderID, t.Timezone, t.CreatedAt, t.UpdatedAt)
	return mapErr(err)
}
