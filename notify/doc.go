// Package notify sends one notification through one provider and says precisely what came
// of it, so that an outbox worker can retry what is retryable, drop push tokens that are
// gone and report providers that are misconfigured (Result). It knows nothing of storage or
// of the chat service: the caller renders the text (Render), picks the recipient's token or
// contact and the app's provider settings, and calls Send.
//
// Providers, made per app from one shared Client:
//
//   - FCM (HTTP v1): a service account's RS256 JWT is exchanged for an OAuth2 access token
//     (kept until 5 minutes before it expires), then POST {FCM}/v1/projects/{project}/messages:send.
//   - APNs (token-based, HTTP/2): an ES256 provider token {alg, kid}{iss, iat}, reused for
//     50 minutes, then POST {APNs}/3/device/{token}; VoIP tokens go to the bundle id + ".voip".
//   - Twilio: POST {Twilio}/2010-04-01/Accounts/{sid}/Messages.json, Basic auth, a form.
//   - SendGrid: POST {SendGrid}/v3/mail/send, a bearer API key, JSON.
//   - Custom: POST to the app's webhook URL, optional Basic auth, through the same safe dialer
//     as webhooks (no private, loopback or link-local address unless allowed, no redirect).
//
// Every request is bounded by ClientConfig.Timeout, every answer read up to 64 KiB, no
// redirect is followed, and no error carries a credential or a request URL.
//
// # The custom provider's body
//
// The shape follows the hosted service's custom providers (trigger, data.to, appId, region,
// webhook), so receivers written for it keep working, with the channel, the title and body
// and the triggering event's data added:
//
//	POST <webhookURL>
//	Content-Type: application/json
//	Authorization: Basic …   (when a username is set)
//
//	{
//	  "trigger": "push-notification-payload-generated",  // sms-…, email-notification-payload-generated
//	  "data": {
//	    "channel": "push",                                // "sms", "email"
//	    "to": {"uid": "bob", "name": "Bob", "token": "…"}, // sms: "phno", email: "email"; each only when known
//	    "title": "Alice",
//	    "body": "Hello!",
//	    "notificationDetails": {"title": "Alice", "body": "Hello!", …Notification.Data}, // push only
//	    "smsContent": "Hello!",                           // sms only: the body
//	    "subject": "Alice", "html": "…",                  // email only: the title, the HTML part if any
//	    "event": {"message": {…}}                         // the triggering event's data, as webhooks carry it
//	  },
//	  "appId": "app1",
//	  "region": "us",
//	  "webhook": "custom"
//	}
//
// Any 2xx is sent; 429, 5xx, timeouts and connection failures are retryable; 401 and 403 mean
// the Basic credentials are wrong (misconfigured); a redirect or a private address is
// misconfigured too; any other status refuses the notification for good.
package notify
