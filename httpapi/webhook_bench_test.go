package httpapi_test

import (
	"context"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// benchWebhook subscribes a webhook of the app to trigger.
func benchWebhook(b *testing.B, svc *chat.Service, p chat.Principal, trigger string) {
	if _, err := svc.Webhooks().CreateWebhook(context.Background(), p, chat.WebhookCreate{URL: "https://hooks.example.com/bench", Triggers: []string{trigger}}); err != nil {
		b.Fatal(err)
	}
}
