package console

import (
	"testing"
	"time"
)

func TestFailureLimiter(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := newFailureLimiter()
	l.now = func() time.Time { return now }
	for i := range signInFailures {
		if l.blocked("10.0.0.1") {
			t.Fatalf("blocked after %d failures", i)
		}
		l.fail("10.0.0.1")
	}
	if !l.blocked("10.0.0.1") {
		t.Fatalf("not blocked after %d failures", signInFailures)
	}
	if l.blocked("10.0.0.2") {
		t.Fatal("another address is blocked too")
	}
	now = now.Add(signInWindow)
	if l.blocked("10.0.0.1") {
		t.Fatal("still blocked in the next window")
	}
}
