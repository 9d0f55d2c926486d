package chat

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// DefaultCallRingTimeout is how long a call may ring before natter marks it unanswered. The
// client SDK's caller marks its own call unanswered after 45 s; natter's sweep is for the
// calls whose caller's client died ringing, which would stay "initiated" for ever.
const DefaultCallRingTimeout = 60 * time.Second

// ringingBatch bounds the sessions one sweep reads; a backlog takes several sweeps.
const ringingBatch = 500

// ExpireRingingCalls marks unanswered, as its initiator's client would have, each call still
// ringing timeout after it was initiated (announcing each, as changeCall does). Every node may run it at
// once: the session's row lock has one of them change each, and the others find it no
// longer ringing. It returns the call messages written.
func (s Calls) ExpireRingingCalls(ctx context.Context, timeout time.Duration) ([]Message, error) {
	due, err := s.store.RingingCalls(ctx, s.now()-int64(timeout/time.Second), ringingBatch)
	if err != nil {
		return nil, internal("list ringing calls", err)
	}
	var out []Message
	for _, c := range due {
		// The initiator as stored, also when deleted since: the message needs its entity.
		u, err := s.store.User(ctx, c.AppID, c.Initiator)
		if errors.Is(err, ErrNotFound) {
			u = User{UID: c.Initiator, Name: c.Initiator, Role: DefaultRole}
		} else if err != nil {
			return out, internal("read call initiator", err)
		}
		m, err := s.changeCall(ctx, c.AppID, u, c.SessionID, CallUnanswered)
		if k := ErrorCode(err).Kind(); err != nil && (k == KindConflict || k == KindNotFound) {
			continue // answered, cancelled or swept by another node meanwhile
		} else if err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// RunCallExpiry sweeps ringing calls every quarter of timeout (at most every 15 s) until ctx
// ends; a timeout of 0 or less sweeps nothing.
func (s Calls) RunCallExpiry(ctx context.Context, timeout time.Duration, log *slog.Logger) {
	if timeout <= 0 {
		return
	}
	every := min(timeout/4, 15*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			if _, err := s.ExpireRingingCalls(sctx, timeout); err != nil && ctx.Err() == nil {
				log.Warn("calls: marking unanswered the calls that rang out failed; will retry", "err", err)
			}
			cancel()
		}
	}
}
