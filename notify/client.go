package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/natter-chat/natter/internal/safedial"
)

// Defaults of ClientConfig.
const (
	DefaultTimeout = 10 * time.Second

	DefaultFCMURL         = "https://fcm.googleapis.com"
	DefaultGoogleTokenURL = "https://oauth2.googleapis.com/token"
	DefaultAPNsURL        = "https://api.push.apple.com"
	DefaultAPNsSandboxURL = "https://api.sandbox.push.apple.com"
	DefaultTwilioURL      = "https://api.twilio.com"
	DefaultSendGridURL    = "https://api.sendgrid.com"

	maxResponseRead = 64 << 10 // bytes of an answer read; the rest is dropped
	maxReasonLen    = 200      // bytes of a provider's error text kept in Result.Err
)

// Endpoints are the providers' base URLs, without a trailing slash; empty ones take the
// real hosts. Tests point them at local fakes. They are the operator's settings, never an
// app's: credentials an app uploads do not choose where natter posts (a service account's
// token_uri is not used).
type Endpoints struct {
	FCM         string // DefaultFCMURL
	GoogleToken string // DefaultGoogleTokenURL: where FCM's OAuth2 assertion is posted, and its aud
	APNs        string // DefaultAPNsURL
	APNsSandbox string // DefaultAPNsSandboxURL
	Twilio      string // DefaultTwilioURL
	SendGrid    string // DefaultSendGridURL
}

// ClientConfig tunes a Client; zero values take the defaults.
type ClientConfig struct {
	Timeout time.Duration // each HTTP request, token exchanges included
	// AllowPrivate lets Custom post to loopback, private and link-local addresses
	// (--webhook-allow-private); the providers' hosts are the operator's and not checked.
	AllowPrivate bool
	// RootCAs verifies the providers' TLS certificates; nil: the system's. Tests trust their
	// fakes with it.
	RootCAs   *x509.CertPool
	Endpoints Endpoints
	Now       func() time.Time // the clock of token lifetimes; default time.Now
}

// Client is the HTTP side the providers share: one connection pool for FCM, Google's OAuth2,
// Twilio and SendGrid, one HTTP/2 pool for APNs, and the safe dialer of app-chosen URLs for
// Custom. Make one per process and the providers (NewFCM, …) per app from it; providers
// are cheap, but FCM and APNs keep their access tokens, so keep them while the app's
// settings do not change. A Client is safe for concurrent use.
type Client struct {
	cfg    ClientConfig
	public *http.Client // FCM, OAuth2, Twilio, SendGrid
	apns   *http.Client // HTTP/2 only
	custom *http.Client // safedial
}

// errRedirect is a provider's redirect, which is not followed: the configured URL is the
// only one natter posts to.
var errRedirect = errors.New("the provider answered a redirect, which is not followed")

// NewClient returns a Client.
func NewClient(cfg ClientConfig) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e := &cfg.Endpoints
	for _, d := range []struct {
		v   *string
		def string
	}{{&e.FCM, DefaultFCMURL}, {&e.GoogleToken, DefaultGoogleTokenURL}, {&e.APNs, DefaultAPNsURL},
		{&e.APNsSandbox, DefaultAPNsSandboxURL}, {&e.Twilio, DefaultTwilioURL}, {&e.SendGrid, DefaultSendGridURL}} {
		*d.v = strings.TrimRight(*d.v, "/")
		if *d.v == "" {
			*d.v = d.def
		}
	}
	noRedirect := func(*http.Request, []*http.Request) error { return errRedirect }
	transport := func() *http.Transport {
		return &http.Transport{
			Proxy:                 http.ProxyFromEnvironment, // the providers' fixed hosts may sit behind an egress proxy
			DialContext:           (&net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:       &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:   cfg.Timeout,
			ResponseHeaderTimeout: cfg.Timeout,
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
		}
	}
	// APNs speaks HTTP/2 only, and wants its connections kept open.
	apnsTr := transport()
	apnsTr.Protocols = new(http.Protocols)
	apnsTr.Protocols.SetHTTP2(true)
	apnsTr.IdleConnTimeout = 10 * time.Minute
	return &Client{cfg: cfg,
		public: &http.Client{Transport: transport(), CheckRedirect: noRedirect},
		apns:   &http.Client{Transport: apnsTr, CheckRedirect: noRedirect},
		custom: safedial.Client(safedial.Options{Timeout: cfg.Timeout, AllowPrivate: cfg.AllowPrivate,
			AllowFlag: "--webhook-allow-private"}), // its errors get the provider's name from transportFailure
	}
}

func (c *Client) now() time.Time { return c.cfg.Now() }

// answer is a provider's answer, its body read up to maxResponseRead.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// post sends one request within the configured timeout and reads the answer. Its error never
// holds the request's URL, which may carry a device token, an account sid or an app's query
// string; header holds the credentials and never reaches an error either.
func (c *Client) post(ctx context.Context, hc *http.Client, rawURL string, header http.Header, body []byte) (*answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, errors.New("bad request URL") // url.Parse's error would quote the URL
	}
	req.Header = header
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "natter-notify/1")
	}
	res, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer res.Body.Close()
	// A read error after the status line leaves what was read: the status is the answer.
	b, _ := io.ReadAll(io.LimitReader(res.Body, maxResponseRead))
	return &answer{status: res.StatusCode, header: res.Header, body: b}, nil
}

// errorf prefixes an error with its provider.
func errorf(provider, format string, args ...any) error {
	return fmt.Errorf(provider+": "+format, args...)
}

// clip shortens a provider's text for an error.
func clip(s string) string {
	if len(s) <= maxReasonLen {
		return s
	}
	n := maxReasonLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
