package chat

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Transcriptions attached to calls by the app (natter has no media to transcribe).

// TranscriptDate is the hosted transcriptDate: the start time in ISO 8601, UTC, milliseconds.
func (t Transcription) TranscriptDate() string {
	return time.Unix(t.StartTime, 0).UTC().Format(transcriptDateLayout)
}

// CallTranscriptions lists a session's transcriptions, oldest first.
func (s Calls) CallTranscriptions(ctx context.Context, p Principal, sessionID string, page Page) ([]Transcription, int, error) {
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
func (s Calls) AddTranscription(ctx context.Context, p Principal, sessionID string, in TranscriptionInput) (Transcription, error) {
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
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
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
		cs.Add(&Change{Kind: ChangeCall, App: p.App.ID, Subject: c.SessionID})
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
