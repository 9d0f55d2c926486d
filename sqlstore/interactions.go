package sqlstore

import (
	"context"
	"slices"

	"github.com/natter-chat/natter/chat"
)

// Interactions with interactive messages (chat/interactive.go): one row per (message, user,
// element), the first time kept.

const interactionsQuery = `SELECT element_id, interacted_at FROM message_interactions
	WHERE app_id = $1 AND message_id = $2 AND uid = $3 ORDER BY interacted_at, element_id`

// Interactions reads uid's interactions with message id (chat.InteractionStore).
func (db *DB) Interactions(ctx context.Context, appID string, id int64, uid string) ([]chat.Interaction, error) {
	return scanInteractions(db.read(ctx).rows(interactionsQuery, appID, id, uid))
}

// InteractionsForChange reads them inside a write, holding the message (chat.InteractionTx):
// on PostgreSQL two interactions of one user at once would otherwise both see the goal not
// yet complete, and both complete it.
func (tx txStore) InteractionsForChange(appID string, id int64, uid string) ([]chat.Interaction, error) {
	if err := tx.db.eng.lockMessages(tx.wtx, []int64{id}); err != nil {
		return nil, err
	}
	return scanInteractions(tx.rows(interactionsQuery, appID, id, uid))
}

// AddInteractions records them; an element already recorded keeps its time
// (chat.InteractionTx).
func (tx txStore) AddInteractions(appID string, id int64, uid string, elements []string, at int64) error {
	for _, e := range elements {
		if _, err := tx.exec(`INSERT INTO message_interactions (app_id, message_id, uid, element_id, interacted_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (app_id, message_id, uid, element_id) DO NOTHING`, appID, id, uid, e, at); err != nil {
			return err
		}
	}
	return nil
}

// CompleteGoal records a completed goal (chat.InteractionTx); it completes once.
func (tx txStore) CompleteGoal(appID string, id int64, uid string, at int64) error {
	_, err := tx.exec(`INSERT INTO message_goals (app_id, message_id, uid, completed_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (app_id, message_id, uid) DO NOTHING`, appID, id, uid, at)
	return err
}

func scanInteractions(rows results) ([]chat.Interaction, error) {
	out, err := collect(rows, func(s scanner) (chat.Interaction, error) {
		var i chat.Interaction
		err := s.Scan(&i.ElementID, &i.InteractedAt)
		return i, err
	})
	return out, mapErr(err)
}

// pageInteractions sets, on a page's interactive messages, the viewer's interactions: one
// query, and none for a page without an interactive message or without a viewer.
func (db *DB) pageInteractions(run runner, appID, viewer string, ms []chat.Message) error {
	if viewer == "" {
		return nil
	}
	var ids []int64
	for _, m := range ms {
		if m.Category == chat.CategoryInteractive && !slices.Contains(ids, m.ID) {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	by := map[int64][]chat.Interaction{}
	err := each(run.fixedRows(db.dialect.interactionsQuery, appID, viewer, db.dialect.idsArg(ids)), func(s scanner) error {
		var id int64
		var i chat.Interaction
		err := s.Scan(&id, &i.ElementID, &i.InteractedAt)
		by[id] = append(by[id], i)
		return err
	})
	if err != nil {
		return err
	}
	for i := range ms {
		ms[i].Interactions = by[ms[i].ID]
	}
	return nil
}

// pageQuoted sets, on a page's messages that quote one, and on the messages its edit and
// deletion actions are about, the quoted message as chat.QuotedView shows it: the quoted rows
// with their parties in one query, and none for a page that quotes nothing. A quoted message
// is of its quoting one's conversation (chat.Quotable), so a group receiver is the quoting
// message's.
func (db *DB) pageQuoted(run runner, appID string, page []chat.Message) error {
	var ms []*chat.Message
	var ids []int64
	for i := range page {
		for _, m := range []*chat.Message{&page[i], page[i].Target} {
			if m != nil && m.QuotedID != 0 {
				ms = append(ms, m)
				if !slices.Contains(ids, m.QuotedID) {
					ids = append(ids, m.QuotedID)
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	quoted := map[int64]chat.Message{}
	err := each(run.fixedRows(db.dialect.quotedQuery, appID, db.dialect.idsArg(ids)), func(s scanner) error {
		q, _, err := scanMessage(s, appID)
		quoted[q.ID] = q
		return err
	})
	if err != nil {
		return err
	}
	for _, m := range ms {
		q, ok := quoted[m.QuotedID]
		if !ok || q.ConversationID != m.ConversationID { // purged, or never quotable
			continue
		}
		q.ReceiverGroup = m.ReceiverGroup
		m.Quoted = chat.QuotedView(q)
	}
	return nil
}
