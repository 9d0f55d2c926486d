package webhook_test

import (
	"errors"
	"testing"
	"time"

	"github.com/natter-chat/natter/webhook"
)

// The verification of docs/webhooks.md: the body as sent verifies, under either secret
// during a rotation; a changed body, another secret or an old timestamp does not.
func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"trigger":"message_sent","data":{},"appId":"demo","region":"us","webhook":"wh1"}`)
	oldS, newS := []byte("whsec_old"), []byte("whsec_new")
	ts := "1800000000"
	header := webhook.SignatureHeader([][]byte{newS, oldS}, now.Unix(), body)
	for _, tc := range []struct {
		name   string
		secret []byte
		ts     string
		body   []byte
		at     time.Time
		want   error
	}{
		{"as sent", newS, ts, body, now, nil},
		{"the previous secret during rotation", oldS, ts, body, now, nil},
		{"changed body", newS, ts, append([]byte(nil), append(body[:len(body)-1], ' ', '}')...), now, webhook.ErrBadSignature},
		{"another secret", []byte("whsec_other"), ts, body, now, webhook.ErrBadSignature},
		{"changed timestamp", newS, "1800000001", body, now, webhook.ErrBadSignature},
		{"old timestamp", newS, ts, body, now.Add(6 * time.Minute), webhook.ErrTooOld},
		{"garbage timestamp", newS, "yesterday", body, now, webhook.ErrBadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := webhook.Verify(tc.secret, tc.ts, header, tc.body, 5*time.Minute, tc.at); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
