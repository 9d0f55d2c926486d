package notify

import (
	"cmp"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// FCM scope, grant and token lifetime.
const (
	fcmScope        = "https://www.googleapis.com/auth/firebase.messaging"
	jwtBearerGrant  = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	fcmAssertionTTL = time.Hour       // Google's maximum
	fcmTokenMargin  = 5 * time.Minute // an access token is replaced this long before it expires
)

// FCMConfig is an app's Firebase settings.
type FCMConfig struct {
	// ServiceAccount is the service account's JSON key file, as the Firebase console gives it:
	// client_email, private_key (PEM, PKCS#8), private_key_id and project_id are used.
	ServiceAccount []byte
	ProjectID      string // overrides the file's project_id
}

// FCM sends through Firebase Cloud Messaging's HTTP v1 API with a service account's OAuth2
// access token, which it keeps until shortly before it expires: one exchange serves every
// send in the meantime, however many run at once.
type FCM struct {
	c       *Client
	email   string
	keyID   string
	project string
	key     *rsa.PrivateKey

	exchange  chan struct{} // one token exchange at a time
	mu        sync.Mutex    // guards the fields below
	token     string
	expires   time.Time // when token is to be replaced, a margin before its real expiry
	exchanges uint64    // exchanges begun
	lastFail  *Result   // how the last exchange failed, if it did
}

// NewFCM returns the FCM sender of an app's service account.
func (c *Client) NewFCM(cfg FCMConfig) (*FCM, error) {
	var sa struct {
		Type         string `json:"type"`
		ProjectID    string `json:"project_id"`
		PrivateKeyID string `json:"private_key_id"`
		PrivateKey   string `json:"private_key"`
		ClientEmail  string `json:"client_email"`
	}
	if err := json.Unmarshal(cfg.ServiceAccount, &sa); err != nil {
		return nil, errors.New("fcm: the service account is not a JSON key file")
	}
	if sa.Type != "" && sa.Type != "service_account" {
		return nil, fmt.Errorf("fcm: the key file is of type %q, not service_account", clip(sa.Type))
	}
	if sa.ClientEmail == "" || sa.PrivateKey == "" {
		return nil, errors.New("fcm: the service account has no client_email or private_key")
	}
	key, err := parseRSAKey([]byte(sa.PrivateKey))
	if err != nil {
		return nil, fmt.Errorf("fcm: service account: %w", err)
	}
	project := cmp.Or(cfg.ProjectID, sa.ProjectID)
	if project == "" {
		return nil, errors.New("fcm: no project id: the service account has none and none was given")
	}
	return &FCM{c: c, email: sa.ClientEmail, keyID: sa.PrivateKeyID, project: project, key: key,
		exchange: make(chan struct{}, 1)}, nil
}

type fcmRequest struct {
	Message fcmMessage `json:"message"`
}

type fcmMessage struct {
	Token        string            `json:"token"`
	Notification *fcmNotification  `json:"notification,omitempty"`
	Data         map[string]string `json:"data,omitempty"`
	Android      *fcmAndroid       `json:"android,omitempty"`
	APNs         *fcmAPNs          `json:"apns,omitempty"`
}

type fcmNotification struct {
	Title string `json:"title,omitempty"`
	Body  string `json:"body,omitempty"`
}

// The platform sub-objects carry the sound only: FCM has no cross-platform sound field.
type fcmAndroid struct {
	Notification struct {
		Sound string `json:"sound"`
	} `json:"notification"`
}

type fcmAPNs struct {
	Payload struct {
		APS struct {
			Sound string `json:"sound"`
		} `json:"aps"`
	} `json:"payload"`
}

// Send posts the notification to n.To, a registration token. A token with no title and
// body makes a data-only message.
func (f *FCM) Send(ctx context.Context, n Notification) Result { return timed(ctx, n, f.send) }

func (f *FCM) send(ctx context.Context, n Notification) Result {
	if n.To == "" {
		return failed(0, permanent, "", errors.New("fcm: no registration token"))
	}
	m := fcmMessage{Token: n.To, Data: n.Data}
	if n.Title != "" || n.Body != "" {
		m.Notification = &fcmNotification{Title: n.Title, Body: n.Body}
	}
	if n.Sound != "" {
		m.Android, m.APNs = new(fcmAndroid), new(fcmAPNs)
		m.Android.Notification.Sound = n.Sound
		m.APNs.Payload.APS.Sound = n.Sound
	}
	body, err := json.Marshal(fcmRequest{m})
	if err != nil {
		return failed(0, permanent, "", errorf("fcm", "encode: %w", err))
	}
	sendURL := f.c.cfg.Endpoints.FCM + "/v1/projects/" + url.PathEscape(f.project) + "/messages:send"
	for retried := false; ; retried = true {
		token, res := f.accessToken(ctx)
		if token == "" {
			return res
		}
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}
		a, err := f.c.post(ctx, f.c.public, sendURL, h, body)
		if err != nil {
			return transportFailure("fcm", err)
		}
		r := f.classify(a)
		// A refused access token may have been revoked or have expired early: one more try
		// with a new one, then it is the configuration. THIRD_PARTY_AUTH_ERROR is 401 too,
		// but about the app's APNs or web push credentials in Firebase: no new token helps.
		if a.status == http.StatusUnauthorized && r.Reason != "THIRD_PARTY_AUTH_ERROR" && !retried {
			f.forget(token)
			continue
		}
		return r
	}
}

// classify reads messages:send's answer.
func (f *FCM) classify(a *answer) Result {
	if a.status == http.StatusOK {
		var ok struct {
			Name string `json:"name"`
		}
		json.Unmarshal(a.body, &ok)
		return Result{Status: a.status, ProviderMessageID: ok.Name}
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
			Details []struct {
				Type            string `json:"@type"`
				ErrorCode       string `json:"errorCode"`
				FieldViolations []struct {
					Field string `json:"field"`
				} `json:"fieldViolations"`
			} `json:"details"`
		} `json:"error"`
	}
	json.Unmarshal(a.body, &e)
	reason := e.Error.Status
	aboutToken := strings.Contains(strings.ToLower(e.Error.Message), "registration token")
	for _, d := range e.Error.Details {
		if d.ErrorCode != "" {
			reason = d.ErrorCode // the FcmError's code is the precise one
		}
		for _, v := range d.FieldViolations {
			aboutToken = aboutToken || v.Field == "message.token"
		}
	}
	o := byStatus(a.status)
	switch {
	case reason == "UNREGISTERED":
		o = invalidToken
	case a.status == http.StatusBadRequest && reason == "INVALID_ARGUMENT" && aboutToken:
		o = invalidToken
	}
	r := failed(a.status, o, reason, errorf("fcm", "%d %s: %s", a.status, reason, clip(e.Error.Message)))
	if o == retryable {
		r.RetryAfter = retryAfter(a.header, f.c.now())
	}
	return r
}
