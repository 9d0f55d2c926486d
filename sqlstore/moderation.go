package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// Moderation (chat.ModerationStore, chat.ModerationTx): reasons, keyword lists, rules with
// their revisions, flags and the messages rules held. JSON columns hold conditions, actions,
// terms and held messages.

func mustJSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ModerationVersion reads the app's moderation version.
func (db *DB) ModerationVersion(ctx context.Context, appID string) (int64, error) {
	var v int64
	err := db.read(ctx).row(`SELECT COALESCE((SELECT version FROM moderation_state WHERE app_id = $1), 0)`, appID).Scan(&v)
	return v, mapErr(err)
}

// BumpModeration moves the app's version on.
func (tx txStore) BumpModeration(appID string) error {
	_, err := tx.exec(`INSERT INTO moderation_state (app_id, version) VALUES ($1, 1)
		ON CONFLICT (app_id) DO UPDATE SET version = moderation_state.version + 1`, appID)
	return mapErr(err)
}

const reasonColumns = `id, name, description, created_at, updated_at`

func scanReason(s scanner) (chat.Reason, error) {
	var r chat.Reason
	err := s.Scan(&r.ID, &r.Name, &r.Description, &r.CreatedAt, &r.UpdatedAt)
	return r, mapErr(err)
}

// Reasons lists the app's own reasons by id.
func (db *DB) Reasons(ctx context.Context, appID string) ([]chat.Reason, error) {
	return collect(db.read(ctx).rows(`SELECT `+reasonColumns+` FROM moderation_reasons WHERE app_id = $1 ORDER BY id`, appID), scanReason)
}

// Reason reads one of the app's own reasons.
func (db *DB) Reason(ctx context.Context, appID, id string) (chat.Reason, error) {
	return scanReason(db.read(ctx).row(`SELECT `+reasonColumns+` FROM moderation_reasons WHERE app_id = $1 AND id = $2`, appID, id))
}

func (tx txStore) CountReasons(appID string) (int, error) {
	return tx.count(`SELECT COUNT(*) FROM moderation_reasons WHERE app_id = $1`, appID)
}

func (tx txStore) count(query string, args ...any) (int, error) {
	var n int
	err := tx.row(query, args...).Scan(&n)
	return n, mapErr(err)
}

func (tx txStore) InsertReason(appID string, r chat.Reason) error {
	_, err := tx.exec(`INSERT INTO moderation_reasons (app_id, `+reasonColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		appID, r.ID, r.Name, r.Description, r.CreatedAt, r.UpdatedAt)
	return mapErr(err)
}

func (tx txStore) UpdateReason(appID string, r chat.Reason) error {
	res, err := tx.exec(`UPDATE moderation_reasons SET name = $1, description = $2, updated_at = $3 WHERE app_id = $4 AND id = $5`,
		r.Name, r.Description, r.UpdatedAt, appID, r.ID)
	return affected(res, err)
}

func (tx txStore) DeleteReason(appID, id string) error {
	res, err := tx.exec(`DELETE FROM moderation_reasons WHERE app_id = $1 AND id = $2`, appID, id)
	return affected(res, err)
}

func (tx txStore) ReasonExists(appID, id string) (bool, error) {
	n, err := tx.count(`SELECT COUNT(*) FROM moderation_reasons WHERE app_id = $1 AND id = $2`, appID, id)
	return n > 0, err
}

const ruleColumns = `id, name, description, enabled, conditions, action, revision, created_at, updated_at, filters`

func scanRule(appID string, active bool) func(scanner) (chat.ModRule, error) {
	return func(s scanner) (chat.ModRule, error) {
		r := chat.ModRule{AppID: appID, Active: active}
		var enabled int64
		var conds, action, filters string
		if err := s.Scan(&r.ID, &r.Name, &r.Description, &enabled, &conds, &action, &r.Revision, &r.CreatedAt, &r.UpdatedAt, &filters); err != nil {
			return r, mapErr(err)
		}
		r.Enabled = enabled == 1
		if filters != "" && filters != "[]" && filters != "null" {
			if err := json.Unmarshal([]byte(filters), &r.Filters); err != nil {
				return r, err
			}
		}
		if err := json.Unmarshal([]byte(conds), &r.Conditions); err != nil {
			return r, err
		}
		return r, json.Unmarshal([]byte(action), &r.Action)
	}
}

// ModRules lists the current revisions of the app's rules by id.
func (db *DB) ModRules(ctx context.Context, appID string) ([]chat.ModRule, error) {
	rs, err := collect(db.read(ctx).rows(`SELECT `+ruleColumns+` FROM moderation_rules WHERE app_id = $1 ORDER BY id`, appID), scanRule(appID, true))
	if rs == nil {
		rs = []chat.ModRule{}
	}
	return rs, err
}

// ModRule reads a rule's current revision.
func (db *DB) ModRule(ctx context.Context, appID, id string) (chat.ModRule, error) {
	return scanRule(appID, true)(db.read(ctx).row(`SELECT `+ruleColumns+` FROM moderation_rules WHERE app_id = $1 AND id = $2`, appID, id))
}

// RuleRevisions lists a rule's revisions, newest first.
func (db *DB) RuleRevisions(ctx context.Context, appID, id string) ([]chat.ModRule, error) {
	cur, err := db.ModRule(ctx, appID, id)
	if err != nil {
		return nil, err
	}
	rs, err := collect(db.read(ctx).rows(`SELECT rule_id, name, description, enabled, conditions, action, revision, created_at, updated_at, filters
		FROM moderation_rule_revisions WHERE app_id = $1 AND rule_id = $2 ORDER BY revision DESC`, appID, id), scanRule(appID, false))
	for i := range rs {
		rs[i].Active = rs[i].Revision == cur.Revision
	}
	return rs, err
}

func (tx txStore) CountRules(appID string) (int, error) {
	return tx.count(`SELECT COUNT(*) FROM moderation_rules WHERE app_id = $1`, appID)
}

func (tx txStore) LockRule(appID, id string) (chat.ModRule, error) {
	return scanRule(appID, true)(tx.row(`SELECT `+ruleColumns+` FROM moderation_rules WHERE app_id = $1 AND id = $2`+tx.db.dialect.forUpdate, appID, id))
}

// SaveRule writes the rule's current revision, records the revision and the lists it names.
func (tx txStore) SaveRule(r chat.ModRule) error {
	filters := []chat.RuleFilter{}
	if r.Filters != nil {
		filters = r.Filters
	}
	args := []any{r.AppID, r.ID, r.Name, r.Description, b2i(r.Enabled), mustJSONText(r.Conditions), mustJSONText(r.Action), r.Revision, r.CreatedAt, r.UpdatedAt,
		mustJSONText(filters)}
	if r.Revision == 1 {
		if _, err := tx.exec(`INSERT INTO moderation_rules (app_id, `+ruleColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, args...); err != nil {
			return mapErr(err)
		}
	} else {
		if _, err := tx.exec(`UPDATE moderation_rules SET name = $3, description = $4, enabled = $5, conditions = $6, action = $7,
			revision = $8, created_at = $9, updated_at = $10, filters = $11 WHERE app_id = $1 AND id = $2`, args...); err != nil {
			return mapErr(err)
		}
		if _, err := tx.exec(`DELETE FROM moderation_rule_lists WHERE app_id = $1 AND rule_id = $2`, r.AppID, r.ID); err != nil {
			return mapErr(err)
		}
	}
	if _, err := tx.exec(`INSERT INTO moderation_rule_revisions (app_id, rule_id, name, description, enabled, conditions, action, revision, created_at, updated_at, filters)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, args...); err != nil {
		return mapErr(err)
	}
	for _, l := range r.Lists() {
		if _, err := tx.exec(`INSERT INTO moderation_rule_lists (app_id, rule_id, list_id) VALUES ($1, $2, $3)`, r.AppID, r.ID, l); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

func (tx txStore) DeleteRule(appID, id string) error {
	for _, q := range []string{`DELETE FROM moderation_rule_lists WHERE app_id = $1 AND rule_id = $2`,
		`DELETE FROM moderation_rule_revisions WHERE app_id = $1 AND rule_id = $2`} {
		if _, err := tx.exec(q, appID, id); err != nil {
			return mapErr(err)
		}
	}
	res, err := tx.exec(`DELETE FROM moderation_rules WHERE app_id = $1 AND id = $2`, appID, id)
	return affected(res, err)
}

func (tx txStore) MissingLists(appID string, ids []string) ([]string, error) {
	// Each list found is held until the transaction ends, as DeleteKeywordList holds it
	// before counting its rules: a rule saved and its list deleted at once cannot both win.
	var missing []string
	for _, id := range ids {
		_, err := tx.LockKeywordList(appID, id)
		if errors.Is(err, chat.ErrNotFound) {
			missing = append(missing, id)
		} else if err != nil {
			return nil, err
		}
	}
	return missing, nil
}

const listColumns = `id, name, description, category, is_csv, revision, created_at, updated_at`

func scanList(appID string, terms bool) func(scanner) (chat.KeywordList, error) {
	return func(s scanner) (chat.KeywordList, error) {
		l := chat.KeywordList{AppID: appID}
		var csv int64
		var ts string
		dest := []any{&l.ID, &l.Name, &l.Description, &l.Category, &csv, &l.Revision, &l.CreatedAt, &l.UpdatedAt}
		if terms {
			dest = append(dest, &ts)
		}
		if err := s.Scan(dest...); err != nil {
			return l, mapErr(err)
		}
		l.IsCSV = csv == 1
		if terms {
			return l, json.Unmarshal([]byte(ts), &l.Terms)
		}
		return l, nil
	}
}

// KeywordLists lists the app's keyword lists by id.
func (db *DB) KeywordLists(ctx context.Context, appID string, terms bool) ([]chat.KeywordList, error) {
	cols := listColumns
	if terms {
		cols += `, terms`
	}
	ls, err := collect(db.read(ctx).rows(`SELECT `+cols+` FROM moderation_keyword_lists WHERE app_id = $1 ORDER BY id`, appID), scanList(appID, terms))
	if ls == nil {
		ls = []chat.KeywordList{}
	}
	return ls, err
}

// KeywordList reads one keyword list with its terms.
func (db *DB) KeywordList(ctx context.Context, appID, id string) (chat.KeywordList, error) {
	return scanList(appID, true)(db.read(ctx).row(`SELECT `+listColumns+`, terms FROM moderation_keyword_lists WHERE app_id = $1 AND id = $2`, appID, id))
}

func (tx txStore) CountKeywordLists(appID string) (int, error) {
	return tx.count(`SELECT COUNT(*) FROM moderation_keyword_lists WHERE app_id = $1`, appID)
}

func (tx txStore) LockKeywordList(appID, id string) (chat.KeywordList, error) {
	return scanList(appID, false)(tx.row(`SELECT `+listColumns+` FROM moderation_keyword_lists WHERE app_id = $1 AND id = $2`+tx.db.dialect.forUpdate, appID, id))
}

func (tx txStore) SaveKeywordList(l chat.KeywordList) error {
	args := []any{l.AppID, l.ID, l.Name, l.Description, l.Category, b2i(l.IsCSV), l.Revision, l.CreatedAt, l.UpdatedAt, mustJSONText(l.Terms)}
	if l.Revision == 1 {
		_, err := tx.exec(`INSERT INTO moderation_keyword_lists (app_id, `+listColumns+`, terms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, args...)
		return mapErr(err)
	}
	res, err := tx.exec(`UPDATE moderation_keyword_lists SET name = $3, description = $4, category = $5, is_csv = $6, revision = $7,
		created_at = $8, updated_at = $9, terms = $10 WHERE app_id = $1 AND id = $2`, args...)
	return affected(res, err)
}

// DeleteKeywordList deletes a list no rule names; chat.ErrLimitReached when one does.
func (tx txStore) DeleteKeywordList(appID, id string) error {
	if _, err := tx.LockKeywordList(appID, id); err != nil {
		return err
	}
	n, err := tx.count(`SELECT COUNT(*) FROM moderation_rule_lists WHERE app_id = $1 AND list_id = $2`, appID, id)
	if err != nil {
		return err
	}
	if n > 0 {
		return chat.ErrLimitReached
	}
	res, err := tx.exec(`DELETE FROM moderation_keyword_lists WHERE app_id = $1 AND id = $2`, appID, id)
	return affected(res, err)
}

// InsertFlag records a flag, marking the message flagged when it is not.
func (tx txStore) InsertFlag(appID string, messageID int64, f chat.Flag) error {
	if _, err := tx.exec(`INSERT INTO moderation_flagged (app_id, message_id, status, created_at) VALUES ($1, $2, 'pending', $3)
		ON CONFLICT (app_id, message_id) DO NOTHING`, appID, messageID, f.CreatedAt); err != nil {
		return mapErr(err)
	}
	_, err := tx.exec(`INSERT INTO moderation_flags (app_id, message_id, uid, reason_id, remark, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		appID, messageID, f.UID, f.ReasonID, f.Remark, f.CreatedAt)
	return mapErr(err)
}

func (tx txStore) LockFlagged(appID string, messageID int64) (string, error) {
	var st string
	err := tx.row(`SELECT status FROM moderation_flagged WHERE app_id = $1 AND message_id = $2`+tx.db.dialect.forUpdate, appID, messageID).Scan(&st)
	return st, mapErr(err)
}

func (tx txStore) SetFlaggedStatus(appID string, messageID int64, status string, at int64) error {
	res, err := tx.exec(`UPDATE moderation_flagged SET status = $1, reviewed_at = $2 WHERE app_id = $3 AND message_id = $4`, status, at, appID, messageID)
	return affected(res, err)
}

// FlaggedMessages lists flagged messages, pending or reviewed, newest message first, with
// their flags.
func (db *DB) FlaggedMessages(ctx context.Context, appID string, reviewed bool, before int64, limit int) ([]chat.Flagged, error) {
	op := `=`
	if reviewed {
		op = `<>`
	}
	if before <= 0 {
		before = 1 << 62
	}
	run := db.read(ctx)
	fs, err := collect(run.rows(`SELECT message_id, status, created_at, reviewed_at FROM moderation_flagged
		WHERE app_id = $1 AND status `+op+` 'pending' AND message_id < $2 ORDER BY message_id DESC LIMIT $3`, appID, before, limit),
		func(s scanner) (chat.Flagged, error) {
			var f chat.Flagged
			err := s.Scan(&f.MessageID, &f.Status, &f.CreatedAt, &f.ReviewedAt)
			return f, mapErr(err)
		})
	if err != nil || len(fs) == 0 {
		return []chat.Flagged{}, err
	}
	idx := map[int64]int{}
	ids := make([]string, len(fs))
	for i, f := range fs {
		idx[f.MessageID] = i
		ids[i] = "$" + itoa(i+2)
	}
	args := []any{appID}
	for _, f := range fs {
		args = append(args, f.MessageID)
	}
	type row struct {
		mid int64
		f   chat.Flag
	}
	rows, err := collect(run.rows(`SELECT message_id, uid, reason_id, remark, created_at FROM moderation_flags
		WHERE app_id = $1 AND message_id IN (`+strings.Join(ids, ", ")+`) ORDER BY created_at, uid`, args...),
		func(s scanner) (row, error) {
			var r row
			err := s.Scan(&r.mid, &r.f.UID, &r.f.ReasonID, &r.f.Remark, &r.f.CreatedAt)
			return r, mapErr(err)
		})
	for _, r := range rows {
		fs[idx[r.mid]].Flags = append(fs[idx[r.mid]].Flags, r.f)
	}
	return fs, err
}

const blockedColumns = `id, rule_id, rule_name, revision, condition, action, message, status, message_id, created_at, updated_at`

func scanBlocked(appID string) func(scanner) (chat.BlockedMessage, error) {
	return func(s scanner) (chat.BlockedMessage, error) {
		b := chat.BlockedMessage{AppID: appID}
		var cond, action, msg string
		if err := s.Scan(&b.ID, &b.RuleID, &b.RuleName, &b.Revision, &cond, &action, &msg, &b.Status, &b.MessageID, &b.CreatedAt, &b.UpdatedAt); err != nil {
			return b, mapErr(err)
		}
		if err := json.Unmarshal([]byte(cond), &b.Condition); err != nil {
			return b, err
		}
		if err := json.Unmarshal([]byte(action), &b.Action); err != nil {
			return b, err
		}
		if err := json.Unmarshal([]byte(msg), &b.Message); err != nil {
			return b, err
		}
		// A held message is known by the id it keeps when approved (migration 0030 gave one to
		// every entry held before ids were reserved).
		b.Message.ID, b.Message.AppID, b.Message.Moderation = b.MessageID, appID, b.Status
		switch b.Status {
		case chat.ModRejected:
			b.Message.Moderation = chat.ModDisapproved
		}
		return b, nil
	}
}

// BlockedMessages lists held messages, newest first: by message id, which is taken when a
// message is held.
func (db *DB) BlockedMessages(ctx context.Context, appID string, before int64, limit int) ([]chat.BlockedMessage, error) {
	if before <= 0 {
		before = 1 << 62
	}
	bs, err := collect(db.read(ctx).rows(`SELECT `+blockedColumns+` FROM moderation_blocked WHERE app_id = $1 AND message_id < $2
		ORDER BY message_id DESC LIMIT $3`, appID, before, limit), scanBlocked(appID))
	if bs == nil {
		bs = []chat.BlockedMessage{}
	}
	return bs, err
}

// BlockedMessage reads one held message.
func (db *DB) BlockedMessage(ctx context.Context, appID string, id int64) (chat.BlockedMessage, error) {
	return scanBlocked(appID)(db.read(ctx).row(`SELECT `+blockedColumns+` FROM moderation_blocked WHERE app_id = $1 AND id = $2`, appID, id))
}

// BlockedByMessage reads the held message with message id messageID.
func (db *DB) BlockedByMessage(ctx context.Context, appID string, messageID int64) (chat.BlockedMessage, error) {
	return scanBlocked(appID)(db.read(ctx).row(`SELECT `+blockedColumns+` FROM moderation_blocked WHERE app_id = $1 AND message_id = $2`,
		appID, messageID))
}

// InsertBlocked stores a held message and sets its ID and its MessageID, the id it takes
// from the messages' sequence now and keeps when approved: the sender's client keys its
// message by that id, which no other message has.
func (tx txStore) InsertBlocked(b *chat.BlockedMessage) error {
	m := b.Message
	m.Moderation = ""
	q := tx.db.dialect.reserveMessageID
	for _, stmt := range q[:len(q)-1] {
		if _, err := tx.exec(stmt); err != nil {
			return err
		}
	}
	if err := tx.row(q[len(q)-1]).Scan(&b.MessageID); err != nil {
		return err
	}
	err := tx.row(`INSERT INTO moderation_blocked (app_id, sender, rule_id, rule_name, revision, condition, action, message, status, message_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
		b.AppID, m.Sender, b.RuleID, b.RuleName, b.Revision, mustJSONText(b.Condition), mustJSONText(b.Action), mustJSONText(m), b.Status,
		b.MessageID, b.CreatedAt, b.UpdatedAt).Scan(&b.ID)
	return mapErr(err)
}

func (tx txStore) LockBlocked(appID string, messageID int64) (chat.BlockedMessage, error) {
	return scanBlocked(appID)(tx.row(`SELECT `+blockedColumns+` FROM moderation_blocked WHERE app_id = $1 AND message_id = $2`+tx.db.dialect.forUpdate,
		appID, messageID))
}

func (tx txStore) SetBlockedStatus(appID string, id int64, status string, messageID, at int64) error {
	res, err := tx.exec(`UPDATE moderation_blocked SET status = $1, message_id = $2, updated_at = $3 WHERE app_id = $4 AND id = $5`,
		status, messageID, at, appID, id)
	return affected(res, err)
}
