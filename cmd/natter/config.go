package main

import (
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/natter-chat/natter/agent"
	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/blobstore"
	"github.com/natter-chat/natter/notify"
	"github.com/natter-chat/natter/webhook"
)

// config is serve's settings: each flag has a NATTER_* variable; a flag given on the command
// line wins over the variable, and the variable over the default.
type config struct {
	Addr         string
	Database     string
	Domain       string
	MaxReactions int
	MaxMembers   int
	DBMaxConns   int
	DBIdleConns  int
	KeyCacheTTL  time.Duration
	MaxBody      int64
	AccessLog    bool
	LogFormat    string
	LogLevel     string
	ShutdownWait time.Duration
	DebugAddr    string
	CORSOrigins  string
	RateLimits   chat.RateLimits
	AppLimits    string // --rate-limit-apps, parsed by appRateLimits
	TLSCert      string
	TLSKey       string
	TLSSelf      bool
	PublicHost   string
	MaxSockets   int
	// Webhooks (docs/webhooks.md). WebhookKey comes only from NATTER_WEBHOOK_KEY: a secret
	// on a command line would show in the process list.
	WebhookAllowPrivate bool
	WebhookKey          []byte
	WebhookWorkers      int
	WebhookTimeout      time.Duration
	WebhookRetryFor     time.Duration
	WebhookRetention    time.Duration
	WebhookRetryBase    time.Duration
	// Notifications (docs/notifications.md, "Sending"): how long the delivery log keeps a
	// record, and the providers' base URLs (tests point them at local fakes).
	NotificationLogRetention time.Duration
	NotifyPushOnline         bool
	AgentWorkers             int
	AgentDeadline            time.Duration
	CallRingTimeout          time.Duration
	FileOrphanAfter          time.Duration
	NotifyEndpoints          notify.Endpoints
	StatsFlush               time.Duration
	// Files (docs/files.md): where uploads are kept (default: beside a SQLite file; none on
	// PostgreSQL unless set), one file's cap, a file-carrying request's cap, uploads at once.
	FilesDir      string
	MaxFileSize   int64
	MaxUploadBody int64
	MaxUploads    int
	// S3 is the S3-compatible bucket files are kept in, when S3.Endpoint is set; in place of
	// FilesDir. Its secret key comes only from NATTER_S3_SECRET_KEY, as WebhookKey does.
	S3 blobstore.S3Config
	// S3Direct points upload forms at the bucket (S3 presigned POSTs), not at natter.
	S3Direct bool
	// Console is "on" or "off": the web console at /console (docs/console.md).
	Console string
}

func defaultDatabase(getenv func(string) string) string {
	if v := getenv("NATTER_DATABASE_URL"); v != "" {
		return v
	}
	return "sqlite:natter.db"
}

const serveHelp = `natter serve — run the chat server

Usage: natter serve [flags]

Serves CometChat's REST API v3 under /v3 and /v3.0, /healthz and /readyz, and the web
console at /console (--console; docs/console.md). On an empty
database it first creates an app and prints its id, region and two API keys on standard output:
they are shown only then, as natter stores keys hashed. On SQLite it holds <file>.lock while it
runs: a second serve, or a migrate, on the same file refuses to start. SIGINT and SIGTERM drain
in-flight requests, then exit 0.

Every flag can also be set by the NATTER_* variable in its description; a flag wins.
`

const serveHelpAfter = `
Environment only, a secret:
  NATTER_S3_SECRET_KEY  the secret key of --s3-access-key

Environment only, read on an empty database to create the first app:
  NATTER_APP_ID      the app id: 1 to 63 lowercase letters, digits or hyphens (default demo)
  NATTER_APP_REGION  us, eu or in (default us)
  NATTER_API_KEY     its fullAccess key: 16 to 256 visible ASCII characters, no spaces
                     (default: a random key of 40 hex digits)
`

func parseServe(args []string, getenv func(string) string, stdout, stderr io.Writer) (config, error) {
	c := config{}
	fs := flag.NewFlagSet("natter serve", flag.ContinueOnError)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var errs []error
	envInt := func(name string, def int) int {
		v := getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not an integer", name, v))
		}
		return n
	}
	envDur := func(name string, def time.Duration) time.Duration {
		v := getenv(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not a duration", name, v))
		}
		return d
	}
	envBool := func(name string, def bool) bool {
		v := getenv(name)
		if v == "" {
			return def
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not a boolean", name, v))
		}
		return b
	}
	fs.StringVar(&c.Addr, "addr", env("NATTER_ADDR", "127.0.0.1:8080"), "listen address (NATTER_ADDR)")
	fs.StringVar(&c.Database, "database", defaultDatabase(getenv), "sqlite:PATH or postgres://… (NATTER_DATABASE_URL)")
	fs.StringVar(&c.Domain, "domain", env("NATTER_DOMAIN", "localhost"), "the <domain> of <appId>.api-<region>.<domain> (NATTER_DOMAIN)")
	fs.IntVar(&c.MaxReactions, "max-reactions", envInt("NATTER_MAX_REACTIONS", chat.DefaultMaxReactions), "distinct reactions per message, 0 lifts the cap (NATTER_MAX_REACTIONS)")
	fs.IntVar(&c.MaxMembers, "max-group-members", envInt("NATTER_MAX_GROUP_MEMBERS", chat.DefaultMaxGroupMembers), "members per group (NATTER_MAX_GROUP_MEMBERS)")
	fs.IntVar(&c.DBMaxConns, "db-max-conns", envInt("NATTER_DB_MAX_CONNS", 0), "PostgreSQL pool size, or SQLite reader connections; 0 picks by CPU count (NATTER_DB_MAX_CONNS)")
	fs.IntVar(&c.DBIdleConns, "db-idle-conns", envInt("NATTER_DB_IDLE_CONNS", 0), "PostgreSQL idle connections kept; 0 keeps the pool size (NATTER_DB_IDLE_CONNS)")
	fs.DurationVar(&c.KeyCacheTTL, "key-cache-ttl", envDur("NATTER_KEY_CACHE_TTL", chat.DefaultKeyCacheTTL), "how long API keys, auth tokens and apps are cached, at most 5s (NATTER_KEY_CACHE_TTL)")
	fs.Int64Var(&c.MaxBody, "max-body", int64(envInt("NATTER_MAX_BODY", 64<<10)), "request body cap in bytes (NATTER_MAX_BODY)")
	fs.BoolVar(&c.AccessLog, "access-log", envBool("NATTER_ACCESS_LOG", true), "log every request (NATTER_ACCESS_LOG)")
	fs.StringVar(&c.LogFormat, "log-format", env("NATTER_LOG_FORMAT", "text"), "text or json (NATTER_LOG_FORMAT)")
	fs.StringVar(&c.LogLevel, "log-level", env("NATTER_LOG_LEVEL", "info"), "debug, info, warn or error (NATTER_LOG_LEVEL)")
	fs.DurationVar(&c.ShutdownWait, "shutdown-timeout", envDur("NATTER_SHUTDOWN_TIMEOUT", 15*time.Second), "how long SIGTERM waits for in-flight requests (NATTER_SHUTDOWN_TIMEOUT)")
	fs.StringVar(&c.DebugAddr, "debug-addr", env("NATTER_DEBUG_ADDR", ""), "serve Go's pprof profiles on this separate address, e.g. 127.0.0.1:6060; off when empty (NATTER_DEBUG_ADDR)")
	fs.IntVar(&c.RateLimits.Core, "rate-limit-core", envInt("NATTER_RATE_LIMIT_CORE", chat.DefaultRateLimits.Core), "each app's core operations per minute (create/delete user, create/join group, create auth token); 0: no limit (NATTER_RATE_LIMIT_CORE)")
	fs.IntVar(&c.RateLimits.Standard, "rate-limit-standard", envInt("NATTER_RATE_LIMIT_STANDARD", chat.DefaultRateLimits.Standard), "each app's other operations per minute; 0: no limit (NATTER_RATE_LIMIT_STANDARD)")
	fs.IntVar(&c.RateLimits.Import, "rate-limit-import", envInt("NATTER_RATE_LIMIT_IMPORT", chat.DefaultRateLimits.Import), "each app's data-import requests per minute; 0: no limit (NATTER_RATE_LIMIT_IMPORT)")
	fs.StringVar(&c.AppLimits, "rate-limit-apps", env("NATTER_RATE_LIMIT_APPS", ""), "limits for named apps, e.g. 'shop:core=100,standard=500;big:standard=0' (classes not named keep the global limit) (NATTER_RATE_LIMIT_APPS)")
	fs.DurationVar(&c.StatsFlush, "stats-flush-interval", envDur("NATTER_STATS_FLUSH_INTERVAL", chat.DefaultStatsFlushInterval), "how often this node saves the usage figures it counted (GET /stats); a kill -9 loses at most this much of them (NATTER_STATS_FLUSH_INTERVAL)")
	fs.StringVar(&c.CORSOrigins, "cors-origins", env("NATTER_CORS_ORIGINS", ""), "comma-separated origins browsers may call the API from, e.g. https://app.example.com, or * for any; off when empty (NATTER_CORS_ORIGINS)")
	fs.StringVar(&c.TLSCert, "tls-cert", env("NATTER_TLS_CERT", ""), "serve HTTPS (and WSS) with this PEM certificate chain; needs --tls-key (NATTER_TLS_CERT)")
	fs.StringVar(&c.TLSKey, "tls-key", env("NATTER_TLS_KEY", ""), "the PEM private key of --tls-cert (NATTER_TLS_KEY)")
	fs.BoolVar(&c.TLSSelf, "tls-self-signed", envBool("NATTER_TLS_SELF_SIGNED", false), "development only: serve HTTPS with a fresh self-signed certificate for localhost, *.localhost and 127.0.0.1, written to natter-dev-cert.pem for clients to trust (NATTER_TLS_SELF_SIGNED)")
	fs.StringVar(&c.PublicHost, "public-host", env("NATTER_PUBLIC_HOST", ""), "host:port clients reach this deployment at (behind a load balancer, its address); the client SDK's settings point there; empty: the host each request came to (NATTER_PUBLIC_HOST)")
	fs.StringVar(&c.FilesDir, "files-dir", env("NATTER_FILES_DIR", ""), "directory uploaded files are kept in; empty: <database file>.files beside a SQLite database, and no uploads on PostgreSQL (every node needs the same shared directory) (NATTER_FILES_DIR)")
	fs.Int64Var(&c.MaxFileSize, "max-file-size", int64(envInt("NATTER_MAX_FILE_SIZE", chat.DefaultMaxFileSize)), "largest uploaded file in bytes (NATTER_MAX_FILE_SIZE)")
	fs.Int64Var(&c.MaxUploadBody, "max-upload-body", int64(envInt("NATTER_MAX_UPLOAD_BODY", 0)), "body cap in bytes of a request that carries files; 0: --max-file-size and 1 MiB (NATTER_MAX_UPLOAD_BODY)")
	fs.IntVar(&c.MaxUploads, "max-uploads", envInt("NATTER_MAX_UPLOADS", 32), "requests receiving files at once on this node; 503 past it (NATTER_MAX_UPLOADS)")
	fs.StringVar(&c.S3.Endpoint, "s3-endpoint", env("NATTER_S3_ENDPOINT", ""), "keep uploaded files in an S3-compatible bucket at this base URL, e.g. http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com, in place of --files-dir: what every node of a PostgreSQL deployment can share (NATTER_S3_ENDPOINT)")
	fs.StringVar(&c.S3.Bucket, "s3-bucket", env("NATTER_S3_BUCKET", ""), "the bucket of --s3-endpoint; it must exist (NATTER_S3_BUCKET)")
	fs.StringVar(&c.S3.Region, "s3-region", env("NATTER_S3_REGION", "us-east-1"), "the region requests to --s3-endpoint are signed for (NATTER_S3_REGION)")
	fs.StringVar(&c.S3.AccessKey, "s3-access-key", env("NATTER_S3_ACCESS_KEY", ""), "the access key id of --s3-endpoint; its secret comes only from NATTER_S3_SECRET_KEY (NATTER_S3_ACCESS_KEY)")
	fs.BoolVar(&c.S3.PathStyle, "s3-path-style", envBool("NATTER_S3_PATH_STYLE", true), "address the bucket as <endpoint>/<bucket>/<key>, as MinIO, Garage, SeaweedFS and versitygw expect; false: <bucket>.<endpoint>, AWS's virtual hosts (NATTER_S3_PATH_STYLE)")
	fs.BoolVar(&c.S3Direct, "s3-direct-upload", envBool("NATTER_S3_DIRECT_UPLOAD", false), "upload forms (POST /files/upload-url) post the file straight to the bucket, an S3 presigned POST, so that its bytes never pass through natter; the bucket must be reachable by clients at --s3-endpoint, and allow browsers' origins (CORS) (NATTER_S3_DIRECT_UPLOAD)")
	fs.StringVar(&c.S3.Prefix, "s3-prefix", env("NATTER_S3_PREFIX", ""), "put before every object's name, e.g. natter/, to share a bucket (NATTER_S3_PREFIX)")
	fs.IntVar(&c.MaxSockets, "max-sockets", envInt("NATTER_MAX_SOCKETS", 20000), "open real-time sockets this node accepts (NATTER_MAX_SOCKETS)")
	fs.StringVar(&c.Console, "console", env("NATTER_CONSOLE", "on"), "on or off: serve the web console at /console, on every host name but the API's <appId>.api-<region>.<domain> ones (NATTER_CONSOLE)")
	fs.BoolVar(&c.WebhookAllowPrivate, "webhook-allow-private", envBool("NATTER_WEBHOOK_ALLOW_PRIVATE", false), "deliver webhooks, and accept custom notification providers, to loopback, private and link-local addresses too, e.g. for tests (NATTER_WEBHOOK_ALLOW_PRIVATE)")
	fs.IntVar(&c.WebhookWorkers, "webhook-workers", envInt("NATTER_WEBHOOK_WORKERS", webhook.DefaultWorkers), "webhook lanes (conversations of a webhook) served at once on this node (NATTER_WEBHOOK_WORKERS)")
	fs.DurationVar(&c.WebhookTimeout, "webhook-timeout", envDur("NATTER_WEBHOOK_TIMEOUT", webhook.DefaultTimeout), "how long one webhook delivery attempt may take (NATTER_WEBHOOK_TIMEOUT)")
	fs.DurationVar(&c.WebhookRetention, "webhook-retention", envDur("NATTER_WEBHOOK_RETENTION", webhook.DefaultRetention), "how long delivered and dead-lettered webhook events stay in the delivery log, for replay (NATTER_WEBHOOK_RETENTION)")
	fs.DurationVar(&c.WebhookRetryFor, "webhook-retry-for", envDur("NATTER_WEBHOOK_RETRY_FOR", webhook.DefaultRetryFor), "how long a failing webhook delivery is retried before it is dead-lettered (NATTER_WEBHOOK_RETRY_FOR)")
	// The first retry's delay: 5 s in production; tests and demos shorten the schedule.
	fs.DurationVar(&c.WebhookRetryBase, "webhook-retry-base", envDur("NATTER_WEBHOOK_RETRY_BASE", webhook.DefaultBackoff), "the delay before a failed webhook delivery's first retry; each next one doubles, up to an hour (NATTER_WEBHOOK_RETRY_BASE)")
	fs.DurationVar(&c.NotificationLogRetention, "notification-log-retention", envDur("NATTER_NOTIFICATION_LOG_RETENTION", notify.DefaultRetention), "how long the notification delivery log keeps a record (NATTER_NOTIFICATION_LOG_RETENTION)")
	fs.BoolVar(&c.NotifyPushOnline, "notify-push-online", envBool("NATTER_NOTIFY_PUSH_ONLINE", false), "push notifications also to users with an open socket (NATTER_NOTIFY_PUSH_ONLINE)")
	fs.IntVar(&c.AgentWorkers, "agent-workers", envInt("NATTER_AGENT_WORKERS", agent.DefaultWorkers), "AI agent calls in flight on this node (NATTER_AGENT_WORKERS)")
	fs.DurationVar(&c.AgentDeadline, "agent-deadline", envDur("NATTER_AGENT_DEADLINE", agent.DefaultStreamDeadline), "how long one AI agent answer may take in all, its retries and a streamed answer to its end (NATTER_AGENT_DEADLINE)")
	fs.DurationVar(&c.CallRingTimeout, "call-ring-timeout", envDur("NATTER_CALL_RING_TIMEOUT", chat.DefaultCallRingTimeout), "how long a call may ring before natter marks it unanswered, for callers whose client died ringing; 0 never (NATTER_CALL_RING_TIMEOUT)")
	fs.DurationVar(&c.FileOrphanAfter, "file-orphan-after", envDur("NATTER_FILE_ORPHAN_AFTER", chat.DefaultFileOrphanAfter), "how long an uploaded file no message carries is kept before the nodes' sweep deletes it; 0 never (NATTER_FILE_ORPHAN_AFTER)")
	// The providers' hosts are the operator's; only tests and proxies change them.
	c.NotifyEndpoints = notify.Endpoints{FCM: getenv("NATTER_NOTIFY_FCM_URL"), GoogleToken: getenv("NATTER_NOTIFY_GOOGLE_TOKEN_URL"),
		APNs: getenv("NATTER_NOTIFY_APNS_URL"), APNsSandbox: getenv("NATTER_NOTIFY_APNS_SANDBOX_URL"),
		Twilio: getenv("NATTER_NOTIFY_TWILIO_URL"), SendGrid: getenv("NATTER_NOTIFY_SENDGRID_URL")}
	if v := getenv("NATTER_WEBHOOK_KEY"); v != "" {
		k, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(k) < 32 {
			errs = append(errs, fmt.Errorf("NATTER_WEBHOOK_KEY must be at least 32 bytes in standard base64 (openssl rand -base64 32)"))
		}
		c.WebhookKey = k
	}
	// A secret on a command line would show in the process list, so none is a flag.
	c.S3.SecretKey = getenv("NATTER_S3_SECRET_KEY")
	if err := parseFlags(fs, serveHelp, serveHelpAfter, args, stdout, stderr); err != nil {
		return c, err
	}
	if len(errs) > 0 {
		return c, errs[0]
	}
	switch {
	case c.MaxReactions < 0:
		return c, fmt.Errorf("--max-reactions must be 0 or more")
	case c.MaxMembers < 1:
		return c, fmt.Errorf("--max-group-members must be 1 or more")
	case c.KeyCacheTTL <= 0 || c.KeyCacheTTL > 5*time.Second:
		return c, fmt.Errorf("--key-cache-ttl must be more than 0 and at most 5s")
	case c.MaxBody < 1024:
		return c, fmt.Errorf("--max-body must be at least 1024")
	case c.LogFormat != "text" && c.LogFormat != "json":
		return c, fmt.Errorf("--log-format must be text or json")
	case (c.TLSCert == "") != (c.TLSKey == ""):
		return c, fmt.Errorf("--tls-cert and --tls-key go together")
	case c.TLSSelf && c.TLSCert != "":
		return c, fmt.Errorf("--tls-self-signed and --tls-cert exclude each other")
	case c.MaxSockets < 1:
		return c, fmt.Errorf("--max-sockets must be 1 or more")
	case c.MaxFileSize < 1:
		return c, fmt.Errorf("--max-file-size must be 1 or more")
	case c.MaxUploadBody < 0:
		return c, fmt.Errorf("--max-upload-body must be 0 or more")
	case c.MaxUploads < 1:
		return c, fmt.Errorf("--max-uploads must be 1 or more")
	case c.AgentWorkers < 1:
		return c, fmt.Errorf("--agent-workers must be 1 or more")
	case c.AgentDeadline < time.Second || c.AgentDeadline > time.Hour:
		return c, fmt.Errorf("--agent-deadline must be between 1s and 1h")
	case c.CallRingTimeout != 0 && (c.CallRingTimeout < 10*time.Second || c.CallRingTimeout > time.Hour):
		return c, fmt.Errorf("--call-ring-timeout must be 0 (never) or between 10s and 1h")
	case c.FileOrphanAfter != 0 && c.FileOrphanAfter < time.Minute:
		// An upload is sent within its form's 15 minutes; a shorter wait would take files
		// whose message is on its way.
		return c, fmt.Errorf("--file-orphan-after must be 0 (never) or at least 1m")
	case c.Console != "on" && c.Console != "off":
		return c, fmt.Errorf("--console must be on or off")
	case c.NotificationLogRetention <= 0:
		return c, fmt.Errorf("--notification-log-retention must be more than 0")
	case c.WebhookWorkers < 1 || c.WebhookTimeout <= 0 || c.WebhookRetryFor <= 0 || c.WebhookRetention <= 0:
		return c, fmt.Errorf("--webhook-workers, --webhook-timeout, --webhook-retry-for and --webhook-retention must be more than 0")
	case c.WebhookRetryBase <= 0 || c.WebhookRetryBase > webhook.DefaultMaxBackoff:
		return c, fmt.Errorf("--webhook-retry-base must be more than 0 and at most %v", webhook.DefaultMaxBackoff)
	case c.StatsFlush < 100*time.Millisecond || c.StatsFlush > time.Hour:
		return c, fmt.Errorf("--stats-flush-interval must be between 100ms and 1h")
	}
	e := c.NotifyEndpoints
	for name, v := range map[string]string{"NATTER_NOTIFY_FCM_URL": e.FCM, "NATTER_NOTIFY_GOOGLE_TOKEN_URL": e.GoogleToken,
		"NATTER_NOTIFY_APNS_URL": e.APNs, "NATTER_NOTIFY_APNS_SANDBOX_URL": e.APNsSandbox, "NATTER_NOTIFY_TWILIO_URL": e.Twilio,
		"NATTER_NOTIFY_SENDGRID_URL": e.SendGrid} {
		if u, err := url.Parse(v); v != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil) {
			return c, fmt.Errorf("%s: %q is not an http or https base URL", name, v)
		}
	}
	if err := checkS3(c); err != nil {
		return c, err
	}
	if c.PublicHost != "" {
		if _, port, err := net.SplitHostPort(c.PublicHost); err != nil || port == "" || strings.ContainsAny(c.PublicHost, "/ ") {
			return c, fmt.Errorf("--public-host: %q is not host:port", c.PublicHost)
		}
	}
	if c.RateLimits.Core < 0 || c.RateLimits.Standard < 0 || c.RateLimits.Import < 0 {
		return c, fmt.Errorf("--rate-limit-core, --rate-limit-standard and --rate-limit-import must be 0 or more")
	}
	if _, err := appRateLimits(c.AppLimits, c.RateLimits); err != nil {
		return c, fmt.Errorf("--rate-limit-apps: %w", err)
	}
	for _, o := range splitList(c.CORSOrigins) {
		if u, err := url.Parse(o); o != "*" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "") {
			return c, fmt.Errorf("--cors-origins: %q is not an origin such as https://app.example.com, nor *", o)
		}
	}
	return c, nil
}

// appRateLimits parses --rate-limit-apps: "app:class=n,class=n;app:…", classes core,
// standard and import; a class not named keeps the global limit, and 0 lifts it.
func appRateLimits(v string, global chat.RateLimits) (map[string]chat.RateLimits, error) {
	out := map[string]chat.RateLimits{}
	for _, item := range strings.Split(v, ";") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		app, spec, ok := strings.Cut(item, ":")
		app = strings.ToLower(strings.TrimSpace(app))
		if !ok || !chat.ValidAppID(app) {
			return nil, fmt.Errorf("%q: want app:class=n,… with an app id before the colon", item)
		}
		if _, dup := out[app]; dup {
			return nil, fmt.Errorf("app %q is named twice", app)
		}
		lim := global
		for _, kv := range strings.Split(spec, ",") {
			k, nv, _ := strings.Cut(strings.TrimSpace(kv), "=")
			n, err := strconv.Atoi(strings.TrimSpace(nv))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q: want class=n with n a whole number, 0 or more", kv)
			}
			switch strings.TrimSpace(k) {
			case "core":
				lim.Core = n
			case "standard":
				lim.Standard = n
			case "import":
				lim.Import = n
			default:
				return nil, fmt.Errorf("%q: the class must be core, standard or import", kv)
			}
		}
		out[app] = lim
	}
	return out, nil
}

// checkS3 refuses an S3 configuration that cannot work, before anything starts: a bucket
// without an endpoint (or the reverse), credentials in half, S3 and --files-dir both.
func checkS3(c config) error {
	s := c.S3
	switch {
	case s.Endpoint == "" && (s.Bucket != "" || s.AccessKey != "" || s.SecretKey != "" || s.Prefix != "" || c.S3Direct):
		return fmt.Errorf("--s3-bucket, --s3-access-key, --s3-prefix, --s3-direct-upload and NATTER_S3_SECRET_KEY need --s3-endpoint")
	case c.S3Direct && s.AccessKey == "":
		return fmt.Errorf("--s3-direct-upload needs --s3-access-key: a presigned POST is signed with it")
	case s.Endpoint == "":
		return nil
	case c.FilesDir != "":
		return fmt.Errorf("--files-dir and --s3-endpoint exclude each other: files are kept in one place")
	case s.Bucket == "":
		return fmt.Errorf("--s3-endpoint needs --s3-bucket")
	case (s.AccessKey == "") != (s.SecretKey == ""):
		return fmt.Errorf("--s3-access-key and NATTER_S3_SECRET_KEY go together")
	}
	if _, err := blobstore.OpenS3(s); err != nil {
		return fmt.Errorf("--s3-endpoint: %w", err)
	}
	return nil
}
