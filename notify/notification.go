package notify

import (
	"context"
	"encoding/json"
	"time"
)

// Channel is how a notification reaches its recipient.
type Channel string

// The channels.
const (
	ChannelPush  Channel = "push"
	ChannelSMS   Channel = "sms"
	ChannelEmail Channel = "email"
)

// Notification is one notification to one recipient, its text already rendered (Render).
// Every field is encoded by encoding/json or as a form value, never spliced into a body.
type Notification struct {
	Channel Channel // push, sms or email: Custom sends it; the other providers serve one each
	UID     string  // the recipient's uid
	Name    string  // the recipient's name, if known (Custom sends it)
	// To is the push token, the phone number (E.164) or the email address. Custom: the push
	// token, or the stored phone or email when the provider asks for stored contact details;
	// empty otherwise.
	To    string
	VoIP  bool   // To is an APNs VoIP (PushKit) token
	Title string // push title, email subject; not sent by SMS
	Body  string // push body, SMS text, email text
	HTML  string // email: an HTML part besides the text, optional
	Sound string // push: "default" or a sound file of the app; empty sends none
	// Data is the push's custom data: FCM's data map, APNs' top-level keys beside "aps",
	// Custom's notificationDetails. Not sent by SMS and email providers.
	Data map[string]string
	// Event is the triggering event's data as webhooks carry it (`{"message": {…}}`); only
	// Custom sends it. It must be valid JSON.
	Event json.RawMessage
	// Expiration is when APNs may stop trying to deliver the push. Zero: APNs' default for
	// alerts, and "now or never" for VoIP pushes (a call that rings late is worse than none).
	Expiration time.Time
}

// Sender sends one notification through one provider. FCM, APNs, Twilio, SendGrid and Custom
// are Senders; all are safe for concurrent use.
type Sender interface {
	Send(ctx context.Context, n Notification) Result
}

var (
	_ Sender = (*FCM)(nil)
	_ Sender = (*APNs)(nil)
	_ Sender = (*Twilio)(nil)
	_ Sender = (*SendGrid)(nil)
	_ Sender = (*Custom)(nil)
)

// timed is a Sender's Send: send, with how long it took (Result.Latency).
func timed(ctx context.Context, n Notification, send func(context.Context, Notification) Result) Result {
	start := time.Now()
	r := send(ctx, n)
	r.Latency = time.Since(start)
	return r
}
