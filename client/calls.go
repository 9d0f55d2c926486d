package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Calls: the client SDK's call signalling (InitiateCall, UpdateCall, ChangeCallType, each
// acting as a user) and the call records. natter keeps records and messages, not media.

// Call statuses.
const (
	CallInitiated  = "initiated"
	CallOngoing    = "ongoing"
	CallEnded      = "ended"
	CallRejected   = "rejected"
	CallCancelled  = "cancelled"
	CallBusy       = "busy"
	CallUnanswered = "unanswered"
)

// Call is a call's record.
type Call struct {
	SessionID              string   `json:"sessionId"`
	TotalAudioMinutes      float64  `json:"totalAudioMinutes"`
	TotalVideoMinutes      float64  `json:"totalVideoMinutes"`
	TotalDuration          string   `json:"totalDuration"` // HH:MM:SS
	HasRecording           bool     `json:"hasRecording"`
	HasTranscription       bool     `json:"hasTranscription"`
	InitiatedAt            int64    `json:"initiatedAt"`
	Initiator              string   `json:"initiator"`
	Mode                   string   `json:"mode"`
	Receiver               string   `json:"receiver"`
	ReceiverType           string   `json:"receiverType"`
	Status                 string   `json:"status"`
	TotalDurationInMinutes float64  `json:"totalDurationInMinutes"`
	TotalParticipants      int      `json:"totalParticipants"`
	Type                   string   `json:"type"`
	MID                    string   `json:"mid"`
	StartedAt              int64    `json:"startedAt,omitempty"`
	EndedAt                int64    `json:"endedAt,omitempty"`
	Tags                   []string `json:"tags"` // always empty: natter keeps no call tags
	// MetaData is the call's metadata as InitiateCall gave it: a JSON object, or [] when none.
	MetaData       json.RawMessage   `json:"metaData"`
	Participants   []CallParticipant `json:"participants"`
	Transcriptions []Transcription   `json:"transcriptions,omitempty"`
}

// CallParticipant is one user's part in a call; TotalDuration is in minutes.
type CallParticipant struct {
	UID               string  `json:"uid"`
	TotalAudioMinutes float64 `json:"totalAudioMinutes"`
	TotalVideoMinutes float64 `json:"totalVideoMinutes"`
	TotalDuration     float64 `json:"totalDuration"`
	IsJoined          bool    `json:"isJoined"`
	State             string  `json:"state"`
	DeviceID          *string `json:"deviceId,omitempty"` // empty when joined: natter knows no devices
	JoinedAt          int64   `json:"joinedAt,omitempty"`
	MID               string  `json:"mid,omitempty"`
	LeftAt            int64   `json:"leftAt,omitempty"`
}

// Transcription is a transcript attached to a call.
type Transcription struct {
	RoomName       string `json:"roomName"`
	MID            string `json:"mid"`
	TID            string `json:"tid"`
	StartTime      int64  `json:"startTime"`
	EndTime        int64  `json:"endTime"`
	TranscriptDate string `json:"transcriptDate"`
	TranscriptURL  string `json:"transcriptUrl"`
}

// InitiateCallRequest opens a call to a user or a group; Type is "audio" or "video".
// Metadata, a JSON object, is kept with the call: its messages and record carry it.
type InitiateCallRequest struct {
	Receiver     string          `json:"receiver"`
	ReceiverType string          `json:"receiverType"`
	Type         string          `json:"type"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
}

func callPath(sessionID string) string { return "/calls/" + seg(sessionID) }

// InitiateCall opens a call session as the acting user and returns its "initiated" call
// message (Data's entities.on.entity.sessionid names the session).
func (c *Client) InitiateCall(ctx context.Context, req InitiateCallRequest) (*Message, error) {
	return c.message(ctx, http.MethodPost, "/calls", req)
}

// UpdateCall changes a call's status (ongoing, ended, rejected, cancelled, busy,
// unanswered) as the acting user and returns the call message that records it.
func (c *Client) UpdateCall(ctx context.Context, sessionID, status string) (*Message, error) {
	return c.message(ctx, http.MethodPut, callPath(sessionID), map[string]string{"status": status})
}

// ChangeCallType switches a call between "audio" and "video" and returns its record.
func (c *Client) ChangeCallType(ctx context.Context, sessionID, typ string) (*Call, error) {
	var out Call
	if _, err := c.call(ctx, http.MethodPatch, callPath(sessionID)+"/type", nil, map[string]string{"type": typ}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListCallsParams filters the call list; zero values filter nothing. ParticipantsCount
// is a pointer since 0 is a filter.
type ListCallsParams struct {
	Type, Mode, Status, ReceiverType, UID string
	ParticipantsCount                     *int
	StartedAt, EndedAt                    int64
	HasRecording, HasTranscription        *bool
	Page, PerPage                         int
}

// CallList is one page of call records.
type CallList struct {
	Calls      []Call
	Pagination Pagination
}

// ListCalls lists call records, newest first.
func (c *Client) ListCalls(ctx context.Context, p ListCallsParams) (*CallList, error) {
	q := url.Values{}
	setStr(q, "type", p.Type)
	setStr(q, "mode", p.Mode)
	setStr(q, "status", p.Status)
	setStr(q, "receiverType", p.ReceiverType)
	setStr(q, "uid", p.UID)
	if p.ParticipantsCount != nil {
		q.Set("participantsCount", strconv.Itoa(*p.ParticipantsCount))
	}
	setInt64(q, "startedAt", p.StartedAt)
	setInt64(q, "endedAt", p.EndedAt)
	if p.HasRecording != nil {
		q.Set("hasRecording", strconv.FormatBool(*p.HasRecording))
	}
	if p.HasTranscription != nil {
		q.Set("hasTranscription", strconv.FormatBool(*p.HasTranscription))
	}
	setInt(q, "page", p.Page)
	setInt(q, "perPage", p.PerPage)
	var out CallList
	env, err := c.call(ctx, http.MethodGet, "/calls", q, nil, &out.Calls)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetCall returns a call's record with its latest transcriptions.
func (c *Client) GetCall(ctx context.Context, sessionID string) (*Call, error) {
	var out Call
	if _, err := c.call(ctx, http.MethodGet, callPath(sessionID), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// TranscriptionList is one page of a call's transcriptions.
type TranscriptionList struct {
	Transcriptions []Transcription
	Pagination     Pagination
}

// ListCallTranscriptions lists a call's transcriptions in the order attached.
func (c *Client) ListCallTranscriptions(ctx context.Context, sessionID string, page, perPage int) (*TranscriptionList, error) {
	q := url.Values{}
	setInt(q, "page", page)
	setInt(q, "perPage", perPage)
	var out TranscriptionList
	env, err := c.call(ctx, http.MethodGet, callPath(sessionID)+"/transcriptions", q, nil, &out.Transcriptions)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// AddTranscriptionRequest attaches a transcript made elsewhere (natter's own operation);
// RoomName defaults to the session id.
type AddTranscriptionRequest struct {
	RoomName      string `json:"roomName,omitempty"`
	StartTime     int64  `json:"startTime"`
	EndTime       int64  `json:"endTime"`
	TranscriptURL string `json:"transcriptUrl"`
}

// AddCallTranscription attaches a transcription to a call (fullAccess key).
func (c *Client) AddCallTranscription(ctx context.Context, sessionID string, req AddTranscriptionRequest) (*Transcription, error) {
	var out Transcription
	if _, err := c.call(ctx, http.MethodPost, callPath(sessionID)+"/transcriptions", nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
