package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"

	"github.com/natter-chat/natter/internal/publicaddr"
)

// CustomConfig is an app's custom provider: its webhook, for one channel or more.
type CustomConfig struct {
	URL      string // absolute http or https, without credentials
	Username string // Basic auth when not empty
	Password string
	AppID    string // sent in the body, as the hosted service does
	Region   string
}

// Custom posts notifications to an app's own webhook (the package doc shows the body), over
// the dialer of webhooks: private, loopback and link-local addresses are refused at connect
// time unless the Client allows them.
type Custom struct {
	c    *Client
	cfg  CustomConfig
	auth string
}

// NewCustom returns the sender of an app's custom provider.
func (c *Client) NewCustom(cfg CustomConfig) (*Custom, error) {
	u, err := url.Parse(cfg.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return nil, errors.New("custom provider: the URL must be an absolute http or https URL")
	case u.User != nil:
		return nil, errors.New("custom provider: the URL may not carry credentials: set Username and Password")
	case !c.cfg.AllowPrivate && publicaddr.PrivateHost(u.Hostname()):
		return nil, errors.New("custom provider: the URL names a loopback, private or link-local address")
	}
	cu := &Custom{c: c, cfg: cfg}
	if cfg.Username != "" {
		req, _ := http.NewRequest(http.MethodPost, "/", nil)
		req.SetBasicAuth(cfg.Username, cfg.Password)
		cu.auth = req.Header.Get("Authorization")
	}
	return cu, nil
}

// customTriggers name the body's trigger per channel, as the hosted service does.
var customTriggers = map[Channel]string{
	ChannelPush:  "push-notification-payload-generated",
	ChannelSMS:   "sms-notification-payload-generated",
	ChannelEmail: "email-notification-payload-generated",
}

type customTo struct {
	UID   string `json:"uid"`
	Name  string `json:"name,omitempty"`
	Token string `json:"token,omitempty"`
	Phone string `json:"phno,omitempty"`
	Email string `json:"email,omitempty"`
}

type customData struct {
	Channel             Channel           `json:"channel"`
	To                  customTo          `json:"to"`
	Title               string            `json:"title,omitempty"`
	Body                string            `json:"body,omitempty"`
	NotificationDetails map[string]string `json:"notificationDetails,omitempty"` // push
	SMSContent          string            `json:"smsContent,omitempty"`          // sms
	Subject             string            `json:"subject,omitempty"`             // email
	HTML                string            `json:"html,omitempty"`                // email
	Event               json.RawMessage   `json:"event,omitempty"`
}

type customBody struct {
	Trigger string     `json:"trigger"`
	Data    customData `json:"data"`
	AppID   string     `json:"appId,omitempty"`
	Region  string     `json:"region,omitempty"`
	Webhook string     `json:"webhook"`
}

// Send posts the notification to the webhook: any 2xx is sent.
func (cu *Custom) Send(ctx context.Context, n Notification) Result { return timed(ctx, n, cu.send) }

func (cu *Custom) send(ctx context.Context, n Notification) Result {
	trigger, ok := customTriggers[n.Channel]
	if !ok || n.UID == "" {
		return failed(0, permanent, "", fmt.Errorf("custom provider: channel %q or no uid", n.Channel))
	}
	if n.Event != nil && !json.Valid(n.Event) {
		return failed(0, permanent, "", errors.New("custom provider: the event data is not JSON"))
	}
	d := customData{Channel: n.Channel, To: customTo{UID: n.UID, Name: n.Name}, Title: n.Title, Body: n.Body, Event: n.Event}
	switch n.Channel {
	case ChannelPush:
		d.To.Token = n.To
		d.NotificationDetails = make(map[string]string, len(n.Data)+2)
		maps.Copy(d.NotificationDetails, n.Data)
		d.NotificationDetails["title"], d.NotificationDetails["body"] = n.Title, n.Body
	case ChannelSMS:
		d.To.Phone, d.SMSContent = n.To, n.Body
	case ChannelEmail:
		d.To.Email, d.Subject, d.HTML = n.To, n.Title, n.HTML
	}
	body, err := json.Marshal(customBody{Trigger: trigger, Data: d, AppID: cu.cfg.AppID, Region: cu.cfg.Region, Webhook: "custom"})
	if err != nil {
		return failed(0, permanent, "", errorf("custom provider", "encode: %w", err))
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if cu.auth != "" {
		h.Set("Authorization", cu.auth)
	}
	a, err := cu.c.post(ctx, cu.c.custom, cu.cfg.URL, h, body)
	if err != nil {
		return transportFailure("custom provider", err)
	}
	if a.status >= 200 && a.status <= 299 {
		return Result{Status: a.status}
	}
	o := byStatus(a.status) // 401/403: the Basic credentials are wrong
	r := failed(a.status, o, "", errorf("custom provider", "the webhook answered %d", a.status))
	if o == retryable {
		r.RetryAfter = retryAfter(a.header, cu.c.now())
	}
	return r
}
