package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
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
	Participants     []CallParticipant
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

// TranscriptDate is the hosted transcriptDate: the start time in ISO 8601, UTC, milliseconds.
func (t Transcription) TranscriptDate() string {
	return time.Unix(t.StartTime, 0).UTC().Format(transcriptDateLayout)
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
	// CallSeconds adds up the participants' audio and video seconds of the calls started in
	// [from, to), as last written.
	CallSeconds(ctx context.Context, appID string, from, to int64) (audio, video int64, err error)
}

// CallInitiate is the client SDK's POST /calls: the call message it would send.
type CallInitiate struct {
	Receiver     string
	ReceiverType string
	Type         string
	Status       string // "initiated" or empty
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

func terminalCall(status string) bool {
	switch status {
	case CallEnded, CallRejected, CallCancelled, CallBusy, CallUnanswered:
		return true
	}
	return false
}

// participant is the index of uid among c's participants, -1 when it has none.
func (c *Call) participant(uid string) int {
	for i, p := range c.Participants {
		if p.UID == uid {
			return i
		}
	}
	return -1
}

// JoinedCount is how many participants joined the call (totalParticipants).
func (c *Call) JoinedCount() int {
	n := 0
	for _, p := range c.Participants {
		if p.IsJoined {
			n++
		}
	}
	return n
}

// Accrue counts the time from Since to now into the session's and each present
// participant's minutes of the current type, and returns the participants it changed.
// Reads call it on a copy so that an ongoing call's figures run up to the moment.
func (c *Call) Accrue(now int64) []string {
	add := func(audio, video *int64, since *int64) {
		if now > *since {
			if c.Type == CallVideo {
				*video += now - *since
			} else {
				*audio += now - *since
			}
			*since = now
		}
	}
	var changed []string
	if c.Status == CallOngoing {
		add(&c.AudioSeconds, &c.VideoSeconds, &c.Since)
	}
	for i := range c.Participants {
		p := &c.Participants[i]
		if p.State == CallOngoing {
			add(&p.AudioSeconds, &p.VideoSeconds, &p.Since)
			changed = append(changed, p.UID)
		}
	}
	return changed
}

// callChange is what a status change did, for its messages and events.
type callChange struct {
	changed []string // participants to write
	joined  []string
	left    []string
	started bool
	final   string // the session's new terminal status, when it reached one
}

func (ch *callChange) touch(uid string) {
	for _, u := range ch.changed {
		if u == uid {
			return
		}
	}
	ch.changed = append(ch.changed, uid)
}

// applyCallStatus is the session's state machine: actor asks for status at now (member says
// whether actor is a member of a group call's group). One-to-one: the receiver answers
// (ongoing), rejects or is busy; the initiator cancels; either may mark it unanswered; once
// ongoing, either ends it for both. Group: each member answers, rejects or is busy for
// itself; the call ends when its last present participant leaves.
func applyCallStatus(c *Call, actor string, member bool, status string, now int64) (callChange, error) {
	var ch callChange
	switch status {
	case CallOngoing, CallEnded, CallRejected, CallCancelled, CallBusy, CallUnanswered:
	default:
		return ch, InvalidField("status", "The status must be "+callStatusList+".")
	}
	group := c.ReceiverType == ReceiverGroup
	i := c.participant(actor)
	// A group call's participant who has left the group may still leave or decline it, not
	// join it.
	if i < 0 && (!group || !member) || group && !member && status == CallOngoing {
		return ch, Errorf(CodeCallNotAPart, "The user %s is not a part of the call %s.", actor, c.SessionID)
	}
	if terminalCall(c.Status) {
		return ch, Errorf(CodeCallTerminated, "The call %s has already %s; it cannot change.", c.SessionID, terminalVerb(c.Status))
	}
	ch.changed = c.Accrue(now)
	ensure := func(uid string) *CallParticipant {
		j := c.participant(uid)
		if j < 0 {
			c.Participants = append(c.Participants, CallParticipant{UID: uid, State: CallUnanswered})
			j = len(c.Participants) - 1
		}
		ch.touch(uid)
		return &c.Participants[j]
	}
	join := func(uid string) {
		p := ensure(uid)
		p.State, p.IsJoined, p.LeftAt, p.Since = CallOngoing, true, 0, now
		if p.JoinedAt == 0 {
			p.JoinedAt = now
		}
		ch.joined = append(ch.joined, uid)
	}
	leave := func(p *CallParticipant) {
		p.State, p.LeftAt = CallEnded, now
		ch.touch(p.UID)
		ch.left = append(ch.left, p.UID)
	}
	finish := func(st string) {
		c.Status, c.EndedAt, ch.final = st, now, st
		for j := range c.Participants {
			if p := &c.Participants[j]; p.State == CallOngoing {
				leave(p)
			}
		}
	}
	initiator := actor == c.Initiator
	invalid := func(why string) error {
		return Errorf(CodeCallInvalidStatus, "The call %s is %s: %s", c.SessionID, c.Status, why)
	}
	if c.Status == CallInitiated {
		switch status {
		case CallOngoing:
			if initiator {
				return ch, invalid("its initiator cannot answer it.")
			}
			c.Status, c.StartedAt, c.Since, ch.started = CallOngoing, now, now, true
			join(c.Initiator)
			join(actor)
		case CallRejected, CallBusy:
			if initiator {
				return ch, invalid("its initiator cancels it rather than rejecting it.")
			}
			ensure(actor).State = CallRejected
			if !group {
				finish(status)
				ensure(c.Initiator).State = CallEnded
			}
		case CallCancelled:
			if !initiator {
				return ch, invalid("only its initiator can cancel it.")
			}
			finish(status)
			ensure(c.Initiator).State = CallEnded
		case CallUnanswered:
			finish(status)
			ensure(c.Initiator).State = CallEnded
		case CallEnded:
			return ch, Errorf(CodeCallNotStarted, "The call %s has not started: cancel it, or mark it unanswered.", c.SessionID)
		}
		return ch, nil
	}
	// Ongoing.
	present := i >= 0 && c.Participants[i].State == CallOngoing
	switch status {
	case CallOngoing:
		switch {
		case present && group:
			return ch, Errorf(CodeCallGroupAlreadyJoined, "The user %s has already joined the call %s.", actor, c.SessionID)
		case present || !group:
			return ch, Errorf(CodeCallUserAlreadyJoined, "The user %s has already joined the call %s.", actor, c.SessionID)
		}
		join(actor)
	case CallEnded:
		if !present {
			return ch, Errorf(CodeCallGroupAlreadyLeft, "The user %s is not in the call %s.", actor, c.SessionID)
		}
		leave(&c.Participants[i])
		still := false
		for _, p := range c.Participants {
			still = still || p.State == CallOngoing
		}
		if !group || !still {
			finish(CallEnded)
		}
	case CallRejected, CallBusy:
		if !group || present || (i >= 0 && c.Participants[i].IsJoined) {
			return ch, Errorf(CodeCallOngoingToInvalid, "The call %s is ongoing: it can only be joined or ended.", c.SessionID)
		}
		ensure(actor).State = CallRejected
	default:
		return ch, Errorf(CodeCallOngoingToInvalid, "The call %s is ongoing: it can only be joined or ended.", c.SessionID)
	}
	return ch, nil
}

func terminalVerb(status string) string {
	switch status {
	case CallEnded:
		return "ended"
	case CallUnanswered:
		return "gone unanswered"
	case CallBusy:
		return "been answered busy"
	}
	return "been " + status
}

// callEntity is the call as a call message's data.entities.on.entity carries it.
type callEntity struct {
	SessionID      string `json:"sessionid"`
	ConversationID string `json:"conversationId"`
	Sender         string `json:"sender"`
	ReceiverType   string `json:"receiverType"`
	Receiver       string `json:"receiver"`
	Status         string `json:"status"`
	Type           string `json:"type"`
	InitiatedAt    int64  `json:"initiatedAt"`
	JoinedAt       int64  `json:"joinedAt,omitempty"`
	LeftAt         int64  `json:"leftAt,omitempty"`
}

// callMessage is the call message that records a change of c by actor: category call,
// type the call's, data.action what happened, sent to to (the group, or the other party).
func callMessage(c *Call, actor Entity, action, conversationID, to string, now int64) Message {
	e := callEntity{SessionID: c.SessionID, ConversationID: conversationID, Sender: c.Initiator, ReceiverType: c.ReceiverType,
		Receiver: c.Receiver, Status: c.Status, Type: c.Type, InitiatedAt: c.InitiatedAt, JoinedAt: c.StartedAt, LeftAt: c.EndedAt}
	on, _ := json.Marshal(map[string]any{"entity": e, "entityType": "call"})
	act, _ := json.Marshal(action)
	data := `{"action":` + string(act) + `,"entities":{"on":` + string(on) + `}}`
	return Message{AppID: c.AppID, Category: CategoryCall, Type: c.Type, Sender: actor.UID, SenderEntity: actor,
		ReceiverType: c.ReceiverType, Receiver: to, ConversationID: conversationID, SentAt: now, UpdatedAt: now,
		Action: action, Data: json.RawMessage(data), TargetUID: c.Initiator}
}

// callMessage builds the call message that records a change of c by actor, its receiver
// resolved as a message to it has it (read before the change's transaction).
func (s *Service) callMessage(ctx context.Context, c *Call, actor Entity, action string, now int64) (Message, error) {
	conv, to := GroupConversationID(c.Receiver), c.Receiver
	if c.ReceiverType == ReceiverUser {
		conv = ConversationID(c.Initiator, c.Receiver)
		if actor.UID == c.Receiver {
			to = c.Initiator
		}
	}
	m := callMessage(c, actor, action, conv, to, now)
	// The initiator's entity goes in data.entities.on.entity.data.entities.sender, where the
	// SDK reads the call's initiator: kept as the message's target user.
	m.TargetUser = &actor
	if actor.UID != c.Initiator {
		u, err := s.store.User(ctx, c.AppID, c.Initiator)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return m, internal("read user", err)
		}
		e := u.Entity()
		e.UID = c.Initiator
		m.TargetUser = &e
	}
	if c.ReceiverType == ReceiverGroup {
		g, err := s.store.Group(ctx, c.AppID, c.Receiver, "")
		if err != nil && !errors.Is(err, ErrNotFound) {
			return m, internal("read group", err)
		}
		if err == nil {
			g.Viewer = nil
			m.ReceiverGroup = &g
		}
		return m, nil
	}
	u, err := s.store.User(ctx, c.AppID, to)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return m, internal("read user", err)
	}
	m.ReceiverEntity = u.Entity()
	m.ReceiverEntity.UID = to
	return m, nil
}

// InitiateCall opens a call session from the acting user to a user or a group it is a
// member of, and answers with the "initiated" call message.
func (s *Service) InitiateCall(ctx context.Context, p Principal, in CallInitiate) (Message, error) {
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
	if in.ReceiverType != ReceiverUser && in.ReceiverType != ReceiverGroup {
		fe.add("receiverType", "The receiverType must be user or group.")
	}
	if err := fe.err(); err != nil {
		return Message{}, err
	}
	now := s.now()
	c := Call{AppID: p.App.ID, SessionID: newSessionID(now), Initiator: caller.UID, Receiver: receiver, ReceiverType: in.ReceiverType,
		Type: in.Type, Mode: CallModeCall, Status: CallInitiated, MID: newUUID(), InitiatedAt: now}
	c.Participants = []CallParticipant{{UID: caller.UID, State: CallUnanswered}}
	a := Action{Op: OpInitiateCall, Role: caller.Role, ReceiverType: in.ReceiverType, Type: in.Type}
	if in.ReceiverType == ReceiverGroup {
		g, err := s.groupAs(ctx, p.App.ID, receiver, caller.UID)
		if err != nil {
			return Message{}, err
		}
		switch {
		case g.Viewer.Banned:
			return Message{}, errBanned(caller.UID)
		case !g.Viewer.Joined():
			return Message{}, errNotAMember(caller.UID, g.GUID)
		}
		c.Receiver = g.GUID
		a.GUID, a.Scope = g.GUID, g.Viewer.Scope
	} else {
		if receiver == caller.UID {
			return Message{}, Errorf(CodeCallingSelf, "The user %s cannot call itself.", caller.UID)
		}
		u, err := s.User(ctx, p, receiver)
		if err != nil {
			return Message{}, err
		}
		if err := s.blockedBetween(ctx, p.App.ID, caller.UID, u.UID); err != nil {
			return Message{}, err
		}
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
	wrote := false
	err = s.store.Transact(ctx, func(tx Tx) error {
		if err := tx.InsertCall(&c); err != nil {
			return err
		}
		if err := tx.InsertMessage(&m); err != nil {
			return err
		}
		var err error
		wrote, err = s.callEvents(ctx, tx, &c, &m, callChange{}, CallInitiated)
		return err
	})
	if err != nil {
		return Message{}, pinErr("initiate call", err)
	}
	s.wakeOutbox(wrote)
	return m, nil
}

// UpdateCallStatus moves a session as the acting user asks (applyCallStatus) and answers
// with the call message that records it.
func (s *Service) UpdateCallStatus(ctx context.Context, p Principal, sessionID, status string) (Message, error) {
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
	before, err := s.store.Call(ctx, p.App.ID, sessionID)
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
	wrote := false
	err = s.store.Transact(ctx, func(tx Tx) error {
		c, err := tx.CallForChange(p.App.ID, sessionID)
		if errors.Is(err, ErrNotFound) {
			return errCallNotFound(sessionID)
		}
		if err != nil {
			return err
		}
		member := false
		if c.ReceiverType == ReceiverGroup {
			st, err := tx.MemberStates(p.App.ID, c.Receiver, []string{actor.UID})
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
		wrote, err = s.callEvents(ctx, tx, &c, &m, ch, status)
		return err
	})
	if err != nil {
		return Message{}, pinErr("update call", err)
	}
	s.wakeOutbox(wrote)
	return m, nil
}

// ChangeCallType switches a session between audio and video, as one of its parties; the
// minutes so far are counted as the old type. Switching to the type it has changes nothing.
func (s *Service) ChangeCallType(ctx context.Context, p Principal, sessionID, typ string) (Call, error) {
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
	err = s.store.Transact(ctx, func(tx Tx) error {
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
		return tx.UpdateCall(&c, changed)
	})
	if err != nil {
		return Call{}, pinErr("change call type", err)
	}
	return s.Call(ctx, p, sessionID)
}

// Call reads one session's record with its latest transcriptions. Acting as a user, only
// a participant sees it (others are told it does not exist).
func (s *Service) Call(ctx context.Context, p Principal, sessionID string) (Call, error) {
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

// Calls lists sessions, newest first. Acting as a user, only the calls it took part in.
func (s *Service) Calls(ctx context.Context, p Principal, f CallFilter, page Page) ([]Call, int, error) {
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

// CallTranscriptions lists a session's transcriptions, oldest first.
func (s *Service) CallTranscriptions(ctx context.Context, p Principal, sessionID string, page Page) ([]Transcription, int, error) {
	if _, err := s.Call(ctx, p, sessionID); err != nil {
		return nil, 0, err
	}
	ts, total, err := s.store.Transcriptions(ctx, p.App.ID, sessionID, page)
	if err != nil {
		return nil, 0, internal("list transcriptions", err)
	}
	return ts, total, nil
}

// TranscriptionInput attaches a transcript, produced elsewhere, to a call.
type TranscriptionInput struct {
	RoomName      string
	StartTime     int64
	EndTime       int64
	TranscriptURL string
}

// AddTranscription attaches a transcript to a session (natter's own admin operation: the
// hosted service produces them itself).
func (s *Service) AddTranscription(ctx context.Context, p Principal, sessionID string, in TranscriptionInput) (Transcription, error) {
	if sessionID == "" || len(sessionID) > MaxSessionIDLen {
		return Transcription{}, errCallNotFound(sessionID)
	}
	fe := fieldErrors{}
	fe.text("roomName", in.RoomName, MaxRoomNameLen, false)
	if in.StartTime <= 0 {
		fe.add("startTime", "The startTime must be a positive UNIX time in seconds.")
	}
	if in.EndTime < in.StartTime || in.EndTime <= 0 {
		fe.add("endTime", "The endTime must be a UNIX time in seconds, not before startTime.")
	}
	if msg := checkHTTPSURL(in.TranscriptURL, MaxTranscriptURLLen); msg != "" {
		fe.add("transcriptUrl", msg)
	}
	if err := fe.err(); err != nil {
		return Transcription{}, err
	}
	t := Transcription{TID: newUUID(), SessionID: sessionID, RoomName: in.RoomName, StartTime: in.StartTime, EndTime: in.EndTime,
		URL: in.TranscriptURL, CreatedAt: s.now()}
	err := s.store.Transact(ctx, func(tx Tx) error {
		c, err := tx.CallForChange(p.App.ID, sessionID)
		if errors.Is(err, ErrNotFound) {
			return errCallNotFound(sessionID)
		}
		if err != nil {
			return err
		}
		t.MID = c.MID
		if t.RoomName == "" {
			t.RoomName = c.SessionID
		}
		return tx.InsertTranscription(p.App.ID, t)
	})
	if err != nil {
		return Transcription{}, pinErr("add transcription", err)
	}
	return t, nil
}

// checkHTTPSURL says what is wrong with an https URL of at most max bytes; "" when nothing.
func checkHTTPSURL(v string, max int) string {
	switch {
	case v == "":
		return "The transcriptUrl field is required."
	case len(v) > max:
		return fmt.Sprintf("The transcriptUrl must be at most %d characters.", max)
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "The transcriptUrl must be an https URL with a host and no credentials."
	}
	return ""
}

// EventCall is a call webhook event's subject, as the change left it: the hosted
// call_started, call_participant_joined/left and call_ended carry the session and its
// occupants rather than a message.
type EventCall struct {
	SessionID   string          `json:"sessionId"`
	CreatedAt   int64           `json:"createdAt,omitempty"`
	DestroyedAt int64           `json:"destroyedAt,omitempty"`
	Occupants   []EventOccupant `json:"occupants,omitempty"`
}

// EventOccupant is a participant in a call event.
type EventOccupant struct {
	UID      string `json:"uid"`
	Name     string `json:"name"`
	JoinedAt int64  `json:"joinedAt"`
	LeftAt   int64  `json:"leftAt,omitempty"`
	Audio    bool   `json:"audio"`
}

// callTriggers are the triggers whose data is the call message that records the change.
var callTriggers = map[string]string{
	CallInitiated: TriggerCallInitiated, CallBusy: TriggerCallBusy, CallCancelled: TriggerCallCancelled,
	CallRejected: TriggerCallRejected, CallUnanswered: TriggerCallUnanswered,
}

// callEvents writes the webhook events of a change (status is what was asked) in its
// transaction, and reports whether it wrote any.
func (s *Service) callEvents(ctx context.Context, tx Tx, c *Call, m *Message, ch callChange, status string) (bool, error) {
	var evs []OutboxEvent
	add := func(trigger string, ref EventRef) {
		if s.subscribed(ctx, c.AppID, trigger) {
			ref.MessageID = m.ID
			evs = append(evs, OutboxEvent{AppID: c.AppID, Trigger: trigger, ConversationID: m.ConversationID, MessageID: m.ID,
				Ref: ref, At: time.Now().UnixMilli()})
		}
	}
	// A group member's rejection of a call that goes on is its own call_rejected.
	if t, ok := callTriggers[status]; ok {
		add(t, EventRef{})
	}
	occupant := func(uid string) EventOccupant {
		o := EventOccupant{UID: uid, Name: uid, Audio: c.Type == CallAudio}
		if j := c.participant(uid); j >= 0 {
			o.JoinedAt, o.LeftAt = c.Participants[j].JoinedAt, c.Participants[j].LeftAt
		}
		return o
	}
	if ch.started {
		add(TriggerCallStarted, EventRef{Call: &EventCall{SessionID: c.SessionID, CreatedAt: c.StartedAt}})
	}
	for _, uid := range ch.joined {
		add(TriggerCallParticipantJoined, EventRef{Call: &EventCall{SessionID: c.SessionID, Occupants: []EventOccupant{occupant(uid)}}})
	}
	for _, uid := range ch.left {
		add(TriggerCallParticipantLeft, EventRef{Call: &EventCall{SessionID: c.SessionID, Occupants: []EventOccupant{occupant(uid)}}})
	}
	if ch.final == CallEnded {
		all := []EventOccupant{}
		for _, p := range c.Participants {
			if p.IsJoined {
				all = append(all, occupant(p.UID))
			}
		}
		add(TriggerCallEnded, EventRef{Call: &EventCall{SessionID: c.SessionID, CreatedAt: c.StartedAt, DestroyedAt: c.EndedAt, Occupants: all}})
	}
	for _, ev := range evs {
		if err := tx.InsertOutbox(ev); err != nil {
			return false, err
		}
	}
	return len(evs) > 0, nil
}
