package chat

import (
	"context"
	"errors"
	"time"
)

// Idempotent retries: a write sent with an Idempotency-Key header runs once per app and key;
// a retry within IdempotencyTTL gets the first answer again instead of acting twice. The
// claim on a key is a row, so it holds across nodes and restarts. docs/idempotency.md has the
// design.

// IdempotencyTTL is how long a key's first answer is kept and replayed.
const IdempotencyTTL = 24 * time.Hour

// MaxIdempotencyKeyLen bounds a key.
const MaxIdempotencyKeyLen = 255

// idempotencyAbandoned is how long a claim may stay unanswered before natter takes its
// request to have died with its node (a kill -9 between the write and the answer): the
// request deadline is 15 s.
const idempotencyAbandoned = time.Minute

// idempotencyWait bounds how long a retry waits for the first request with its key to end.
const idempotencyWait = 5 * time.Second

// IdempotencyStore keeps the claims on idempotency keys and their first answers.
type IdempotencyStore interface {
	// ClaimIdempotencyKey records a claim on (app, key) for a request with this fingerprint,
	// at now, unless the key has a claim made at or after since; then claimed is false and
	// rec is that claim.
	ClaimIdempotencyKey(ctx context.Context, appID, key, fingerprint string, now, since int64) (claimed bool, rec IdempotencyRecord, err error)
	// IdempotencyKey reads a claim; ErrNotFound when there is none.
	IdempotencyKey(ctx context.Context, appID, key string) (IdempotencyRecord, error)
	// FinishIdempotencyKey stores the answer of the claim made at created.
	FinishIdempotencyKey(ctx context.Context, appID, key string, created int64, status int, body []byte) error
	// ReleaseIdempotencyKey drops the claim made at created, so that a retry runs afresh.
	ReleaseIdempotencyKey(ctx context.Context, appID, key string, created int64) error
	// PurgeIdempotencyKeys drops the app's claims made before before.
	PurgeIdempotencyKeys(ctx context.Context, appID string, before int64) error
}

// IdempotencyRecord is a claim on a key and, once its request has been answered, the answer.
type IdempotencyRecord struct {
	Fingerprint string
	CreatedAt   int64
	Status      int // 0 while the first request runs
	Body        []byte
}

// IdempotentStart says how to go on with a request that carries a key: run it (Replay nil,
// and Claimed is the claim to finish or release), or answer with Replay.
type IdempotentStart struct {
	Claimed int64
	Replay  *IdempotencyRecord
}

// ValidIdempotencyKey reports whether key is 1 to 255 visible ASCII characters.
func ValidIdempotencyKey(key string) bool {
	if key == "" || len(key) > MaxIdempotencyKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// BeginIdempotent claims key for the principal's app and a request with this fingerprint
// (what identifies the request: method, path, acting user, body). A key already answered
// for the same request gives its answer to replay; for another request, 409
// ERR_IDEMPOTENCY_KEY_REUSED. A key whose first request is still running is waited for, up
// to five seconds, then answered 409 ERR_IDEMPOTENCY_KEY_IN_USE; so is one whose first
// request never answered (its node died), since natter cannot know whether it took effect.
func (s *Service) BeginIdempotent(ctx context.Context, p Principal, key, fingerprint string) (IdempotentStart, error) {
	if !ValidIdempotencyKey(key) {
		return IdempotentStart{}, InvalidField("Idempotency-Key", "The Idempotency-Key header must be 1 to 255 visible ASCII characters.")
	}
	s.purgeIdempotency(ctx, p.App.ID)
	deadline := time.Now().Add(idempotencyWait)
	pause := 10 * time.Millisecond
	for {
		now := s.cfg.Now()
		claimed, rec, err := s.store.ClaimIdempotencyKey(ctx, p.App.ID, key, fingerprint, now.Unix(), now.Add(-IdempotencyTTL).Unix())
		if err != nil {
			return IdempotentStart{}, internal("claim idempotency key", err)
		}
		if claimed {
			return IdempotentStart{Claimed: rec.CreatedAt}, nil
		}
		for {
			if rec.Fingerprint != fingerprint {
				return IdempotentStart{}, &Error{Code: CodeIdempotencyKeyReused,
					Message:    "This Idempotency-Key was used for a different request. Use a new key for a new request.",
					DevMessage: "The Idempotency-Key was first sent with another method, path, onBehalfOf or body in the last 24 hours; a retry must repeat the request exactly."}
			}
			if rec.Status != 0 {
				return IdempotentStart{Replay: &rec}, nil
			}
			if now.Sub(time.Unix(rec.CreatedAt, 0)) > idempotencyAbandoned || !time.Now().Add(pause).Before(deadline) {
				return IdempotentStart{}, errKeyInUse(now.Sub(time.Unix(rec.CreatedAt, 0)) > idempotencyAbandoned)
			}
			select {
			case <-ctx.Done():
				return IdempotentStart{}, errKeyInUse(false)
			case <-time.After(pause):
			}
			pause = min(2*pause, 200*time.Millisecond)
			rec, err = s.store.IdempotencyKey(ctx, p.App.ID, key)
			if errors.Is(err, ErrNotFound) {
				break // the first request failed and let go of the key: claim it
			}
			if err != nil {
				return IdempotentStart{}, internal("read idempotency key", err)
			}
		}
	}
}

func errKeyInUse(abandoned bool) *Error {
	if abandoned {
		return &Error{Code: CodeIdempotencyKeyInUse,
			Message:    "The first request with this Idempotency-Key did not finish, and whether it took effect is unknown. Check, then use a new key.",
			DevMessage: "The first request with this Idempotency-Key was claimed but never answered (its server stopped); natter will not run it again under this key."}
	}
	return &Error{Code: CodeIdempotencyKeyInUse,
		Message:    "A request with this Idempotency-Key is still being processed. Retry shortly.",
		DevMessage: "Another request with this Idempotency-Key is in flight; retry after it has been answered to get its answer."}
}

// FinishIdempotent stores the answer to the request that claimed key. A failure to store it
// is returned for logging; the answer itself has been sent.
func (s *Service) FinishIdempotent(ctx context.Context, p Principal, key string, start IdempotentStart, status int, body []byte) error {
	return s.store.FinishIdempotencyKey(context.WithoutCancel(ctx), p.App.ID, key, start.Claimed, status, body)
}

// ReleaseIdempotent lets go of key after its request failed in a way a retry may mend (a 5xx),
// so that the retry runs it afresh.
func (s *Service) ReleaseIdempotent(ctx context.Context, p Principal, key string, start IdempotentStart) error {
	return s.store.ReleaseIdempotencyKey(context.WithoutCancel(ctx), p.App.ID, key, start.Claimed)
}

// purgeIdempotency drops an app's expired claims, at most once a minute per app and node.
func (s *Service) purgeIdempotency(ctx context.Context, appID string) {
	now := s.cfg.Now()
	s.purgeMu.Lock()
	last, ok := s.purged[appID]
	if ok && now.Sub(last) < time.Minute && !now.Before(last) {
		s.purgeMu.Unlock()
		return
	}
	if s.purged == nil || len(s.purged) > 10_000 {
		s.purged = map[string]time.Time{}
	}
	s.purged[appID] = now
	s.purgeMu.Unlock()
	// Best effort: a failure leaves the rows for the next purge.
	_ = s.store.PurgeIdempotencyKeys(context.WithoutCancel(ctx), appID, now.Add(-IdempotencyTTL).Unix())
}
