package notify

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// apnsTokenReuse is how long a provider token is used: APNs refuses tokens older than an
// hour and answers TooManyProviderTokenUpdates to new ones more often than every 20 minutes.
const apnsTokenReuse = 50 * time.Minute

// APNsConfig is an app's token-based APNs settings.
type APNsConfig struct {
	TeamID  string // the Apple developer team
	KeyID   string // the auth key's id
	Key     []byte // the auth key, the .p8 file (PEM, PKCS#8, P-256)
	Topic   string // the app's bundle id; VoIP pushes go to Topic + ".voip"
	Sandbox bool   // the development environment (api.sandbox.push.apple.com)
}

// APNs sends through Apple's HTTP/2 provider API with a JWT provider token, which it reuses
// for apnsTokenReuse and renews when APNs calls it expired or invalid.
type APNs struct {
	c      *Client
	base   string
	teamID string
	keyID  string
	topic  string
	key    *ecdsa.PrivateKey

	mu     sync.Mutex // guards jwt and issued
	jwt    string
	issued time.Time
}

// NewAPNs returns the APNs sender of an app's auth key.
func (c *Client) NewAPNs(cfg APNsConfig) (*APNs, error) {
	if cfg.TeamID == "" || cfg.KeyID == "" || cfg.Topic == "" {
		return nil, errors.New("apns: the team id, key id and topic are required")
	}
	key, err := parseP256Key(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("apns: auth key: %w", err)
	}
	base := c.cfg.Endpoints.APNs
	if cfg.Sandbox {
		base = c.cfg.Endpoints.APNsSandbox
	}
	return &APNs{c: c, base: base, teamID: cfg.TeamID, keyID: cfg.KeyID, topic: cfg.Topic, key: key}, nil
}

// Send posts the notification to n.To, a device token (hex), as an alert, or as a VoIP push
// when n.VoIP.
func (p *APNs) Send(ctx context.Context, n Notification) Result { return timed(ctx, n, p.send) }

func (p *APNs) send(ctx context.Context, n Notification) Result {
	if !isHex(n.To) {
		// Not a device token at all (and never to be put in a path as it is).
		return failed(0, invalidToken, "BadDeviceToken", errors.New("apns: the device token is not hexadecimal"))
	}
	body, err := apnsPayload(n)
	if err != nil {
		return failed(0, permanent, "", errorf("apns", "encode: %w", err))
	}
	h := http.Header{"Content-Type": {"application/json"}, "Apns-Priority": {"10"}}
	switch {
	case n.VoIP:
		h.Set("Apns-Topic", p.topic+".voip")
		h.Set("Apns-Push-Type", "voip")
		h.Set("Apns-Expiration", "0")
	default:
		h.Set("Apns-Topic", p.topic)
		h.Set("Apns-Push-Type", "alert")
	}
	if !n.Expiration.IsZero() {
		h.Set("Apns-Expiration", strconv.FormatInt(n.Expiration.Unix(), 10))
	}
	for retried := false; ; retried = true {
		jwt, err := p.providerToken()
		if err != nil {
			return failed(0, misconfigured, "", errorf("apns", "sign the provider token: %w", err))
		}
		h.Set("Authorization", "bearer "+jwt)
		a, err := p.c.post(ctx, p.c.apns, p.base+"/3/device/"+n.To, h, body)
		if err != nil {
			return transportFailure("apns", err)
		}
		r := p.classify(a)
		if (r.Reason == "ExpiredProviderToken" || r.Reason == "InvalidProviderToken") && !retried {
			p.renew(jwt)
			continue
		}
		return r
	}
}

// apnsPayload is {"aps": {"alert": {"title", "body"}, "sound"}, …n.Data}.
func apnsPayload(n Notification) ([]byte, error) {
	type alert struct {
		Title string `json:"title,omitempty"`
		Body  string `json:"body,omitempty"`
	}
	aps := struct {
		Alert *alert `json:"alert,omitempty"`
		Sound string `json:"sound,omitempty"`
	}{Sound: n.Sound}
	if n.Title != "" || n.Body != "" {
		aps.Alert = &alert{n.Title, n.Body}
	}
	m := make(map[string]any, len(n.Data)+1)
	for k, v := range n.Data {
		m[k] = v
	}
	m["aps"] = aps // Apple's key; custom data cannot replace it
	return json.Marshal(m)
}

// classify reads APNs' answer: 200, or {"reason": "…"}.
func (p *APNs) classify(a *answer) Result {
	if a.status == http.StatusOK {
		return Result{Status: a.status, ProviderMessageID: a.header.Get("Apns-Id")}
	}
	var e struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(a.body, &e)
	o := byStatus(a.status)
	switch {
	case a.status == http.StatusGone: // Unregistered, ExpiredToken
		o = invalidToken
	case e.Reason == "BadDeviceToken" || e.Reason == "DeviceTokenNotForTopic":
		o = invalidToken
	case e.Reason == "BadTopic" || e.Reason == "MissingTopic" || e.Reason == "TopicDisallowed" ||
		e.Reason == "BadCertificate" || e.Reason == "BadCertificateEnvironment":
		o = misconfigured
	}
	r := failed(a.status, o, e.Reason, errorf("apns", "%d %s", a.status, clip(e.Reason)))
	if o == retryable {
		r.RetryAfter = retryAfter(a.header, p.c.now())
	}
	return r
}

// providerToken is the JWT in use, or a new one when it is apnsTokenReuse old.
func (p *APNs) providerToken() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.c.now()
	if p.jwt != "" && now.Sub(p.issued) < apnsTokenReuse && !now.Before(p.issued) {
		return p.jwt, nil
	}
	jwt, err := signES256(p.key, jwtHeader{Kid: p.keyID}, struct {
		Iss string `json:"iss"`
		Iat int64  `json:"iat"`
	}{p.teamID, now.Unix()})
	if err != nil {
		return "", err
	}
	p.jwt, p.issued = jwt, now
	return jwt, nil
}

// renew drops jwt if it is still the one in use: sends that it failed at the same time
// renew it once between them.
func (p *APNs) renew(jwt string) {
	p.mu.Lock()
	if p.jwt == jwt {
		p.jwt = ""
	}
	p.mu.Unlock()
}

func isHex(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
