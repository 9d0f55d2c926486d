package chat

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/natter-chat/natter/internal/blobstore"
)

// Defaults for Config.
const (
	DefaultMaxReactions = 50
	DefaultKeyCacheTTL  = 3 * time.Second
)

// Config holds the service's tunables.
type Config struct {
	// MaxReactions caps distinct reactions per message; 0 lifts the cap.
	MaxReactions int
	// MaxGroupMembers caps a group's members; 0 means DefaultMaxGroupMembers.
	MaxGroupMembers int
	// KeyCacheTTL bounds how long a deleted or changed key, or a deleted auth token, keeps
	// working on another node.
	KeyCacheTTL time.Duration
	// Now is the clock for timestamps and rate-limit windows; nil means time.Now. Cache
	// expiry always uses the wall clock.
	Now func() time.Time
	// RateLimits are every app's requests per minute by class (ratelimit.go), and
	// AppRateLimits replace them for the apps they name; all zero: no limits.
	RateLimits    RateLimits
	AppRateLimits map[string]RateLimits
	// WebhookKey seals webhook secrets and credentials; empty: a key natter generates and
	// keeps in the database (docs/security.md).
	WebhookKey []byte
	// WebhookAllowPrivate lets webhook URLs, and custom notification providers' URLs, name
	// loopback, private and link-local addresses.
	WebhookAllowPrivate bool
	// PushWhenOnline sends pushes also to users with an open socket (--notify-push-online);
	// by default a socket is told of a message and its user gets no push.
	PushWhenOnline bool
	// StatsFlushInterval is how often this node saves the usage it counted (GET /stats);
	// 0 means DefaultStatsFlushInterval, and a negative one saves only on FlushUsage, on a
	// stats request and on Close.
	StatsFlushInterval time.Duration
	// Files keeps uploaded files' bytes (files.go); nil: natter stores no files, and sends
	// with a file are refused with 501.
	Files blobstore.Store
	// MaxFileSize caps one uploaded file; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// DirectUploads points upload forms straight at Files, when it is a blobstore.Presigner
	// (an S3 bucket): the client posts the file to the bucket, its record is written with the
	// form, and a send checks the bytes are there (checkUploads, files.go).
	DirectUploads bool
}

// Service holds every business rule: tenancy, access, validation and the reaction rules.
// It imports no HTTP and no SQL driver.
type Service struct {
	store  Store
	cfg    Config
	keys   *keyCache
	limits *limiter // nil: no limits
	rollup *rollup  // usage metrics counted on this node (statsrollup.go)

	purgeMu sync.Mutex
	purged  map[string]time.Time // when each app's expired idempotency keys were last dropped

	secretMu sync.Mutex
	secret   []byte // socket credentials' signing secret (realtime.go), once read
	whKey    []byte // the derived webhook key (webhookcrypto.go), once read
	// mod caches each app's compiled moderation rules (moderationengine.go).
	mod modCache
	// feed hands committed changes to this node's listeners (changes.go).
	feed feed
	// entities caches users, blocks, groups, memberships, roles and notification settings,
	// kept true by the feed
	// (entitycache.go).
	entities *entityCache
	// recent keeps the messages the feed announced last, for their events' data
	// (recentmessages.go).
	recent *recentMessages
}

// New returns a Service over store.
func New(store Store, cfg Config) *Service {
	if cfg.KeyCacheTTL <= 0 {
		cfg.KeyCacheTTL = DefaultKeyCacheTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxGroupMembers <= 0 {
		cfg.MaxGroupMembers = DefaultMaxGroupMembers
	}
	if cfg.MaxReactions < 0 {
		cfg.MaxReactions = 0
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = DefaultMaxFileSize
	}
	if cfg.StatsFlushInterval == 0 {
		cfg.StatsFlushInterval = DefaultStatsFlushInterval
	}
	s := &Service{store: store, cfg: cfg, keys: newKeyCache(cfg.KeyCacheTTL, time.Now), rollup: newRollup(cfg.Now)}
	// One node (SQLite) hears every change as it commits; on PostgreSQL the cache waits
	// for FollowChanges to be following the other nodes' changes.
	log, shared := store.(ChangeLog)
	s.entities = newEntityCache(time.Now, !shared || log.Node() == "")
	s.Subscribe(s.entities.apply)
	s.Subscribe(s.keys.forget)
	s.recent = newRecentMessages()
	s.Subscribe(s.recent.apply)
	if cfg.RateLimits != (RateLimits{}) || len(cfg.AppRateLimits) > 0 {
		s.limits = newLimiter(cfg, store)
	}
	if cfg.StatsFlushInterval > 0 {
		s.rollup.stop, s.rollup.stopped = make(chan struct{}), make(chan struct{})
		go s.rollup.run(store, cfg.StatsFlushInterval)
	}
	return s
}

// Ready reports whether the database answers.
func (s *Service) Ready(ctx context.Context) error { return s.store.Ping(ctx) }

func (s *Service) now() int64 { return s.cfg.Now().Unix() }

// internal wraps an unexpected storage error. An unavailable database keeps its own code so
// clients can retry; anything else is a bug-shaped 500 whose cause is only logged.
func internal(op string, err error) error {
	if errors.Is(err, ErrUnavailable) {
		return &Error{Code: CodeServiceUnavailable, Message: "The service is temporarily unavailable. Please retry.", Err: fmt.Errorf("%s: %w", op, err)}
	}
	return &Error{Code: CodeException, Message: "Something went wrong. Please try again later.", Err: fmt.Errorf("%s: %w", op, err)}
}
