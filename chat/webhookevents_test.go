package chat

import "testing"

// TestEventKindWork: each outbox kind wakes its own workers, and only them; the zero kind
// is a webhook event's.
func TestEventKindWork(t *testing.T) {
	for _, tc := range []struct {
		kind EventKind
		want Work
	}{
		{OutboxEvent{}.Kind, WorkWebhook},
		{EventWebhook, WorkWebhook},
		{EventNotification, WorkNotify},
		{EventAgentJob, WorkAgent},
	} {
		if got := tc.kind.Work(); got != tc.want {
			t.Errorf("%d.Work() = %b, want %b", tc.kind, got, tc.want)
		}
	}
}
