package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/natter-chat/natter/chat"
)

// Webhook management (natter's own; docs/webhooks.md). Basic-auth credentials and signing
// secrets are never answered, except a new signing secret once: on create and on rotation.

type webhookJSON struct {
	ID            string              `json:"id"`
	WebhookURL    string              `json:"webhookURL"`
	Enabled       bool                `json:"enabled"`
	UseBasicAuth  bool                `json:"useBasicAuth"`
	Triggers      []string            `json:"triggers"`
	Secrets       []webhookSecretJSON `json:"signingSecrets"`
	SigningSecret string              `json:"signingSecret,omitempty"`
	CreatedAt     int64               `json:"createdAt"`
	UpdatedAt     int64               `json:"updatedAt"`
}

// webhookSecretJSON describes a secret without its value.
type webhookSecretJSON struct {
	ID        string `json:"id"`
	CreatedAt int64  `json:"createdAt"`
	ExpiresAt int64  `json:"expiresAt,omitempty"`
}

func webhookOut(w chat.Webhook, secret string) webhookJSON {
	out := webhookJSON{ID: w.ID, WebhookURL: w.URL, Enabled: w.Enabled, UseBasicAuth: w.UseBasicAuth, Triggers: w.Triggers,
		Secrets: []webhookSecretJSON{}, SigningSecret: secret, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
	if out.Triggers == nil {
		out.Triggers = []string{}
	}
	for _, s := range w.Secrets { // the active ones: the service drops the others
		out.Secrets = append(out.Secrets, webhookSecretJSON{ID: strconv.FormatInt(s.ID, 10), CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt})
	}
	return out
}

type webhookRequest struct {
	ID           *string   `json:"id"`
	WebhookURL   *string   `json:"webhookURL"`
	Enabled      *bool     `json:"enabled"`
	UseBasicAuth *bool     `json:"useBasicAuth"`
	Username     *string   `json:"username"`
	Password     *string   `json:"password"`
	Triggers     *[]string `json:"triggers"`
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req webhookRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	wh, err := s.svc.Webhooks().CreateWebhook(r.Context(), p, chat.WebhookCreate{ID: deref(req.ID), URL: deref(req.WebhookURL), Enabled: req.Enabled,
		UseBasicAuth: deref(req.UseBasicAuth), Username: deref(req.Username), Password: deref(req.Password), Triggers: deref(req.Triggers)})
	if err != nil {
		return err
	}
	writeData(w, r, webhookOut(wh.Webhook, wh.SigningSecret), nil)
	return nil
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	ws, err := s.svc.Webhooks().List(r.Context(), p)
	if err != nil {
		return err
	}
	out := make([]webhookJSON, len(ws))
	for i, wh := range ws {
		out[i] = webhookOut(wh, "")
	}
	writeData(w, r, out, nil)
	return nil
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	wh, err := s.svc.Webhooks().Webhook(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, r, webhookOut(wh, ""), nil)
	return nil
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req webhookRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.ID != nil {
		return chat.InvalidField("id", "The id of a webhook cannot change.")
	}
	wh, err := s.svc.Webhooks().UpdateWebhook(r.Context(), p, r.PathValue("id"), chat.WebhookChange{URL: req.WebhookURL, Enabled: req.Enabled,
		UseBasicAuth: req.UseBasicAuth, Username: req.Username, Password: req.Password, Triggers: req.Triggers})
	if err != nil {
		return err
	}
	writeData(w, r, webhookOut(wh, ""), nil)
	return nil
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	id := r.PathValue("id")
	if err := s.svc.Webhooks().DeleteWebhook(r.Context(), p, id); err != nil {
		return err
	}
	writeData(w, r, success{true, "The webhook " + id + " has been deleted successfully."}, nil)
	return nil
}

// rotateWebhookSecret adds a signing secret, answered this once; the previous ones keep
// signing for previousExpiresIn seconds (a day by default).
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		PreviousExpiresIn *int64 `json:"previousExpiresIn"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &req); err != nil {
			return err
		}
	}
	var keep *time.Duration
	if req.PreviousExpiresIn != nil {
		if *req.PreviousExpiresIn < 0 || *req.PreviousExpiresIn > int64(chat.MaxSecretRotate/time.Second) {
			return chat.InvalidField("previousExpiresIn", "The previousExpiresIn must be between 0 and 604800 seconds.")
		}
		d := time.Duration(*req.PreviousExpiresIn) * time.Second
		keep = &d
	}
	wh, err := s.svc.Webhooks().RotateWebhookSecret(r.Context(), p, r.PathValue("id"), keep)
	if err != nil {
		return err
	}
	writeData(w, r, webhookOut(wh.Webhook, wh.SigningSecret), nil)
	return nil
}

// deliveryJSON is one entry of a webhook's delivery log.
type deliveryJSON struct {
	ID             string `json:"id"`
	EventID        string `json:"eventId"`
	Trigger        string `json:"trigger"`
	ConversationID string `json:"conversationId,omitempty"`
	State          string `json:"state"`
	Attempts       int    `json:"attempts"`
	LastStatus     int    `json:"lastStatus,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	LatencyMS      int64  `json:"latencyMs"`
	CreatedAt      int64  `json:"createdAt"`
	NextAt         int64  `json:"nextAt,omitempty"`
	DoneAt         int64  `json:"doneAt,omitempty"`
}

// listDeliveries answers GET /webhooks/{id}/deliveries: the log, newest first, with
// meta.next's before cursor while more may follow.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := chat.DeliveryPage{State: q.str("state"), Before: q.str("before"), Limit: q.pageSize(25, 1, chat.MaxDeliveryPage)}
	if err := q.err(); err != nil {
		return err
	}
	ds, err := s.svc.Webhooks().WebhookDeliveries(r.Context(), p, r.PathValue("id"), page)
	if err != nil {
		return err
	}
	out := make([]deliveryJSON, len(ds))
	for i, d := range ds {
		out[i] = deliveryJSON{ID: strconv.FormatInt(d.ID, 10), EventID: "evt_" + strconv.FormatInt(d.EventID, 10), Trigger: d.Trigger,
			ConversationID: d.ConversationID, State: chat.DeliveryStateName(d.State), Attempts: d.Attempts, LastStatus: d.LastStatus,
			LastError: d.LastError, LatencyMS: d.LatencyMS, CreatedAt: d.CreatedAt, DoneAt: d.DoneAt}
		if d.State == chat.DeliveryPending {
			out[i].NextAt = d.NextAt
		}
	}
	meta := map[string]any{"count": len(out)}
	if len(ds) > 0 && len(ds) == page.Limit {
		meta["next"] = map[string]string{"before": out[len(out)-1].ID}
	}
	writeData(w, r, out, meta)
	return nil
}

// replayWebhook answers POST /webhooks/{id}/replay.
func (s *Server) replayWebhook(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		EventID string `json:"eventId"`
		From    int64  `json:"from"`
		To      int64  `json:"to"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	n, err := s.svc.Webhooks().ReplayWebhook(r.Context(), p, r.PathValue("id"), req.EventID, req.From, req.To)
	if err != nil {
		return err
	}
	writeData(w, r, map[string]any{"success": true, "scheduled": n}, nil)
	return nil
}
