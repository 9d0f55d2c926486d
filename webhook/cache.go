package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// hookCache keeps each webhook's settings and its app for hookTTL, so that a burst of
// attempts to one webhook reads them once rather than per attempt. Whether a webhook is
// enabled is the claim's to check, in the same statement that leases its deliveries; a URL,
// secret or credentials changed is used within hookTTL.
type hookCache struct {
	mu sync.Mutex
	m  map[[2]string]cachedHook
}

type cachedHook struct {
	w       chat.Webhook
	app     chat.App
	expires time.Time
}

// hook reads a webhook and its app, through the cache.
func (d *Deliverer) hook(ctx context.Context, appID, id string) (chat.Webhook, chat.App, error) {
	k := [2]string{appID, id}
	now := time.Now()
	d.hooks.mu.Lock()
	c, ok := d.hooks.m[k]
	d.hooks.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.w, c.app, nil
	}
	w, err := d.svc.Webhooks().WebhookForDelivery(ctx, appID, id)
	if err != nil {
		return w, chat.App{}, fmt.Errorf("read webhook: %w", err)
	}
	app, err := d.svc.Webhooks().AppForDelivery(ctx, appID)
	if err != nil {
		return w, app, fmt.Errorf("read app: %w", err)
	}
	d.hooks.mu.Lock()
	if len(d.hooks.m) > 10000 { // webhooks of many apps: start afresh rather than grow
		clear(d.hooks.m)
	}
	d.hooks.m[k] = cachedHook{w: w, app: app, expires: now.Add(hookTTL)}
	d.hooks.mu.Unlock()
	return w, app, nil
}

// payloadCache keeps the data this node rendered for recent events, so that an event is
// rendered once however many webhooks it goes to: the attempts of its webhooks that run at
// once wait for the one rendering. The outbox keeps the first attempt's rendering with its
// outcome (first writer wins), and later attempts, on any node, send the kept one.
type payloadCache struct {
	mu    sync.Mutex
	m     map[int64]*rendering
	order []int64 // oldest first, to bound m
}

type rendering struct {
	done chan struct{}
	data []byte
	err  error
}

// maxRendered bounds the events whose data a node keeps in memory.
const maxRendered = 8192

// payload is the event's data: the outbox's when kept, else this node's rendering.
func (d *Deliverer) payload(ctx context.Context, del chat.Delivery) ([]byte, error) {
	if del.Payload != nil {
		return del.Payload, nil
	}
	p := &d.data
	p.mu.Lock()
	r, ok := p.m[del.EventID]
	if !ok {
		r = &rendering{done: make(chan struct{})}
		p.m[del.EventID] = r
		p.order = append(p.order, del.EventID)
		if len(p.order) > maxRendered {
			delete(p.m, p.order[0])
			p.order = p.order[1:]
		}
	}
	p.mu.Unlock()
	if ok {
		<-r.done
		return r.data, r.err
	}
	r.data, r.err = d.render(ctx, del)
	if r.err != nil { // the next attempt tries afresh
		p.mu.Lock()
		if p.m[del.EventID] == r {
			delete(p.m, del.EventID)
		}
		p.mu.Unlock()
	}
	close(r.done)
	return r.data, r.err
}

// render renders an event's data from what it is about.
func (d *Deliverer) render(ctx context.Context, del chat.Delivery) ([]byte, error) {
	sub, err := d.svc.Webhooks().EventSubject(ctx, del)
	switch {
	case errors.Is(err, chat.ErrNotFound):
		// Gone for good since (a permanent deletion): the ids are all there is to say.
		data, _ := json.Marshal(map[string]any{"message": map[string]any{"id": strconv.FormatInt(del.MessageID, 10)}})
		return data, nil
	case err != nil:
		return nil, fmt.Errorf("render event %d: %w", del.EventID, err)
	}
	return wire.WebhookData(sub), nil
}
