package console

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// moderationShown is how many entries of each review queue the page shows: the newest.
const moderationShown = chat.MaxModerationPage

// blockedPages bounds the pages of the held-message list one view reads looking for
// pending entries among reviewed ones.
const blockedPages = 10

type moderationData struct {
	Blocked     []blockedRow
	MoreBlocked bool // the page stopped before the list's end: older pending ones may exist
	Flagged     []flaggedRow
	MoreFlagged bool
	Rules       []chat.ModRule
	Lists       []chat.KeywordList
	Reasons     []chat.Reason
}

type blockedRow struct {
	chat.BlockedMessage
	Ref, Text string
}

type flaggedRow struct {
	chat.Flagged
	Ref, Text string
}

// moderation shows the review queues (held messages and flagged messages waiting for a
// decision, newest first) and, read-only, the rules, keyword lists and reasons.
func (c *Console) moderation(w http.ResponseWriter, r *http.Request, q *request) error {
	ctx := r.Context()
	var d moderationData
	// The service's list holds reviewed entries too: read pages of it, newest first, until
	// a page's worth of pending ones, the end, or blockedPages pages.
	var before int64
	for range blockedPages {
		bs, err := c.svc.Moderation().BlockedMessages(ctx, q.p, before, chat.MaxModerationPage)
		if err != nil {
			return err
		}
		for _, b := range bs {
			if b.Status == chat.ModPending && len(d.Blocked) < moderationShown {
				d.Blocked = append(d.Blocked, blockedRow{BlockedMessage: b, Ref: strconv.FormatInt(b.MessageID, 10), Text: messageText(b.Message)})
			}
		}
		d.MoreBlocked = len(bs) == chat.MaxModerationPage
		if !d.MoreBlocked || len(d.Blocked) == moderationShown {
			break
		}
		before = bs[len(bs)-1].MessageID
	}
	fs, err := c.svc.Moderation().FlaggedMessages(ctx, q.p, false, 0, moderationShown)
	if err != nil {
		return err
	}
	d.MoreFlagged = len(fs) == moderationShown
	for _, f := range fs {
		row := flaggedRow{Flagged: f, Ref: strconv.FormatInt(f.MessageID, 10), Text: "(deleted for good)"}
		if f.Message != nil {
			row.Text = messageText(*f.Message)
		}
		d.Flagged = append(d.Flagged, row)
	}
	if d.Rules, err = c.svc.Moderation().ModRules(ctx, q.p); err != nil {
		return err
	}
	if d.Lists, err = c.svc.Moderation().KeywordLists(ctx, q.p); err != nil {
		return err
	}
	if d.Reasons, err = c.svc.Moderation().Reasons(ctx, q.p); err != nil {
		return err
	}
	c.show(w, r, q, "moderation", q.page("Moderation", "moderation", d))
	return nil
}

// reviewBlocked approves (the message is sent then) or rejects (never sent) a held message,
// through the service method PATCH /moderation/blocked-messages/{id} calls. A refusal (an
// entry reviewed already, or none) shows the page again with the service's message.
func (c *Console) reviewBlocked(w http.ResponseWriter, r *http.Request, q *request) error {
	_, err := c.svc.Moderation().ReviewBlocked(r.Context(), q.p, r.PathValue("id"), r.PostFormValue("status"))
	if err != nil {
		if q.retry(err, r) {
			return c.moderation(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/moderation")
	return nil
}

// reviewFlagged approves (the message stays) or disapproves (it is deleted for everyone) a
// flagged message, as PATCH /moderation/flagged-messages/{id} does.
func (c *Console) reviewFlagged(w http.ResponseWriter, r *http.Request, q *request) error {
	if err := c.svc.Moderation().ReviewFlagged(r.Context(), q.p, r.PathValue("id"), r.PostFormValue("status")); err != nil {
		if q.retry(err, r) {
			return c.moderation(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/moderation")
	return nil
}
