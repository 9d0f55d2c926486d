package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
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
