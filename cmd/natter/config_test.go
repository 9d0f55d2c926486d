package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/agent"
	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/blobstore"
	"github.com/natter-chat/natter/webhook"
)

func TestAppRateLimits(t *testing.T) {
	global := chat.RateLimits{Core: 10, Standard: 20, Import: 3}
	got, err := appRateLimits(" Shop:core=100, standard=500 ; big:standard=0;", global)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]chat.RateLimits{
		"shop": {Core: 100, Standard: 500, Import: 3},
		"big":  {Core: 10, Standard: 0, Import: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []struct{ in, says string }{
		{"shop", "want app:class=n"},
		{":core=1", "want app:class=n"},
		{"shop:core=-1", "0 or more"},
		{"shop:core=many", "whole number"},
		{"shop:premium=5", "core, standard or import"},
		{"shop:core=1;shop:standard=2", "named twice"},
		{"shop:", "want class=n"},
	} {
		if _, err := appRateLimits(bad.in, global); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%q: got %v, want an error saying %q", bad.in, err, bad.says)
		}
	}
}

// TestWebhookRetryBase: the first retry's delay defaults to the worker's 5 s, comes from the
// flag or NATTER_WEBHOOK_RETRY_BASE (the flag wins), and is refused at 0 or beyond the hour
// that caps every delay.
func TestWebhookRetryBase(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want time.Duration
		err  string
	}{
		{want: webhook.DefaultBackoff},
		{args: []string{"--webhook-retry-base", "200ms"}, want: 200 * time.Millisecond},
		{env: "1s", want: time.Second},
		{args: []string{"--webhook-retry-base", "2s"}, env: "1s", want: 2 * time.Second},
		{args: []string{"--webhook-retry-base", "0s"}, err: "--webhook-retry-base"},
		{args: []string{"--webhook-retry-base", "2h"}, err: "--webhook-retry-base"},
	} {
		getenv := func(k string) string {
			if k == "NATTER_WEBHOOK_RETRY_BASE" {
				return c.env
			}
			return ""
		}
		got, err := parseServe(c.args, getenv, io.Discard, io.Discard)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %q: got %v, want an error about %s", c.args, c.env, err, c.err)
			}
			continue
		}
		if err != nil || got.WebhookRetryBase != c.want {
			t.Errorf("%v %q: got %v, %v; want %v", c.args, c.env, got.WebhookRetryBase, err, c.want)
		}
	}
}

func TestNotificationSettingsOfServe(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := parseServe(nil, env(map[string]string{"NATTER_NOTIFICATION_LOG_RETENTION": "36h",
		"NATTER_NOTIFY_FCM_URL": "http://127.0.0.1:9000", "NATTER_NOTIFY_SENDGRID_URL": "https://sg.local"}), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.NotificationLogRetention != 36*time.Hour || c.NotifyEndpoints.FCM != "http://127.0.0.1:9000" ||
		c.NotifyEndpoints.SendGrid != "https://sg.local" || c.NotifyEndpoints.APNs != "" {
		t.Fatalf("config: %v %+v", c.NotificationLogRetention, c.NotifyEndpoints)
	}
	if c, err := parseServe(nil, env(nil), io.Discard, io.Discard); err != nil || c.NotificationLogRetention != 7*24*time.Hour {
		t.Fatalf("default retention: %v %v", c.NotificationLogRetention, err)
	}
	if _, err := parseServe([]string{"--notification-log-retention", "0s"}, env(nil), io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--notification-log-retention") {
		t.Errorf("a zero retention: %v", err)
	}
	if _, err := parseServe(nil, env(map[string]string{"NATTER_NOTIFY_APNS_URL": "api.push.apple.com"}), io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "NATTER_NOTIFY_APNS_URL") {
		t.Errorf("a URL without a scheme: %v", err)
	}
}

// TestAgentSettings: the agent workers' settings come from flags or NATTER_AGENT_*, and are
// refused out of range.
func TestAgentSettings(t *testing.T) {
	for _, c := range []struct {
		args    []string
		env     map[string]string
		workers int
		dl      time.Duration
		err     string
	}{
		{workers: agent.DefaultWorkers, dl: agent.DefaultStreamDeadline},
		{args: []string{"--agent-workers", "3", "--agent-deadline", "90s"}, workers: 3, dl: 90 * time.Second},
		{env: map[string]string{"NATTER_AGENT_WORKERS": "5", "NATTER_AGENT_DEADLINE": "2m"}, workers: 5, dl: 2 * time.Minute},
		{args: []string{"--agent-workers", "0"}, err: "--agent-workers"},
		{args: []string{"--agent-deadline", "500ms"}, err: "--agent-deadline"},
		{args: []string{"--agent-deadline", "2h"}, err: "--agent-deadline"},
	} {
		got, err := parseServe(c.args, func(k string) string { return c.env[k] }, io.Discard, io.Discard)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %v: got %v, want an error about %s", c.args, c.env, err, c.err)
			}
			continue
		}
		if err != nil || got.AgentWorkers != c.workers || got.AgentDeadline != c.dl {
			t.Errorf("%v %v: got %d %v %v", c.args, c.env, got.AgentWorkers, got.AgentDeadline, err)
		}
	}
}

// TestCallRingTimeout: 60 s unless set; 0 turns the sweep off; under 10 s or over an hour is
// refused.
func TestCallRingTimeout(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want time.Duration
		err  bool
	}{
		{want: chat.DefaultCallRingTimeout},
		{args: []string{"--call-ring-timeout", "2m"}, want: 2 * time.Minute},
		{env: map[string]string{"NATTER_CALL_RING_TIMEOUT": "0"}, want: 0},
		{args: []string{"--call-ring-timeout", "5s"}, err: true},
		{args: []string{"--call-ring-timeout", "2h"}, err: true},
		{args: []string{"--call-ring-timeout", "-1s"}, err: true},
	} {
		got, err := parseServe(c.args, func(k string) string { return c.env[k] }, io.Discard, io.Discard)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "--call-ring-timeout") {
				t.Errorf("%v: got %v, want an error about --call-ring-timeout", c.args, err)
			}
			continue
		}
		if err != nil || got.CallRingTimeout != c.want {
			t.Errorf("%v %v: got %v %v, want %v", c.args, c.env, got.CallRingTimeout, err, c.want)
		}
	}
}

// TestFileOrphanAfter: a day unless set; 0 turns the orphan sweep off; under a minute (a
// wait shorter than an upload form's life) or negative is refused.
func TestFileOrphanAfter(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want time.Duration
		err  bool
	}{
		{want: chat.DefaultFileOrphanAfter},
		{args: []string{"--file-orphan-after", "72h"}, want: 72 * time.Hour},
		{env: map[string]string{"NATTER_FILE_ORPHAN_AFTER": "0"}, want: 0},
		{args: []string{"--file-orphan-after", "30s"}, err: true},
		{args: []string{"--file-orphan-after", "-1h"}, err: true},
	} {
		got, err := parseServe(c.args, func(k string) string { return c.env[k] }, io.Discard, io.Discard)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "--file-orphan-after") {
				t.Errorf("%v: got %v, want an error about --file-orphan-after", c.args, err)
			}
			continue
		}
		if err != nil || got.FileOrphanAfter != c.want {
			t.Errorf("%v %v: got %v %v, want %v", c.args, c.env, got.FileOrphanAfter, err, c.want)
		}
	}
}

// TestConsoleSetting: the console is on unless --console or NATTER_CONSOLE turns it off (the
// flag wins), and nothing but on and off is taken.
func TestConsoleSetting(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want string
		err  bool
	}{
		{want: "on"},
		{env: "off", want: "off"},
		{args: []string{"--console", "on"}, env: "off", want: "on"},
		{args: []string{"--console", "off"}, want: "off"},
		{args: []string{"--console", "yes"}, err: true},
		{env: "true", err: true},
	} {
		getenv := func(k string) string {
			if k == "NATTER_CONSOLE" {
				return c.env
			}
			return ""
		}
		got, err := parseServe(c.args, getenv, io.Discard, io.Discard)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "--console must be on or off") {
				t.Errorf("%v %q: got %v, want the on-or-off error", c.args, c.env, err)
			}
			continue
		}
		if err != nil || got.Console != c.want {
			t.Errorf("%v %q: got %q, %v; want %q", c.args, c.env, got.Console, err, c.want)
		}
	}
}

// TestS3Settings: the S3 flags and variables, the secret from the environment only, path
// style by default; a configuration that cannot work is refused before anything starts.
func TestS3Settings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := parseServe([]string{"--s3-endpoint", "http://127.0.0.1:9000", "--s3-bucket", "files"},
		env(map[string]string{"NATTER_S3_ACCESS_KEY": "AK", "NATTER_S3_SECRET_KEY": "SK", "NATTER_S3_PREFIX": "natter/"}), io.Discard, io.Discard)
	want := blobstore.S3Config{Endpoint: "http://127.0.0.1:9000", Bucket: "files", Region: "us-east-1", AccessKey: "AK", SecretKey: "SK", PathStyle: true, Prefix: "natter/"}
	if err != nil || c.S3 != want {
		t.Errorf("got %+v, %v; want %+v", c.S3, err, want)
	}
	if c, err := parseServe(nil, env(nil), io.Discard, io.Discard); err != nil || c.S3.Endpoint != "" {
		t.Errorf("default: %+v %v", c.S3, err)
	}
	for _, bad := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--s3-bucket", "b"}, nil, "need --s3-endpoint"},
		{[]string{"--s3-endpoint", "http://h:9000"}, nil, "needs --s3-bucket"},
		{[]string{"--s3-endpoint", "http://h:9000", "--s3-bucket", "b", "--s3-access-key", "AK"}, nil, "go together"},
		{[]string{"--s3-endpoint", "http://h:9000", "--s3-bucket", "b", "--files-dir", "/x"}, nil, "exclude each other"},
		{[]string{"--s3-endpoint", "h:9000", "--s3-bucket", "b"}, nil, "want http(s)://host"},
		{nil, map[string]string{"NATTER_S3_SECRET_KEY": "SK"}, "need --s3-endpoint"},
		{[]string{"--s3-direct-upload"}, nil, "need --s3-endpoint"},
		{[]string{"--s3-endpoint", "http://h:9000", "--s3-bucket", "b", "--s3-direct-upload"}, nil, "needs --s3-access-key"},
	} {
		if _, err := parseServe(bad.args, env(bad.env), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v %v: %v, want %q", bad.args, bad.env, err, bad.want)
		}
	}
}
