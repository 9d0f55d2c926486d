package sqlstore

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/natter-chat/natter/chat"
)

const callColumns = `session_id, initiator, receiver, receiver_type, type, mode, status, mid, initiated_at, started_at, ended_at,
	audio_seconds, video_seconds, since, has_transcription, metadata`

const participantColumns = `session_id, uid, state, is_joined, joined_at, left_at, audio_seconds, video_seconds, since`

const transcriptionColumns = `session_id, tid, room_name, mid, start_time, end_time, transcript_url, created_at`

func scanCall(s scanner, appID string) (chat.Call, error) {
	c := chat.Call{AppID: appID}
	var tr int
	var meta string
	err := s.Scan(&c.SessionID, &c.Initiator, &c.Receiver, &c.ReceiverType, &c.Type, &c.Mode, &c.Status, &c.MID,
		&c.InitiatedAt, &c.StartedAt, &c.EndedAt, &c.AudioSeconds, &c.VideoSeconds, &c.Since, &tr, &meta)
	c.HasTranscription = tr != 0
	if meta != "" {
		c.Metadata = json.RawMessage(meta)
	}
	return c, mapErr(err)
}

type sessionParticipant struct {
	session string
	p       chat.CallParticipant
}

func scanParticipant(s scanner) (sessionParticipant, error) {
	var sp sessionParticipant
	var joined int
	err := s.Scan(&sp.session, &sp.p.UID, &sp.p.State, &joined, &sp.p.JoinedAt, &sp.p.LeftAt, &sp.p.AudioSeconds, &sp.p.VideoSeconds, &sp.p.Since)
	sp.p.IsJoined = joined != 0
	return sp, mapErr(err)
}

func scanTranscription(s scanner) (chat.Transcription, error) {
	var t chat.Transcription
	err := s.Scan(&t.SessionID, &t.TID, &t.RoomName, &t.MID, &t.StartTime, &t.EndTime, &t.URL, &t.CreatedAt)
	return t, mapErr(err)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// InsertCall stores a new session and its participants (chat.CallTx).
func (tx txStore) InsertCall(c *chat.Call) error {
	if _, err := tx.exec(`INSERT INTO calls (app_id, `+callColumns+`, participants) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		c.AppID, c.SessionID, c.Initiator, c.Receiver, c.ReceiverType, c.Type, c.Mode, c.Status, c.MID, c.InitiatedAt, c.StartedAt, c.EndedAt,
		c.AudioSeconds, c.VideoSeconds, c.Since, boolInt(c.HasTranscription), string(c.Metadata), c.JoinedCount()); err != nil {
		return mapErr(err)
	}
	for _, p := range c.Participants {
		if err := tx.upsertParticipant(c.AppID, c.SessionID, p); err != nil {
			return err
		}
	}
	return nil
}

func (tx txStore) upsertParticipant(appID, sessionID string, p chat.CallParticipant) error {
	_, err := tx.exec(`INSERT INTO call_participants (app_id, `+participantColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (app_id, session_id, uid) DO UPDATE SET state = excluded.state, is_joined = excluded.is_joined,
		joined_at = excluded.joined_at, left_at = excluded.left_at, audio_seconds = excluded.audio_seconds,
		video_seconds = excluded.video_seconds, since = excluded.since`,
		appID, sessionID, p.UID, p.State, boolInt(p.IsJoined), p.JoinedAt, p.LeftAt, p.AudioSeconds, p.VideoSeconds, p.Since)
	return mapErr(err)
}

// CallForChange holds a session's row and reads it with its participants (chat.CallTx).
func (tx txStore) CallForChange(appID, sessionID string) (chat.Call, error) {
	c, err := scanCall(tx.row(`SELECT `+callColumns+` FROM calls WHERE app_id = $1 AND session_id = $2`+tx.db.dialect.forUpdate, appID, sessionID), appID)
	if err != nil {
		return c, err
	}
	ps, err := collect(tx.rows(`SELECT `+participantColumns+` FROM call_participants WHERE app_id = $1 AND session_id = $2 ORDER BY uid`, appID, sessionID),
		scanParticipant)
	for _, sp := range ps {
		c.Participants = append(c.Participants, sp.p)
	}
	return c, err
}

// UpdateCall writes a session's row and the participants named (chat.CallTx).
func (tx txStore) UpdateCall(c *chat.Call, uids []string) error {
	res, err := tx.exec(`UPDATE calls SET type = $1, status = $2, started_at = $3, ended_at = $4, audio_seconds = $5, video_seconds = $6,
		since = $7, participants = $8 WHERE app_id = $9 AND session_id = $10`,
		c.Type, c.Status, c.StartedAt, c.EndedAt, c.AudioSeconds, c.VideoSeconds, c.Since, c.JoinedCount(), c.AppID, c.SessionID)
	if err := affected(res, err); err != nil {
		return err
	}
	for _, p := range c.Participants {
		for _, u := range uids {
			if u == p.UID {
				if err := tx.upsertParticipant(c.AppID, c.SessionID, p); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// InsertTranscription stores a transcription after the session's others and marks the
// session transcribed (chat.CallTx); the caller holds the session's row.
func (tx txStore) InsertTranscription(appID string, t chat.Transcription) error {
	if _, err := tx.exec(`INSERT INTO call_transcriptions (app_id, `+transcriptionColumns+`, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
		(SELECT COALESCE(MAX(seq), 0) + 1 FROM call_transcriptions WHERE app_id = $1 AND session_id = $2))`,
		appID, t.SessionID, t.TID, t.RoomName, t.MID, t.StartTime, t.EndTime, t.URL, t.CreatedAt); err != nil {
		return mapErr(err)
	}
	res, err := tx.exec(`UPDATE calls SET has_transcription = 1 WHERE app_id = $1 AND session_id = $2`, appID, t.SessionID)
	return affected(res, err)
}

// Call reads a session with its participants and its latest transcriptions (chat.CallStore).
func (db *DB) Call(ctx context.Context, appID, sessionID string) (chat.Call, error) {
	run := db.read(ctx)
	c, err := scanCall(run.row(`SELECT `+callColumns+` FROM calls WHERE app_id = $1 AND session_id = $2`, appID, sessionID), appID)
	if err != nil {
		return c, err
	}
	if err := db.attachParticipants(ctx, appID, []*chat.Call{&c}); err != nil {
		return c, err
	}
	c.Transcriptions, err = collect(run.rows(`SELECT `+transcriptionColumns+` FROM call_transcriptions WHERE app_id = $1 AND session_id = $2
		ORDER BY seq DESC LIMIT $3`, appID, sessionID, chat.LatestTranscriptions), scanTranscription)
	return c, err
}

// attachParticipants reads the participants of calls in one query.
func (db *DB) attachParticipants(ctx context.Context, appID string, calls []*chat.Call) error {
	if len(calls) == 0 {
		return nil
	}
	args := []any{appID}
	byID := map[string]*chat.Call{}
	for _, c := range calls {
		args = append(args, c.SessionID)
		byID[c.SessionID] = c
	}
	return each(db.read(ctx).rows(`SELECT `+participantColumns+` FROM call_participants WHERE app_id = $1 AND session_id IN (`+
		placeholders(2, len(calls))+`) ORDER BY session_id, uid`, args...), func(s scanner) error {
		sp, err := scanParticipant(s)
		if err != nil {
			return err
		}
		if c := byID[sp.session]; c != nil {
			c.Participants = append(c.Participants, sp.p)
		}
		return nil
	})
}

// Calls lists sessions newest first with their participants, and counts the matches
// (chat.CallStore).
func (db *DB) Calls(ctx context.Context, appID string, f chat.CallFilter, page chat.Page) ([]chat.Call, int, error) {
	where := []string{"app_id = $1"}
	args := []any{appID}
	arg := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+itoa(len(args))))
	}
	if f.Type != "" {
		arg("type = ?", f.Type)
	}
	if f.Mode != "" {
		arg("mode = ?", f.Mode)
	}
	if f.Status != "" {
		arg("status = ?", f.Status)
	}
	if f.ReceiverType != "" {
		arg("receiver_type = ?", f.ReceiverType)
	}
	if f.ParticipantsCount >= 0 {
		arg("participants = ?", f.ParticipantsCount)
	}
	if f.StartedFrom > 0 {
		arg("started_at >= ?", f.StartedFrom)
	}
	if f.EndedBy > 0 {
		arg("ended_at > 0 AND ended_at <= ?", f.EndedBy)
	}
	if f.HasTranscription != nil {
		arg("has_transcription = ?", boolInt(*f.HasTranscription))
	}
	if f.HasRecording != nil && *f.HasRecording {
		where = append(where, "1 = 0") // natter records no media
	}
	for _, uid := range []string{f.UID, f.Viewer} {
		if uid != "" {
			arg("session_id IN (SELECT session_id FROM call_participants WHERE app_id = $1 AND uid = ?)", uid)
		}
	}
	cond := strings.Join(where, " AND ")
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*) FROM calls WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	n := len(args)
	calls, err := collect(run.rows(`SELECT `+callColumns+` FROM calls WHERE `+cond+` ORDER BY initiated_at DESC, session_id DESC LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2),
		append(args, page.PerPage, page.Offset())...), func(s scanner) (chat.Call, error) { return scanCall(s, appID) })
	if err != nil {
		return nil, 0, err
	}
	ptrs := make([]*chat.Call, len(calls))
	for i := range calls {
		ptrs[i] = &calls[i]
	}
	return calls, total, db.attachParticipants(ctx, appID, ptrs)
}

// Transcriptions lists a session's transcriptions oldest first and counts them
// (chat.CallStore).
func (db *DB) Transcriptions(ctx context.Context, appID, sessionID string, page chat.Page) ([]chat.Transcription, int, error) {
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*) FROM call_transcriptions WHERE app_id = $1 AND session_id = $2`, appID, sessionID).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	ts, err := collect(run.rows(`SELECT `+transcriptionColumns+` FROM call_transcriptions WHERE app_id = $1 AND session_id = $2
		ORDER BY seq LIMIT $3 OFFSET $4`, appID, sessionID, page.PerPage, page.Offset()), scanTranscription)
	if ts == nil {
		ts = []chat.Transcription{}
	}
	return ts, total, err
}

// CallSeconds adds up the participants' minutes of the calls started in [from, to)
// (chat.CallStore), along calls_started.
func (db *DB) CallSeconds(ctx context.Context, appID string, from, to int64) (int64, int64, error) {
	var audio, video int64
	err := db.read(ctx).row(`SELECT COALESCE(SUM(p.audio_seconds), 0), COALESCE(SUM(p.video_seconds), 0)
		FROM calls c JOIN call_participants p ON p.app_id = c.app_id AND p.session_id = c.session_id
		WHERE c.app_id = $1 AND c.started_at >= $2 AND c.started_at < $3`, appID, from, to).Scan(&audio, &video)
	return audio, video, mapErr(err)
}

// RingingCalls lists, across apps and oldest first, sessions still initiated since before
// the UNIX second before (chat.CallStore), along calls_ringing: the session's app, id and
// initiator, which is what the sweep needs.
func (db *DB) RingingCalls(ctx context.Context, before int64, limit int) ([]chat.Call, error) {
	return collect(db.read(ctx).rows(`SELECT app_id, session_id, initiator FROM calls
		WHERE status = 'initiated' AND initiated_at < $1 ORDER BY initiated_at LIMIT $2`, before, limit),
		func(s scanner) (chat.Call, error) {
			var c chat.Call
			err := s.Scan(&c.AppID, &c.SessionID, &c.Initiator)
			return c, err
		})
}
