package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// FCM's OAuth2 service-account flow (RFC 7523): an RS256 assertion for an access token,
// cached until shortly before it expires.

// accessToken is the cached token, or a new one from the OAuth2 exchange. When there is
// none it returns "" and the failed Result. Sends that wait for an exchange share its
// outcome, a failure too: a slow or failing token endpoint costs one exchange per wave of
// sends, not one per send.
func (f *FCM) accessToken(ctx context.Context) (string, Result) {
	f.mu.Lock()
	t, seen := f.validToken(), f.exchanges
	f.mu.Unlock()
	if t != "" {
		return t, Result{}
	}
	select {
	case f.exchange <- struct{}{}:
		defer func() { <-f.exchange }()
	case <-ctx.Done():
		return "", failed(0, retryable, "", errorf("fcm", "wait for the access token: %w", ctx.Err()))
	}
	f.mu.Lock()
	t, fail := f.validToken(), f.lastFail
	if t == "" && (f.exchanges == seen || fail == nil) {
		f.exchanges++
	} else if t == "" { // an exchange failed while this send waited
		f.mu.Unlock()
		return "", *fail
	}
	f.mu.Unlock()
	if t != "" { // another send exchanged while this one waited
		return t, Result{}
	}

	now := f.c.now()
	t, life, r := f.exchangeToken(ctx, now)
	f.mu.Lock()
	defer f.mu.Unlock()
	if t == "" {
		f.lastFail = &r
		return "", r
	}
	f.token, f.expires, f.lastFail = t, now.Add(life-min(fcmTokenMargin, life/2)), nil
	return t, Result{}
}

// exchangeToken posts a signed assertion for an access token and its lifetime.
func (f *FCM) exchangeToken(ctx context.Context, now time.Time) (string, time.Duration, Result) {
	assertion, err := signRS256(f.key, jwtHeader{Typ: "JWT", Kid: f.keyID}, struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Iat   int64  `json:"iat"`
		Exp   int64  `json:"exp"`
	}{f.email, fcmScope, f.c.cfg.Endpoints.GoogleToken, now.Unix(), now.Add(fcmAssertionTTL).Unix()})
	if err != nil {
		return "", 0, failed(0, misconfigured, "", errorf("fcm", "sign the OAuth2 assertion: %w", err))
	}
	form := url.Values{"grant_type": {jwtBearerGrant}, "assertion": {assertion}}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	a, err := f.c.post(ctx, f.c.public, f.c.cfg.Endpoints.GoogleToken, h, []byte(form.Encode()))
	if err != nil {
		return "", 0, transportFailure("fcm: oauth2 token", err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	json.Unmarshal(a.body, &tok)
	if a.status != http.StatusOK {
		// A refused assertion (invalid_grant, invalid_client…) is the service account's fault.
		o := byStatus(a.status)
		if o == permanent {
			o = misconfigured
		}
		r := failed(a.status, o, tok.Error, errorf("fcm", "oauth2 token: %d %s: %s", a.status, tok.Error, clip(tok.Description)))
		if o == retryable {
			r.RetryAfter = retryAfter(a.header, now)
		}
		return "", 0, r
	}
	if tok.AccessToken == "" || tok.ExpiresIn <= 0 {
		return "", 0, failed(a.status, retryable, "", errors.New("fcm: oauth2 token: the answer has no access_token or expires_in"))
	}
	return tok.AccessToken, time.Duration(tok.ExpiresIn) * time.Second, Result{}
}

// validToken is the cached token while it is good; f.mu held.
func (f *FCM) validToken() string {
	if f.token != "" && f.c.now().Before(f.expires) {
		return f.token
	}
	return ""
}

// forget drops token if it is still the cached one.
func (f *FCM) forget(token string) {
	f.mu.Lock()
	if f.token == token {
		f.token = ""
	}
	f.mu.Unlock()
}
