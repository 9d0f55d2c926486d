// Package dataimport reads the hosted service's data-import items (docs/import.md): each
// item's JSON, under its key, decoded as the hosted service reads it (times as numbers or
// strings of digits, embedded user details) into chat's imports, whose rules live in
// chat/dataimport.go. httpapi's POST /data_import/<kind> endpoints and natter import's
// direct-to-database mode (Run) both decode through it, so an item means the same either way.
package dataimport

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/natter-chat/natter/chat"
)

// MaxBodyBytes caps an import request's body: 1,000 messages of 10 KB of data each
// fit, with their keys and envelopes.
const MaxBodyBytes = 16 << 20

// Item is one item of an import body: its wrapping key and its JSON.
type Item struct {
	Key string
	Raw json.RawMessage
}

// Outcome is one item's result, for callers outside HTTP.
type Outcome struct {
	Key     string
	Skipped bool
	Err     error
}

// Run imports one batch of kind ("users", "groups", "members", "messages") the way the
// endpoints do, for natter import's direct-to-database mode: the items decode exactly as a
// request's would.
func Run(ctx context.Context, svc *chat.Service, p chat.Principal, kind string, items []Item) ([]Outcome, error) {
	switch kind {
	case "users":
		return batch(ctx, p, Users(items), svc.Import().ImportUsers)
	case "groups":
		return batch(ctx, p, Groups(items), svc.Import().ImportGroups)
	case "members":
		return batch(ctx, p, Members(items), svc.Import().ImportMembers)
	case "messages":
		return batch(ctx, p, Messages(items), svc.Import().ImportMessages)
	}
	return nil, fmt.Errorf("unknown import kind %q", kind)
}

func batch[In, Out any](ctx context.Context, p chat.Principal, in []In,
	run func(context.Context, chat.Principal, []In) ([]chat.ImportResult[Out], error)) ([]Outcome, error) {
	res, err := run(ctx, p, in)
	out := make([]Outcome, len(res))
	for i, r := range res {
		out[i] = Outcome{Key: r.Key, Skipped: r.Skipped, Err: r.Err}
	}
	return out, err
}
