package sqlstore

import (
	"bytes"
	"slices"

	"github.com/natter-chat/natter/chat"
)

const insertMentionQuery = `INSERT INTO message_mentions (app_id, uid, conversation_id, message_id, pos) VALUES ($1, $2, $3, $4, $5)`

// insertMentions stores whom a new message mentions.
func insertMentions(tx *wtx, m *chat.Message) error {
	for i, e := range m.Mentions {
		if _, err := tx.exec(insertMentionQuery, m.AppID, e.UID, m.ConversationID, m.ID, i); err != nil {
			return err
		}
	}
	return nil
}

// SetMentions replaces whom a message mentions (chat.MessageTx), and the kept mention
// counts with them: the old mentions out, the new in (unread.go).
func (tx txStore) SetMentions(m *chat.Message) error {
	if m.Counts() {
		if err := tx.lockConversationOf(m.AppID, m.ID); err != nil {
			return err
		}
		if _, err := tx.exec(uncountMentionsQuery, m.AppID, m.ID); err != nil {
			return err
		}
	}
	if _, err := tx.exec(`DELETE FROM message_mentions WHERE message_id = $1`, m.ID); err != nil {
		return err
	}
	if err := insertMentions(tx.wtx, m); err != nil {
		return err
	}
	if !m.Counts() {
		return nil
	}
	_, err := tx.exec(countMentionsQuery, m.AppID, m.ID)
	return err
}

// loadMentions sets the mentioned users of ms (one query), in the order their texts name
// them, and MentionedMe for viewer. Only a message whose text can hold a mention
// (mayMention) is looked up, so a page without any costs no query.
func loadMentions(run runner, appID, viewer string, ms []chat.Message) error {
	var ids []any
	for i := range ms {
		ms[i].Mentions = nil
		if ms[i].Category != chat.CategoryAction && mayMention(ms[i].Data) {
			ids = append(ids, ms[i].ID)
		}
	}
	if len(ids) == 0 {
		for i := range ms {
			markMentioned(&ms[i], viewer)
		}
		return nil
	}
	type mention struct {
		pos int64
		e   chat.Entity
	}
	byMessage := map[int64][]mention{}
	err := each(run.rows(`SELECT mm.message_id, mm.pos, `+prefixed("u.", userColumns)+` FROM message_mentions mm`+run.store().dialect.mentionsByMessage+`
		JOIN users u ON u.app_id = mm.app_id AND u.uid = mm.uid
		WHERE mm.app_id = $1 AND mm.message_id IN (`+placeholders(2, len(ids))+`)`, append([]any{appID}, ids...)...),
		func(s scanner) error {
			var id, pos int64
			u, err := scanUser(prefix{s, []any{&id, &pos}}, appID)
			byMessage[id] = append(byMessage[id], mention{pos, u.Entity()})
			return err
		})
	if err != nil {
		return err
	}
	for i := range ms {
		list := byMessage[ms[i].ID]
		slices.SortFunc(list, func(a, b mention) int { return int(a.pos - b.pos) })
		ms[i].Mentions = nil
		for _, mn := range list {
			ms[i].Mentions = append(ms[i].Mentions, mn.e)
		}
		markMentioned(&ms[i], viewer)
	}
	return nil
}

// mayMention reports whether stored data can hold a mention: "<@uid:" as is, or written with
// JSON's \u escapes, which the stored text keeps as sent.
func mayMention(data []byte) bool {
	return bytes.Contains(data, []byte("<@uid:")) || bytes.Contains(data, []byte(`\u`))
}

// markMentioned sets MentionedMe for viewer.
func markMentioned(m *chat.Message, viewer string) { m.MarkMentioned(viewer) }
