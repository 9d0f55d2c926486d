package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
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
