package chat

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
)

// Calls (docs/calls.md). natter keeps call records and the signalling messages of calls, not
// their media: a session is opened by the client SDK's POST /calls, which sends the
// "initiated" call message, and moved by PUT /calls/{sessionId} (status) and PATCH
// /calls/{sessionId}/type; each move that changes the session sends a call message whose
// data.entities.on is the call as it stands. The records list as the hosted calls API does.

// CategoryCall is the category of call messages.
const CategoryCall = "call"

// Call statuses: of a session, and the status a change asks for. A participant's state is
// one of ongoing, ended, unanswered and rejected.
const (
	CallInitiated  = "initiated"
	CallOngoing    = "ongoing"
	CallEnded      = "ended"
	CallRejected   = "rejected"
	CallCancelled  = "cancelled"
	CallBusy       = "busy"
	CallUnanswered = "unanswered"
)

// Call types, and the one mode natter's calls have (the hosted meet and presenter modes are
// started by its calling component, which natter does not serve).
const (
	CallAudio    = "audio"
	CallVideo    = "video"
	CallModeCall = "call"
)

// Limits of calls.
const (
	MaxSessionIDLen       = 255
	MaxTranscriptURLLen   = 2048
	MaxRoomNameLen        = 255
	LatestTranscriptions  = 5 // embedded in one call's record
	transcriptDateLayout  = "2006-01-02T15:04:05.000Z"
	callStatusList        = "ongoing, ended, rejected, cancelled, busy or unanswered"
	callFilterStatusList  = "initiated, ongoing, ended, rejected, cancelled, busy or unanswered"
	callParticipantsLimit = 1000 // participants kept per session
)

// Call is a call session's record.
type Call struct {
	AppID        string
	SessionID    string
	Initiator    string
	Receiver     string
	ReceiverType string
	Type         string // the current type; minutes are counted per type
	Mode         string
	Status       string
	MID          string // the meeting's id, as the hosted records carry it
	InitiatedAt  int64
	StartedAt    int64 // when the first participant answered; 0 before
	EndedAt      int64 // when it ended, or was rejected, cancelled, busy or unanswered
	AudioSeconds int64 // while ongoing, counted up to Since
	VideoSeconds int64
	// Since is when the time not yet counted began: the start, or the last change.
	Since            int64
	HasTranscription bool
	// Metadata is what initiateCall sent as the call's metadata (a compacted JSON object),
	// nil when none; each call message carries it, as the SDK's Call.getMetadata reads it.
	Metadata     json.RawMessage
	Participants []CallParticipant
	// Transcriptions are the latest ones, newest first, on a single call's record.
	Transcriptions []Transcription
}

// CallParticipant is one user's part in a call.
type CallParticipant struct {
	UID          string
	State        string
	IsJoined     bool // it joined at some point
	JoinedAt     int64
	LeftAt       int64
	AudioSeconds int64
	VideoSeconds int64
	Since        int64
}

// Transcription is a transcript attached to a call.
type Transcription struct {
	TID       string
	SessionID string
	RoomName  string
	MID       string
	StartTime int64
	EndTime   int64
	URL       string
	CreatedAt int64
}

// CallFilter is the filters of the call list; zero values filter nothing.
type CallFilter struct {
	Type              string
	Mode              string
	Status            string
	ReceiverType      string
	UID               string // calls this user took part in
	ParticipantsCount int    // exactly this many joined; -1 filters nothing
	StartedFrom       int64  // started at or after
	EndedBy           int64  // ended at or before
	HasTranscription  *bool
	HasRecording      *bool
	Viewer            string // an acting user sees only its own calls
}

// CallTx is what calls need inside their transaction.
type CallTx interface {
	// InsertCall stores a new session with its participants.
	InsertCall(c *Call) error
	// CallForChange holds a session until the transaction ends and reads it with its
	// participants; ErrNotFound when the app has none of that id.
	CallForChange(appID, sessionID string) (Call, error)
	// UpdateCall writes the session's row and the participants named in uids.
	UpdateCall(c *Call, uids []string) error
	// InsertTranscription stores a transcription and marks its call as transcribed.
	InsertTranscription(appID string, t Transcription) error
}

// CallStore reads call records.
type CallStore interface {
	// Call reads a session with its participants and its latest transcriptions.
	Call(ctx context.Context, appID, sessionID string) (Call, error)
	// Calls lists sessions newest first, with their participants, and counts the matches.
	Calls(ctx context.Context, appID string, f CallFilter, page Page) ([]Call, int, error)
	// Transcriptions lists a session's transcriptions oldest first and counts them.
	Transcriptions(ctx context.Context, appID, sessionID string, page Page) ([]Transcription, int, error)
	// RingingCalls lists, across apps and oldest first, up to limit sessions still
	// initiated that were initiated before the UNIX second before.
	RingingCalls(ctx context.Context, before int64, limit int) ([]Call, error)
	// CallSeconds adds up the participants' audio and video seconds of the calls started in
	// [from, to), as last written.
	CallSeconds(ctx context.Context, appID string, from, to int64) (audio, video int64, err error)
}

// CallInitiate is the client SDK's POST /calls: the call message it would send.
type CallInitiate struct {
	Receiver     string
	ReceiverType string
	Type         string
	Status       string          // "initiated" or empty
	Metadata     json.RawMessage // a JSON object, or empty (null reads as none)
}

func errCallNotFound(id string) error {
	if len(id) > 64 {
		id = id[:64] + "…"
	}
	return Errorf(CodeCallSessionNotFound, "The call session %s does not exist.", id)
}

// newSessionID is an unguessable session id: 128 random bits after the time.
func newSessionID(now int64) string {
	var b [16]byte
	rand.Read(b[:])
	return "n1." + strconv.FormatInt(now, 10) + hex.EncodeToString(b[:])
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func validCallType(t string) bool { return t == CallAudio || t == CallVideo }

// InitiateCall opens a call session from the acting user to a user or a group it is a
// member of, and answers with the "initiated" call message.
func (s Calls) InitiateCall(ctx context.Context, p Principal, in CallInitiate) (Message, error) {
	caller, err := s.actingUser(ctx, p)
	if err != nil {
		return Message{}, err
	}
	fe := fieldErrors{}
	if !validCallType(in.Type) {
		fe.add("type", "The type must be audio or video.")
	}
	if in.Status != "" && in.Status != CallInitiated {
		fe.add("status", "A call starts initiated.")
	}
	receiver := fe.id("receiver", in.Receiver, true)
	var meta json.RawMessage
	if m := bytes.TrimSpace(in.Metadata); len(m) > 0 && string(m) != "null" {
		meta = fe.metadata("metadata", m)
	}
	if in.ReceiverType != ReceiverUser && in.ReceiverType != ReceiverGroup {
		fe.add("receiverType", "The receiverType must be user or group.")
	}
	if err := fe.err(); err != nil {
		return Message{}, err
	}
	now := s.now()
	c := Call{AppID: p.App.ID, SessionID: newSessionID(now), Initiator: caller.UID, Receiver: receiver, ReceiverType: in.ReceiverType,
		Type: in.Type, Mode: CallModeCall, Status: CallInitiated, MID: newUUID(), InitiatedAt: now, Metadata: meta}
	c.Participants = []CallParticipant{{UID: caller.UID, State: CallUnanswered}}
	a := Action{Op: OpInitiateCall, Role: caller.Role, ReceiverType: in.ReceiverType, Type: in.Type}
	if in.ReceiverType != ReceiverGroup && receiver == caller.UID {
		return Message{}, Errorf(CodeCallingSelf, "The user %s cannot call itself.", caller.UID)
	}
	to, err := s.addressee(ctx, p, caller.UID, in.ReceiverType, receiver)
	if err != nil {
		return Message{}, err
	}
	if g := to.Group; g != nil {
		c.Receiver = g.GUID
		a.GUID, a.Scope = g.GUID, g.Viewer.Scope
	} else {
		u := *to.User
		c.Receiver = u.UID
		c.Participants = append(c.Participants, CallParticipant{UID: u.UID, State: CallUnanswered})
		a.ReceiverRole, a.Friend = u.Role, s.friendOf(ctx, p.App.ID, caller.UID, u.UID)
	}
	if _, err := s.permit(ctx, p, a); err != nil {
		return Message{}, err
	}
	m, err := s.callMessage(ctx, &c, caller.Entity(), CallInitiated, now)
	if err != nil {
		return Message{}, err
	}
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		if err := tx.InsertCall(&c); err != nil {
			return err
		}
		if err := tx.InsertMessage(&m); err != nil {
			return err
		}
		wrote, err := s.callEvents(ctx, tx, &c, &m, callChange{}, CallInitiated)
		callChanges(cs, &c, &m, wrote)
		return err
	})
	if err != nil {
		return Message{}, pinErr("initiate call", err)
	}
	return m, nil
}

// UpdateCallStatus moves a session as the acting user asks (applyCallStatus) and answers
// with the call message that records it.
func (s Calls) UpdateCallStatus(ctx context.Context, p Principal, sessionID, status string) (Message, error) {
	actor, err := s.actingUser(ctx, p)
	if err != nil {
		return Message{}, err
	}
	if sessionID == "" || len(sessionID) > MaxSessionIDLen {
		return Message{}, errCallNotFound(sessionID)
	}
	if _, err := s.permit(ctx, p, Action{Op: OpUpdateCall, Role: actor.Role}); err != nil {
		return Message{}, err
	}
	return s.changeCall(ctx, p.App.ID, actor, sessionID, status)
}

// changeCall moves a session as actor asks, in a transaction holding its row, and writes the
// call message that records it.
func (s *Service) changeCall(ctx context.Context, appID string, actor User, sessionID, status string) (Message, error) {
	before, err := s.store.Call(ctx, appID, sessionID)
	if errors.Is(err, ErrNotFound) {
		return Message{}, errCallNotFound(sessionID)
	}
	if err != nil {
		return Message{}, internal("read call", err)
	}
	now := s.now()
	// The receiver's entity for the message, read before the change (it does not change).
	base, err := s.callMessage(ctx, &before, actor.Entity(), status, now)
	if err != nil {
		return Message{}, err
	}
	var m Message
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		c, err := tx.CallForChange(appID, sessionID)
		if errors.Is(err, ErrNotFound) {
			return errCallNotFound(sessionID)
		}
		if err != nil {
			return err
		}
		member := false
		if c.ReceiverType == ReceiverGroup {
			st, err := tx.MemberStates(appID, c.Receiver, []string{actor.UID})
			if err != nil {
				return err
			}
			member = st[actor.UID].Membership.Joined() && !st[actor.UID].Banned
		}
		ch, err := applyCallStatus(&c, actor.UID, member, status, now)
		if err != nil {
			return err
		}
		if len(c.Participants) > callParticipantsLimit {
			return Errorf(CodeCallInvalidStatus, "The call %s has %d participants, the most allowed.", c.SessionID, callParticipantsLimit)
		}
		if err := tx.UpdateCall(&c, ch.changed); err != nil {
			return err
		}
		m = callMessage(&c, actor.Entity(), status, base.ConversationID, base.Receiver, now)
		m.ReceiverEntity, m.ReceiverGroup, m.TargetUser = base.ReceiverEntity, base.ReceiverGroup, base.TargetUser
		if err := tx.InsertMessage(&m); err != nil {
			return err
		}
		wrote, err := s.callEvents(ctx, tx, &c, &m, ch, status)
		callChanges(cs, &c, &m, wrote)
		return err
	})
	if err != nil {
		return Message{}, pinErr("update call", err)
	}
	return m, nil
}

// callChanges announces a call's change and the call message m that records it; wrote
// says the change wrote webhook events.
func callChanges(cs *Changes, c *Call, m *Message, wrote bool) {
	var work Work
	if wrote {
		work = WorkWebhook
	}
	cs.Add(messageChange(m, 0))
	cs.Add(&Change{Kind: ChangeCall, App: c.AppID, Conversation: m.ConversationID, Subject: c.SessionID, Work: work})
}

// ChangeCallType switches a session between audio and video, as one of its parties; the
// minutes so far are counted as the old type. Switching to the type it has changes nothing.
func (s Calls) ChangeCallType(ctx context.Context, p Principal, sessionID, typ string) (Call, error) {
	actor, err := s.actingUser(ctx, p)
	if err != nil {
		return Call{}, err
	}
	if !validCallType(typ) {
		return Call{}, InvalidField("type", "The type must be audio or video.")
	}
	if sessionID == "" || len(sessionID) > MaxSessionIDLen {
		return Call{}, errCallNotFound(sessionID)
	}
	if _, err := s.permit(ctx, p, Action{Op: OpUpdateCall, Role: actor.Role}); err != nil {
		return Call{}, err
	}
	now := s.now()
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		c, err := tx.CallForChange(p.App.ID, sessionID)
		if errors.Is(err, ErrNotFound) {
			return errCallNotFound(sessionID)
		}
		if err != nil {
			return err
		}
		if c.participant(actor.UID) < 0 {
			return Errorf(CodeCallNotAPart, "The user %s is not a part of the call %s.", actor.UID, c.SessionID)
		}
		if terminalCall(c.Status) {
			return Errorf(CodeCallTerminated, "The call %s has already %s; it cannot change.", c.SessionID, terminalVerb(c.Status))
		}
		if c.Type == typ {
			return nil
		}
		changed := c.Accrue(now)
		c.Type = typ
		cs.Add(&Change{Kind: ChangeCall, App: p.App.ID, Subject: c.SessionID})
		return tx.UpdateCall(&c, changed)
	})
	if err != nil {
		return Call{}, pinErr("change call type", err)
	}
	return s.Call(ctx, p, sessionID)
}

// Call reads one session's record with its latest transcriptions. Acting as a user, only
// a participant sees it (others are told it does not exist).
func (s Calls) Call(ctx context.Context, p Principal, sessionID string) (Call, error) {
	viewer, err := s.callViewer(ctx, p, OpGetCall)
	if err != nil {
		return Call{}, err
	}
	if sessionID == "" || len(sessionID) > MaxSessionIDLen {
		return Call{}, errCallNotFound(sessionID)
	}
	c, err := s.store.Call(ctx, p.App.ID, sessionID)
	if errors.Is(err, ErrNotFound) || err == nil && viewer != "" && c.participant(viewer) < 0 {
		return Call{}, errCallNotFound(sessionID)
	}
	if err != nil {
		return Call{}, internal("read call", err)
	}
	c.Accrue(s.now())
	return c, nil
}

// callViewer is the acting user whose calls a read (op) may see, as far as its
// permissions let it; empty for the app.
func (s *Service) callViewer(ctx context.Context, p Principal, op Op) (string, error) {
	if !p.acting() {
		return "", nil
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return "", err
	}
	_, err = s.permit(ctx, p, Action{Op: op, Role: u.Role})
	return u.UID, err
}

// List lists call sessions, newest first. Acting as a user, only the calls it took part in.
func (s Calls) List(ctx context.Context, p Principal, f CallFilter, page Page) ([]Call, int, error) {
	viewer, err := s.callViewer(ctx, p, OpListCalls)
	if err != nil {
		return nil, 0, err
	}
	f.Viewer = viewer
	calls, total, err := s.store.Calls(ctx, p.App.ID, f, page)
	if err != nil {
		return nil, 0, internal("list calls", err)
	}
	now := s.now()
	for i := range calls {
		calls[i].Accrue(now)
	}
	return calls, total, nil
}
