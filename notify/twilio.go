package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// TwilioConfig is an app's Twilio settings.
type TwilioConfig struct {
	AccountSID          string // AC…
	AuthToken           string
	From                string // the sending number; or
	MessagingServiceSID string // MG…, which picks the number (wins over From)
}

// Twilio sends SMS through Twilio's Messages API.
type Twilio struct {
	c    *Client
	cfg  TwilioConfig
	auth string // the Basic credentials, ready
}

// twilioFromCodes are Twilio's error codes about the sender, which the app's settings choose:
// 21212 invalid From number, 21603 From missing, 21606 From not an SMS-capable number of the
// account.
var twilioFromCodes = map[int]bool{21212: true, 21603: true, 21606: true}

// NewTwilio returns the Twilio sender of an app's account.
func (c *Client) NewTwilio(cfg TwilioConfig) (*Twilio, error) {
	if !sid(cfg.AccountSID, "AC") || cfg.AuthToken == "" {
		return nil, errors.New("twilio: an account sid (AC…) and an auth token are required")
	}
	if cfg.From == "" && cfg.MessagingServiceSID == "" {
		return nil, errors.New("twilio: a From number or a messaging service sid is required")
	}
	req, _ := http.NewRequest(http.MethodPost, "/", nil)
	req.SetBasicAuth(cfg.AccountSID, cfg.AuthToken)
	return &Twilio{c: c, cfg: cfg, auth: req.Header.Get("Authorization")}, nil
}

// Send texts n.Body to n.To, a phone number.
func (t *Twilio) Send(ctx context.Context, n Notification) Result { return timed(ctx, n, t.send) }

func (t *Twilio) send(ctx context.Context, n Notification) Result {
	if n.To == "" || n.Body == "" {
		return failed(0, permanent, "", errors.New("twilio: no phone number or no text"))
	}
	form := url.Values{"To": {n.To}, "Body": {n.Body}}
	if t.cfg.MessagingServiceSID != "" {
		form.Set("MessagingServiceSid", t.cfg.MessagingServiceSID)
	} else {
		form.Set("From", t.cfg.From)
	}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Authorization": {t.auth}}
	u := t.c.cfg.Endpoints.Twilio + "/2010-04-01/Accounts/" + t.cfg.AccountSID + "/Messages.json"
	a, err := t.c.post(ctx, t.c.public, u, h, []byte(form.Encode()))
	if err != nil {
		return transportFailure("twilio", err)
	}
	var body struct {
		SID     string `json:"sid"`
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	json.Unmarshal(a.body, &body)
	if a.status >= 200 && a.status <= 299 { // 201 Created
		return Result{Status: a.status, ProviderMessageID: body.SID}
	}
	o := byStatus(a.status)
	switch {
	case a.status == http.StatusNotFound, twilioFromCodes[body.Code]: // no such account; the sender
		o = misconfigured
	}
	reason := ""
	if body.Code != 0 {
		reason = strconv.Itoa(body.Code)
	}
	r := failed(a.status, o, reason, errorf("twilio", "%d %s: %s", a.status, reason, clip(body.Message)))
	if o == retryable {
		r.RetryAfter = retryAfter(a.header, t.c.now())
	}
	return r
}

// sid reports whether s is a Twilio sid of that prefix: letters and digits only, so it can go
// in a path as it is.
func sid(s, prefix string) bool {
	if len(s) <= len(prefix) || len(s) > 64 || s[:len(prefix)] != prefix {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
