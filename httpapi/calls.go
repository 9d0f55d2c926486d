package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// Calls (chat/calls.go). The client SDK's POST /calls and PUT /calls/{sessionId} answer
// with a call message, as it expects; the records answer in the hosted calls API's shapes
// (calls.json): minutes as fractions, totalDuration as "HH:MM:SS".

// initiateCallRequest is the call message the SDK posts (it sends its whole Call object;
// natter reads what decides the call).
type initiateCallRequest struct {
	Receiver     string `json:"receiver"`
	ReceiverType string `json:"receiverType"`
	Type         string `json:"type"`
	Status       string `json:"status"`
	// Metadata is the call's metadata: the SDK's Call.setMetadata puts it both here and in
	// data.metadata; either is taken, this one first.
	Metadata json.RawMessage `json:"metadata"`
	Data     struct {
		Metadata json.RawMessage `json:"metadata"`
	} `json:"data"`
}

func (s *Server) initiateCall(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req initiateCallRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	meta := req.Metadata
	if len(meta) == 0 || string(meta) == "null" {
		meta = req.Data.Metadata
	}
	m, err := s.svc.Calls().InitiateCall(r.Context(), p, chat.CallInitiate{Receiver: req.Receiver, ReceiverType: req.ReceiverType, Type: req.Type,
		Status: req.Status, Metadata: meta})
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

// updateCallRequest is the SDK's status change; joinedAt, which it sends on ending, is the
// client's clock and not used: natter times calls itself.
type updateCallRequest struct {
	Status   string `json:"status"`
	JoinedAt *int64 `json:"joinedAt"`
}

func (s *Server) updateCall(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req updateCallRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.Status == "" {
		return chat.InvalidField("status", "The status field is required.")
	}
	m, err := s.svc.Calls().UpdateCallStatus(r.Context(), p, r.PathValue("sessionId"), req.Status)
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

func (s *Server) changeCallType(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Type string `json:"type"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	c, err := s.svc.Calls().ChangeCallType(r.Context(), p, r.PathValue("sessionId"), req.Type)
	if err != nil {
		return err
	}
	writeData(w, r, callOut(c, true), nil)
	return nil
}

// oneOf reads a parameter that must be one of values; "" when absent.
func (q *query) oneOf(name string, values ...string) string {
	v := q.str(name)
	if v == "" {
		return ""
	}
	for _, ok := range values {
		if v == ok {
			return v
		}
	}
	q.fail(name, "The "+name+" parameter must be one of "+strings.Join(values, ", ")+".")
	return ""
}

// unixTime reads a positive UNIX time in seconds; 0 when absent.
func (q *query) unixTime(name string) int64 {
	v := q.str(name)
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		q.fail(name, "The "+name+" parameter must be a UNIX time in seconds.")
		return 0
	}
	return n
}

// optionalBool reads true or false; nil when absent.
func (q *query) optionalBool(name string) *bool {
	if q.str(name) == "" {
		return nil
	}
	b := q.boolean(name)
	return &b
}

func (s *Server) listCalls(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	f := chat.CallFilter{ParticipantsCount: -1}
	f.Type = q.oneOf("type", "audio", "video")
	f.Mode = q.oneOf("mode", "call", "meet", "presenter")
	f.Status = q.oneOf("status", chat.CallInitiated, chat.CallOngoing, chat.CallEnded, chat.CallRejected, chat.CallCancelled,
		chat.CallBusy, chat.CallUnanswered)
	f.ReceiverType = q.oneOf("receiverType", chat.ReceiverUser, chat.ReceiverGroup)
	if q.str("participantsCount") != "" {
		f.ParticipantsCount = q.integer("participantsCount", -1, 0, 1<<20)
	}
	f.StartedFrom = q.unixTime("startedAt")
	f.EndedBy = q.unixTime("endedAt")
	f.HasRecording = q.optionalBool("hasRecording")
	f.HasTranscription = q.optionalBool("hasTranscription")
	if v := q.str("uid"); v != "" {
		uid, ok := chat.NormalizeID(v)
		if !ok {
			q.fail("uid", "The uid is not a valid uid.")
		}
		f.UID = uid
	}
	page := q.page()
	if err := q.err(); err != nil {
		return err
	}
	calls, total, err := s.svc.Calls().List(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	out := make([]callJSON, len(calls))
	for i, c := range calls {
		out[i] = callOut(c, false)
	}
	writeData(w, r, out, pageMeta(page, len(out), total))
	return nil
}

func (s *Server) getCall(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	c, err := s.svc.Calls().Call(r.Context(), p, r.PathValue("sessionId"))
	if err != nil {
		return err
	}
	writeData(w, r, callOut(c, true), nil)
	return nil
}

func (s *Server) listTranscriptions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := q.page()
	if err := q.err(); err != nil {
		return err
	}
	ts, total, err := s.svc.Calls().CallTranscriptions(r.Context(), p, r.PathValue("sessionId"), page)
	if err != nil {
		return err
	}
	out := make([]transcriptionJSON, len(ts))
	for i, t := range ts {
		out[i] = transcriptionOut(t)
	}
	writeData(w, r, out, pageMeta(page, len(out), total))
	return nil
}

type addTranscriptionRequest struct {
	RoomName      string `json:"roomName"`
	StartTime     int64  `json:"startTime"`
	EndTime       int64  `json:"endTime"`
	TranscriptURL string `json:"transcriptUrl"`
}

func (s *Server) addTranscription(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req addTranscriptionRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	t, err := s.svc.Calls().AddTranscription(r.Context(), p, r.PathValue("sessionId"), chat.TranscriptionInput{RoomName: req.RoomName,
		StartTime: req.StartTime, EndTime: req.EndTime, TranscriptURL: req.TranscriptURL})
	if err != nil {
		return err
	}
	writeData(w, r, transcriptionOut(t), nil)
	return nil
}

// callJSON is a call record (calls.json's callSchema, as its examples have it).
type callJSON struct {
	SessionID              string  `json:"sessionId"`
	TotalAudioMinutes      float64 `json:"totalAudioMinutes"`
	TotalVideoMinutes      float64 `json:"totalVideoMinutes"`
	TotalDuration          string  `json:"totalDuration"`
	HasRecording           bool    `json:"hasRecording"`
	HasTranscription       bool    `json:"hasTranscription"`
	InitiatedAt            int64   `json:"initiatedAt"`
	Initiator              string  `json:"initiator"`
	Mode                   string  `json:"mode"`
	Receiver               string  `json:"receiver"`
	ReceiverType           string  `json:"receiverType"`
	Status                 string  `json:"status"`
	TotalDurationInMinutes float64 `json:"totalDurationInMinutes"`
	TotalParticipants      int     `json:"totalParticipants"`
	Type                   string  `json:"type"`
	MID                    string  `json:"mid"`
	StartedAt              int64   `json:"startedAt,omitempty"`
	EndedAt                int64   `json:"endedAt,omitempty"`
	// Tags and MetaData as the hosted record has them: natter keeps no call tags (none can
	// be set), so tags is always empty; metaData is the call's metadata, or [] when it has
	// none, as the hosted record gives an empty one.
	Tags           []string            `json:"tags"`
	MetaData       json.RawMessage     `json:"metaData"`
	Participants   []participantJSON   `json:"participants"`
	Transcriptions []transcriptionJSON `json:"transcriptions,omitempty"`
}

type participantJSON struct {
	UID               string  `json:"uid"`
	TotalAudioMinutes float64 `json:"totalAudioMinutes"`
	TotalVideoMinutes float64 `json:"totalVideoMinutes"`
	TotalDuration     float64 `json:"totalDuration"` // minutes, as the hosted records have it
	IsJoined          bool    `json:"isJoined"`
	State             string  `json:"state"`
	// DeviceID is the hosted record's device of a participant who joined; natter does not
	// know devices (the calls SDK reports none to it), so it is an empty string.
	DeviceID *string `json:"deviceId,omitempty"`
	JoinedAt int64   `json:"joinedAt,omitempty"`
	MID      string  `json:"mid,omitempty"`
	LeftAt   int64   `json:"leftAt,omitempty"`
}

type transcriptionJSON struct {
	RoomName       string `json:"roomName"`
	MID            string `json:"mid"`
	TID            string `json:"tid"`
	StartTime      int64  `json:"startTime"`
	EndTime        int64  `json:"endTime"`
	TranscriptDate string `json:"transcriptDate"`
	TranscriptURL  string `json:"transcriptUrl"`
}

func minutes(seconds int64) float64 { return float64(seconds) / 60 }

// clock is seconds as HH:MM:SS (hours may exceed two digits).
func clock(seconds int64) string {
	return fmt.Sprintf("%02d:%02d:%02d", seconds/3600, seconds/60%60, seconds%60)
}

// callOut is a call's record; single adds its latest transcriptions.
func callOut(c chat.Call, single bool) callJSON {
	total := c.AudioSeconds + c.VideoSeconds
	out := callJSON{SessionID: c.SessionID, TotalAudioMinutes: minutes(c.AudioSeconds), TotalVideoMinutes: minutes(c.VideoSeconds),
		TotalDuration: clock(total), HasTranscription: c.HasTranscription, InitiatedAt: c.InitiatedAt, Initiator: c.Initiator,
		Mode: c.Mode, Receiver: c.Receiver, ReceiverType: c.ReceiverType, Status: c.Status, TotalDurationInMinutes: minutes(total),
		TotalParticipants: c.JoinedCount(), Type: c.Type, MID: c.MID, StartedAt: c.StartedAt, EndedAt: c.EndedAt,
		Tags: []string{}, MetaData: json.RawMessage(`[]`), Participants: make([]participantJSON, len(c.Participants))}
	if len(c.Metadata) > 0 {
		out.MetaData = c.Metadata
	}
	noDevice := ""
	for i, p := range c.Participants {
		pj := participantJSON{UID: p.UID, TotalAudioMinutes: minutes(p.AudioSeconds), TotalVideoMinutes: minutes(p.VideoSeconds),
			TotalDuration: minutes(p.AudioSeconds + p.VideoSeconds), IsJoined: p.IsJoined, State: p.State, JoinedAt: p.JoinedAt, LeftAt: p.LeftAt}
		if p.IsJoined {
			pj.MID, pj.DeviceID = c.MID, &noDevice
		}
		out.Participants[i] = pj
	}
	if single && c.HasTranscription {
		out.Transcriptions = make([]transcriptionJSON, len(c.Transcriptions))
		for i, t := range c.Transcriptions {
			out.Transcriptions[i] = transcriptionOut(t)
		}
	}
	return out
}

func transcriptionOut(t chat.Transcription) transcriptionJSON {
	return transcriptionJSON{RoomName: t.RoomName, MID: t.MID, TID: t.TID, StartTime: t.StartTime, EndTime: t.EndTime,
		TranscriptDate: t.TranscriptDate(), TranscriptURL: t.URL}
}
