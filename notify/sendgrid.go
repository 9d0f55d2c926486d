package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SendGridConfig is an app's SendGrid settings.
type SendGridConfig struct {
	APIKey    string
	FromEmail string // a verified sender of the account
	FromName  string
}

// SendGrid sends email through SendGrid's v3 Mail Send API.
type SendGrid struct {
	c   *Client
	cfg SendGridConfig
}

// NewSendGrid returns the SendGrid sender of an app's account.
func (c *Client) NewSendGrid(cfg SendGridConfig) (*SendGrid, error) {
	if cfg.APIKey == "" || cfg.FromEmail == "" {
		return nil, errors.New("sendgrid: an API key and a from address are required")
	}
	return &SendGrid{c: c, cfg: cfg}, nil
}

type sgAddress struct {
	Email string `json:"email"`
	Name  string `json:"name,omitempty"`
}

type sgContent struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type sgMail struct {
	Personalizations []struct {
		To []sgAddress `json:"to"`
	} `json:"personalizations"`
	From    sgAddress   `json:"from"`
	Subject string      `json:"subject"`
	Content []sgContent `json:"content"`
}

// Send mails n.Title as the subject and n.Body as the text (n.HTML as the HTML part, if
// any) to n.To.
func (s *SendGrid) Send(ctx context.Context, n Notification) Result { return timed(ctx, n, s.send) }

func (s *SendGrid) send(ctx context.Context, n Notification) Result {
	if n.To == "" || n.Title == "" || n.Body == "" {
		return failed(0, permanent, "", errors.New("sendgrid: no address, subject or text"))
	}
	m := sgMail{From: sgAddress{s.cfg.FromEmail, s.cfg.FromName}, Subject: n.Title,
		Content: []sgContent{{"text/plain", n.Body}}} // text/plain first, as SendGrid requires
	if n.HTML != "" {
		m.Content = append(m.Content, sgContent{"text/html", n.HTML})
	}
	m.Personalizations = make([]struct {
		To []sgAddress `json:"to"`
	}, 1)
	m.Personalizations[0].To = []sgAddress{{Email: n.To, Name: n.Name}}
	body, err := json.Marshal(m)
	if err != nil {
		return failed(0, permanent, "", errorf("sendgrid", "encode: %w", err))
	}
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + s.cfg.APIKey}}
	a, err := s.c.post(ctx, s.c.public, s.c.cfg.Endpoints.SendGrid+"/v3/mail/send", h, body)
	if err != nil {
		return transportFailure("sendgrid", err)
	}
	if a.status >= 200 && a.status <= 299 { // 202 Accepted
		return Result{Status: a.status, ProviderMessageID: a.header.Get("X-Message-Id")}
	}
	var e struct {
		Errors []struct {
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"errors"`
	}
	json.Unmarshal(a.body, &e)
	var msgs []string
	for _, x := range e.Errors {
		msgs = append(msgs, strings.TrimSpace(x.Field+" "+x.Message))
	}
	o := byStatus(a.status) // 401 bad key, 403 unverified sender or key without the scope: misconfigured
	r := failed(a.status, o, "", errorf("sendgrid", "%d: %s", a.status, clip(strings.Join(msgs, "; "))))
	if o == retryable {
		r.RetryAfter = retryAfter(a.header, s.c.now())
		if r.RetryAfter == 0 { // SendGrid's rate limit says when it resets instead
			if reset, err := strconv.ParseInt(a.header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				r.RetryAfter = max(0, time.Unix(reset, 0).Sub(s.c.now()))
			}
		}
	}
	return r
}
