package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/natter-chat/natter/agent"
	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/console"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/notify"
	"github.com/natter-chat/natter/realtime"
	"github.com/natter-chat/natter/sqlstore"
	"github.com/natter-chat/natter/webhook"
)

// devCertFile is where --tls-self-signed writes its certificate.
const devCertFile = "natter-dev-cert.pem"

func newLogger(c config, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseServe(args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(c, stderr)
	if err != nil {
		return err
	}
	// Packages below log through slog's default (sqlstore's checkpoint warnings): in the
	// same format and at the same level as the rest.
	slog.SetDefault(log)
	if getenv("GOGC") == "" {
		// natter's live heap is a few MB, so collecting at 5x it rather than 2x costs tens of
		// MB and buys ~15% add-reaction throughput (bench/README.md). GOGC overrides.
		debug.SetGCPercent(400)
	}
	if getenv("GOMAXPROCS") == "" {
		// Two more Ps than CPUs: SQLite's single writer keeps its P through each of its many
		// short file writes (too short for the runtime to hand the P over), and request
		// goroutines would wait for it with a CPU free. Measured on 2 CPUs: p99 ~15.7 →
		// ~11.5 ms and 5–20% more add-reactions/s (bench/README.md). GOMAXPROCS overrides.
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
	db, err := sqlstore.Open(ctx, c.Database, sqlstore.Options{MaxConns: c.DBMaxConns, MaxIdleConns: c.DBIdleConns, Logger: log})
	if err != nil {
		return err
	}
	defer db.Close()
	appLimits, _ := appRateLimits(c.AppLimits, c.RateLimits) // checked by parseServe
	files, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	svc := chat.New(db, chat.Config{Files: files, DirectUploads: c.S3Direct, MaxFileSize: c.MaxFileSize, MaxReactions: c.MaxReactions, MaxGroupMembers: c.MaxMembers, KeyCacheTTL: c.KeyCacheTTL,
		RateLimits: c.RateLimits, AppRateLimits: appLimits, WebhookKey: c.WebhookKey, WebhookAllowPrivate: c.WebhookAllowPrivate,
		PushWhenOnline:     c.NotifyPushOnline,
		StatsFlushInterval: c.StatsFlush})

	tlsConf, err := tlsConfig(c, devCertFile)
	if err != nil {
		return err
	}
	// Real time: one bus per deployment (PostgreSQL's LISTEN/NOTIFY, or in-process on
	// SQLite), and this node's sockets.
	bus := db.NewBus(log)
	defer bus.Close()
	// Committed changes, agents' typing among them, reach the hub through svc's feed.
	hub := realtime.NewHub(svc, bus, realtime.HubOptions{MaxConns: c.MaxSockets}, log)

	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		hub.Close()
		return err
	}
	if tlsConf != nil {
		ln = tls.NewListener(ln, tlsConf)
	}
	scheme := "http"
	if tlsConf != nil {
		scheme = "https"
	}
	curlFlag := "" // curl must be told to trust a development certificate
	if c.TLSSelf {
		curlFlag = " --cacert " + devCertFile
	}
	if err := firstStart(ctx, svc, getenv, scheme, curlFlag, ln.Addr().String(), c.Domain, flagDatabase(c.Database, getenv), c.Console == "on", stdout); err != nil {
		ln.Close()
		hub.Close()
		return err
	}
	// Metrics are kept only where they can be read: on the debug address (serveDebug).
	var reg *prometheus.Registry
	var metrics *httpapi.Metrics
	var observe func(string, time.Duration)
	if c.DebugAddr != "" {
		if reg, metrics, observe, err = newMetrics(db, hub); err != nil {
			ln.Close()
			hub.Close()
			return err
		}
	}
	var handler http.Handler = httpapi.New(svc, httpapi.Options{Domain: c.Domain, MaxBodyBytes: c.MaxBody, AccessLog: c.AccessLog, Logger: log,
		CORSOrigins: splitList(c.CORSOrigins), Metrics: metrics, Hub: hub, PublicHost: c.PublicHost,
		MaxUploadBytes: c.MaxUploadBody, MaxUploads: c.MaxUploads})
	if c.Console == "on" {
		// The console's paths on any host but the API's (docs/console.md); the rest is the API's.
		handler = console.New(svc, console.Options{Domain: c.Domain, Sockets: hub.Open, MaxBodyBytes: c.MaxBody, Logger: log, AccessLog: c.AccessLog}).Wrap(handler)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if c.DebugAddr != "" {
		stop, err := serveDebug(c.DebugAddr, reg, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer stop()
	}
	// Webhook workers: every node runs them; they share the outbox through leases.
	wctx, stopWebhooks := context.WithCancel(context.WithoutCancel(ctx))
	webhooksDone := make(chan struct{})
	go func() {
		defer close(webhooksDone)
		webhook.New(svc, webhook.Config{Workers: c.WebhookWorkers, Timeout: c.WebhookTimeout, RetryFor: c.WebhookRetryFor, Retention: c.WebhookRetention,
			Backoff: c.WebhookRetryBase, AllowPrivate: c.WebhookAllowPrivate, Logger: log, Observe: observe}).Run(wctx)
	}()
	defer func() { stopWebhooks(); <-webhooksDone }()
	// Notification workers: every node expands the notification events and sends, through leases.
	nctx, stopNotify := context.WithCancel(context.WithoutCancel(ctx))
	notifyDone := make(chan struct{})
	go func() {
		defer close(notifyDone)
		notify.NewWorker(svc, notify.WorkerConfig{Retention: c.NotificationLogRetention, Logger: log,
			Client: notify.ClientConfig{AllowPrivate: c.WebhookAllowPrivate, Endpoints: c.NotifyEndpoints}}).Run(nctx)
	}()
	defer func() { stopNotify(); <-notifyDone }()
	// Agent workers: every node answers the agent jobs the sends wrote, through leases.
	actx, stopAgents := context.WithCancel(context.WithoutCancel(ctx))
	agentsDone := make(chan struct{})
	go func() {
		defer close(agentsDone)
		agent.New(svc, agent.Config{Workers: c.AgentWorkers, StreamDeadline: c.AgentDeadline, AllowPrivate: c.WebhookAllowPrivate,
			Logger: log}).Run(actx)
	}()
	defer func() { stopAgents(); <-agentsDone }()
	// The calls that rang out: every node sweeps; a session's row lock has one of them mark it.
	cctx, stopCalls := context.WithCancel(context.WithoutCancel(ctx))
	callsDone := make(chan struct{})
	go func() { defer close(callsDone); svc.Calls().RunCallExpiry(cctx, c.CallRingTimeout, log) }()
	defer func() { stopCalls(); <-callsDone }()
	// Uploaded files no message carried: every node sweeps; a claim's row locks give each file
	// to one node (chat/filesweep.go).
	fsctx, stopSweep := context.WithCancel(context.WithoutCancel(ctx))
	sweepDone := make(chan struct{})
	go func() { defer close(sweepDone); svc.RunFileSweep(fsctx, c.FileOrphanAfter, log) }()
	defer func() { stopSweep(); <-sweepDone }()
	// Tables grown without statistics are analyzed (PostgreSQL; on SQLite it returns at once).
	actx, stopAnalyze := context.WithCancel(context.WithoutCancel(ctx))
	analyzeDone := make(chan struct{})
	go func() { defer close(analyzeDone); db.AnalyzeYoungTables(actx, log) }()
	defer func() { stopAnalyze(); <-analyzeDone }()
	// The changes other nodes commit (PostgreSQL's change log) reach this node's listeners:
	// sockets, workers, caches. On SQLite FollowChanges returns at once.
	fctx, stopFollow := context.WithCancel(context.WithoutCancel(ctx))
	followDone := make(chan struct{})
	go func() {
		defer close(followDone)
		if err := svc.FollowChanges(fctx); err != nil {
			log.Error("change log: follow", "err", err)
		}
	}()
	defer func() { stopFollow(); <-followDone }()
	log.Info("natter listening", "addr", ln.Addr().String(), "scheme", scheme, "database", db.Dialect(), "version", version)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		hub.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests", "timeout", c.ShutdownWait)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.ShutdownWait)
	defer cancel()
	err = srv.Shutdown(sctx)
	hub.Close() // sockets are hijacked connections, which Shutdown leaves alone
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// Every request has been answered: save the usage figures this node still holds. A
	// failure loses them (said so in the log) but not the exit status: the requests were
	// all answered.
	if err := svc.Close(sctx); err != nil {
		log.Error("shutdown: the usage metrics this node counted since its last save are lost", "err", err)
	}
	log.Info("stopped")
	return nil
}

// firstStart creates the first app on an empty database and prints how to call it: first at
// an address any HTTP client reaches (the key names the app), then in the hosted service's
// host form, which needs *.<domain> to resolve here. database is the --database given, if any.
func firstStart(ctx context.Context, svc *chat.Service, getenv func(string) string, scheme, curlFlag, addr, domain, database string, consoleOn bool, stdout io.Writer) error {
	n, err := svc.CountApps(ctx)
	if err != nil || n > 0 {
		return err
	}
	in := chat.AppCreate{ID: getenv("NATTER_APP_ID"), Region: chat.Region(getenv("NATTER_APP_REGION")), FullAccessKey: getenv("NATTER_API_KEY")}
	if in.ID == "" {
		in.ID = "demo"
	}
	if in.Region == "" {
		in.Region = "us"
	}
	app, keys, err := svc.CreateApp(ctx, in)
	if errors.Is(err, chat.ErrAlreadyExists) {
		// Another node starting on the same empty database created it first: that is the
		// app this node serves too (nodes of one deployment share NATTER_* settings).
		return nil
	}
	if err != nil {
		return fmt.Errorf("create the first app: %s", describe(err, map[string]string{
			"appId": "NATTER_APP_ID", "region": "NATTER_APP_REGION", "apiKey": "NATTER_API_KEY", "name": "NATTER_APP_ID"}))
	}
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1" // listening on every address: loopback is one of them
	}
	where := fmt.Sprintf("which needs %s.api-%s.%s to resolve to this server", app.ID, app.Region, domain)
	if domain == "localhost" {
		where = "which needs *.localhost to resolve to this machine\n(curl and browsers do that themselves; Go, Python, Node and wget may not)"
	}
	full, auth := keys[0], keys[1]
	fmt.Fprintf(stdout, `natter: created the first app on this empty database
  app id:          %s
  region:          %s
  fullAccess key:  %s
  authOnly key:    %s
%sTry it from any HTTP client; the key names the app:
  curl%[12]s -H 'apikey: %[6]s' %[11]s://%[7]s/v3/users
or in the hosted service's host form, %[8]s:
  curl%[12]s -H 'apikey: %[6]s' %[11]s://%[1]s.api-%[2]s.%[9]s:%[10]s/v3/users
`, app.ID, app.Region, full.Value, auth.Value, keysNote(app.ID, database),
		full.Value, net.JoinHostPort(host, port), where, domain, port, scheme, curlFlag)
	if consoleOn {
		fmt.Fprintf(stdout, "Open the web console at %s://%s/console and sign in with the app id and the fullAccess key.\n",
			scheme, net.JoinHostPort(host, port))
	}
	return nil
}

// newMetrics is the registry /metrics serves: the HTTP layer's figures (httpapi.Metrics), the
// database pools' (go_sql_* per pool: connections open, in use, idle, waits), the Go
// runtime's and the process's, open sockets and webhook deliveries; observe is what the
// webhook workers report their attempts to.
func newMetrics(db *sqlstore.DB, hub *realtime.Hub) (*prometheus.Registry, *httpapi.Metrics, func(string, time.Duration), error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for name, pool := range db.Pools() {
		reg.MustRegister(collectors.NewDBStatsCollector(pool, db.Dialect()+"_"+name))
	}
	m, err := httpapi.NewMetrics(reg)
	if err != nil {
		return nil, nil, nil, err
	}
	// Real time and webhooks: the sockets this node holds, the outbox's depth (of the whole
	// deployment, read at each scrape) and this node's delivery attempts.
	sockets := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "natter_sockets_open",
		Help: "Real-time sockets open on this node."}, func() float64 { return float64(hub.Open()) })
	pending := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "natter_webhook_deliveries_pending",
		Help: "Webhook deliveries not yet delivered or dead-lettered, in the whole deployment."}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, err := db.PendingDeliveries(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	})
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "natter_webhook_attempts_total",
		Help: "Webhook delivery attempts made by this node, by outcome (delivered, failed, dead)."}, []string{"outcome"})
	took := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "natter_webhook_attempt_duration_seconds",
		Help: "How long webhook delivery attempts took.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 12)})
	for _, c := range []prometheus.Collector{sockets, pending, attempts, took} {
		if err := reg.Register(c); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, o := range []string{"delivered", "failed", "dead"} {
		attempts.WithLabelValues(o) // present from the start, at 0
	}
	observe := func(outcome string, d time.Duration) {
		attempts.WithLabelValues(outcome).Inc()
		took.Observe(d.Seconds())
	}
	return reg, m, observe, nil
}

// serveDebug serves net/http/pprof and Prometheus's /metrics on their own listener, never on
// the API's: they expose internals and must be reachable only where the operator chose.
func serveDebug(addr string, reg *prometheus.Registry, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--debug-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	// The message is what e2e and scripts look for; keep it.
	log.Info("debug listener (pprof)", "addr", ln.Addr().String(), "metrics", "/metrics")
	return func() { srv.Close() }, nil
}

// splitList splits a comma-separated setting, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
