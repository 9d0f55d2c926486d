package console

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// deliveryStates are the delivery log's states, as the service names them.
var deliveryStates = map[int]string{chat.DeliveryPending: "pending", chat.DeliveryDelivered: "delivered", chat.DeliveryDead: "dead"}

type webhooksData struct {
	Webhooks []chat.Webhook
	Triggers []string // the triggers natter emits, offered on create
}

func (c *Console) webhooks(w http.ResponseWriter, r *http.Request, q *request) error {
	hooks, err := c.svc.Webhooks().List(r.Context(), q.p)
	if err != nil {
		return err
	}
	c.show(w, r, q, "webhooks", q.page("Webhooks", "webhooks", webhooksData{Webhooks: hooks, Triggers: chat.EmittedTriggers}))
	return nil
}

// createWebhook shows the new webhook with its signing secret, once.
func (c *Console) createWebhook(w http.ResponseWriter, r *http.Request, q *request) error {
	if err := r.ParseForm(); err != nil {
		return chat.InvalidField("form", "The form could not be read.")
	}
	enabled := r.PostForm.Get("enabled") == "1"
	wh, err := c.svc.Webhooks().CreateWebhook(r.Context(), q.p, chat.WebhookCreate{ID: r.PostForm.Get("id"), URL: r.PostForm.Get("url"),
		Enabled: &enabled, Triggers: r.PostForm["triggers"]})
	if err != nil {
		if q.retry(err, r) {
			return c.webhooks(w, r, q)
		}
		return err
	}
	return c.renderWebhook(w, r, q, wh.ID, wh.SigningSecret, "")
}

type webhookData struct {
	Webhook    chat.Webhook
	NewSecret  string
	State      string
	Deliveries []deliveryRow
}

type deliveryRow struct {
	chat.Delivery
	Event, State string
}

func (c *Console) webhook(w http.ResponseWriter, r *http.Request, q *request) error {
	return c.renderWebhook(w, r, q, r.PathValue("id"), "", "")
}

func (c *Console) renderWebhook(w http.ResponseWriter, r *http.Request, q *request, id, secret, notice string) error {
	wh, err := c.svc.Webhooks().Webhook(r.Context(), q.p, id)
	if err != nil {
		return err
	}
	d := webhookData{Webhook: wh, NewSecret: secret, State: r.URL.Query().Get("state")}
	ds, err := c.svc.Webhooks().WebhookDeliveries(r.Context(), q.p, wh.ID, chat.DeliveryPage{State: d.State, Limit: 50})
	if err != nil {
		return err
	}
	for _, x := range ds {
		d.Deliveries = append(d.Deliveries, deliveryRow{Delivery: x, Event: chat.EventID(x.EventID), State: deliveryStates[x.State]})
	}
	pg := q.page("Webhook "+wh.ID, "webhooks", d)
	pg.Notice = notice
	c.show(w, r, q, "webhook", pg)
	return nil
}

// rotateSecret shows the new secret once; the old one keeps signing for a day, as the API's
// default.
func (c *Console) rotateSecret(w http.ResponseWriter, r *http.Request, q *request) error {
	wh, err := c.svc.Webhooks().RotateWebhookSecret(r.Context(), q.p, r.PathValue("id"), nil)
	if err != nil {
		return err
	}
	return c.renderWebhook(w, r, q, wh.ID, wh.SigningSecret, "The previous secret keeps signing for 24 hours.")
}

func (c *Console) replay(w http.ResponseWriter, r *http.Request, q *request) error {
	n, err := c.svc.Webhooks().ReplayWebhook(r.Context(), q.p, r.PathValue("id"), r.PostFormValue("event"), 0, 0)
	if err != nil {
		return err
	}
	msg := "Scheduled 1 delivery again."
	if n != 1 {
		msg = "Scheduled " + strconv.Itoa(n) + " deliveries again."
	}
	return c.renderWebhook(w, r, q, r.PathValue("id"), "", msg)
}

func (c *Console) deleteWebhook(w http.ResponseWriter, r *http.Request, q *request) error {
	if err := c.svc.Webhooks().DeleteWebhook(r.Context(), q.p, r.PathValue("id")); err != nil {
		return err
	}
	c.redirect(w, r, Prefix+"/webhooks")
	return nil
}

// deadDeliveries counts the dead-lettered deliveries in the app's delivery logs, up to
// limit per webhook (the log keeps them for --webhook-retention).
func (c *Console) deadDeliveries(r *http.Request, q *request, limit int) (n int, more bool, err error) {
	hooks, err := c.svc.Webhooks().List(r.Context(), q.p)
	if err != nil {
		return 0, false, err
	}
	for _, wh := range hooks {
		ds, err := c.svc.Webhooks().WebhookDeliveries(r.Context(), q.p, wh.ID, chat.DeliveryPage{State: "dead", Limit: limit})
		if err != nil {
			return 0, false, err
		}
		n += len(ds)
		more = more || len(ds) == limit
	}
	return n, more, nil
}
