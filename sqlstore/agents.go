package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/natter-chat/natter/chat"
)

// AI agents (chat.AgentStore) and their jobs. Jobs are written in the send's transaction
// (insertAgentJob, from the outbox) and leased from their queue (leases.go).

const agentColumns = `app_id, uid, name, icon, is_active, integrate_with, integration_type, url, headers, header_names,
	instruction, metadata, history_length, timeout_seconds, created_at, updated_at`

func agentArgs(a chat.Agent) []any {
	names, _ := json.Marshal(a.HeaderNames)
	if a.HeaderNames == nil {
		names = []byte("[]")
	}
	return []any{a.AppID, a.UID, a.Name, a.Icon, b2i(a.IsActive), a.IntegrateWith, a.IntegrationType, a.URL, a.Headers, string(names),
		a.Instruction, nullJSON(a.Metadata), a.HistoryLength, a.TimeoutSeconds, a.CreatedAt, a.UpdatedAt}
}

func scanAgent(s scanner) (chat.Agent, error) {
	var a chat.Agent
	var active int64
	var names string
	var meta sql.NullString
	err := s.Scan(&a.AppID, &a.UID, &a.Name, &a.Icon, &active, &a.IntegrateWith, &a.IntegrationType, &a.URL, &a.Headers, &names,
		&a.Instruction, &meta, &a.HistoryLength, &a.TimeoutSeconds, &a.CreatedAt, &a.UpdatedAt)
	if err != nil {
		return a, err
	}
	a.IsActive = active == 1
	if meta.Valid {
		a.Metadata = json.RawMessage(meta.String)
	}
	if len(a.Headers) == 0 {
		a.Headers = nil
	}
	return a, json.Unmarshal([]byte(names), &a.HeaderNames)
}

// CreateAgent stores an agent, and its new user first when u is not nil.
func (db *DB) CreateAgent(ctx context.Context, a chat.Agent, u *chat.User) error {
	return db.transact(ctx, func(tx *wtx) error {
		if u != nil {
			if err := insertUser(tx, *u); err != nil {
				return err
			}
		}
		_, err := tx.exec(`INSERT INTO agents (`+agentColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
			agentArgs(a)...)
		return mapErr(err)
	})
}

// Agent reads one agent.
func (db *DB) Agent(ctx context.Context, appID, uid string) (chat.Agent, error) {
	a, err := scanAgent(db.read(ctx).row(`SELECT `+agentColumns+` FROM agents WHERE app_id = $1 AND uid = $2`, appID, uid))
	return a, mapErr(err)
}

// Agents lists an app's agents by uid.
func (db *DB) Agents(ctx context.Context, appID string) ([]chat.Agent, error) {
	as, err := collect(db.read(ctx).rows(`SELECT `+agentColumns+` FROM agents WHERE app_id = $1 ORDER BY uid`, appID), scanAgent)
	return as, mapErr(err)
}

// UpdateAgent writes an agent; one no longer active loses its pending jobs.
func (db *DB) UpdateAgent(ctx context.Context, a chat.Agent) error {
	return db.transact(ctx, func(tx *wtx) error {
		args := agentArgs(a)
		res, err := tx.exec(`UPDATE agents SET name = $3, icon = $4, is_active = $5, integrate_with = $6, integration_type = $7, url = $8,
			headers = $9, header_names = $10, instruction = $11, metadata = $12, history_length = $13, timeout_seconds = $14, updated_at = $15
			WHERE app_id = $1 AND uid = $2`, append(args[:14:14], args[15])...)
		if err := affected(res, err); err != nil {
			return err
		}
		if a.IsActive {
			return nil
		}
		_, err = tx.exec(`DELETE FROM agent_jobs WHERE app_id = $1 AND agent_uid = $2`, a.AppID, a.UID)
		return err
	})
}

// DeleteAgent deletes an agent and its pending jobs.
func (db *DB) DeleteAgent(ctx context.Context, appID, uid string) error {
	return db.transact(ctx, func(tx *wtx) error {
		if err := affected(tx.exec(`DELETE FROM agents WHERE app_id = $1 AND uid = $2`, appID, uid)); err != nil {
			return err
		}
		_, err := tx.exec(`DELETE FROM agent_jobs WHERE app_id = $1 AND agent_uid = $2`, appID, uid)
		return err
	})
}

// AgentUIDs maps an app's agents to whether each is active.
func (db *DB) AgentUIDs(ctx context.Context, appID string) (map[string]bool, error) {
	out := map[string]bool{}
	err := each(db.read(ctx).rows(`SELECT uid, is_active FROM agents WHERE app_id = $1`, appID), func(s scanner) error {
		var uid string
		var active int64
		if err := s.Scan(&uid, &active); err != nil {
			return err
		}
		out[uid] = active == 1
		return nil
	})
	return out, mapErr(err)
}

// insertAgentJob writes an agent job in the send's transaction.
func insertAgentJob(tx *wtx, ev chat.OutboxEvent) error {
	_, err := tx.exec(`INSERT INTO agent_jobs (app_id, agent_uid, conversation_id, message_id, created_at) VALUES ($1, $2, $3, $4, $5)`,
		ev.AppID, ev.Agent, ev.ConversationID, ev.MessageID, ev.At)
	return err
}

var agentJobs = newQueue(`agent_jobs`, `lease_until < $1`, `id`,
	`id, app_id, agent_uid, conversation_id, message_id, reply_id, created_at, attempts`)

// ClaimAgentJobs leases jobs for a node.
func (db *DB) ClaimAgentJobs(ctx context.Context, l chat.Lease) ([]chat.AgentJob, error) {
	return claim(ctx, db, agentJobs, l, nil, func(s scanner) (chat.AgentJob, error) {
		var j chat.AgentJob
		err := s.Scan(&j.ID, &j.AppID, &j.AgentUID, &j.ConversationID, &j.MessageID, &j.ReplyID, &j.CreatedAt, &j.Attempts)
		return j, err
	})
}

// SetAgentReply records a job's bot message while node holds the job.
func (db *DB) SetAgentReply(ctx context.Context, node string, jobID, replyID int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`UPDATE agent_jobs SET reply_id = $3 WHERE id = $1 AND leased_by = $2`, jobID, node, replyID)
		return err
	})
}

// FinishAgentJob deletes a job while node holds it.
func (db *DB) FinishAgentJob(ctx context.Context, node string, jobID int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		_, err := tx.exec(`DELETE FROM agent_jobs WHERE id = $1 AND leased_by = $2`, jobID, node)
		return err
	})
}

// AgentHistory lists a conversation's latest messages before an id, newest first: the
// top-level ones, or a thread's replies and its parent.
func (db *DB) AgentHistory(ctx context.Context, appID, conversationID string, parentID, before int64, limit int) ([]chat.Message, error) {
	where, args := `parent_id = 0`, []any{appID, conversationID, before, limit}
	if parentID != 0 {
		where, args = `(parent_id = $5 OR id = $5)`, append(args, parentID)
	}
	ms, err := collect(db.read(ctx).rows(`SELECT id, sender, category, type, data, sent_at FROM messages
		WHERE app_id = $1 AND conversation_id = $2 AND id < $3 AND deleted_at = 0 AND category IN ('message', 'custom') AND `+where+`
		ORDER BY id DESC LIMIT $4`, args...), func(s scanner) (chat.Message, error) {
		m := chat.Message{AppID: appID, ConversationID: conversationID}
		var data string
		err := s.Scan(&m.ID, &m.Sender, &m.Category, &m.Type, &data, &m.SentAt)
		m.Data = json.RawMessage(data)
		return m, err
	})
	return ms, mapErr(err)
}
