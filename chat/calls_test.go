package chat

import (
	"testing"
)

// The call state machine, as a table: who asks for what on which session, and what comes of it.
func TestApplyCallStatus(t *testing.T) {
	oneToOne := func(status string) Call {
		c := Call{SessionID: "s", Initiator: "a", Receiver: "b", ReceiverType: ReceiverUser, Type: CallAudio, Status: status,
			Participants: []CallParticipant{{UID: "a", State: CallUnanswered}, {UID: "b", State: CallUnanswered}}}
		if status == CallOngoing {
			c.StartedAt, c.Since = 100, 100
			for i := range c.Participants {
				c.Participants[i] = CallParticipant{UID: c.Participants[i].UID, State: CallOngoing, IsJoined: true, JoinedAt: 100, Since: 100}
			}
		}
		return c
	}
	group := func(status string, ps ...CallParticipant) Call {
		return Call{SessionID: "s", Initiator: "a", Receiver: "g", ReceiverType: ReceiverGroup, Type: CallVideo, Status: status,
			StartedAt: 100, Since: 100, Participants: ps}
	}
	in := func(uid string) CallParticipant {
		return CallParticipant{UID: uid, State: CallOngoing, IsJoined: true, JoinedAt: 100, Since: 100}
	}
	tests := []struct {
		name       string
		call       Call
		actor      string
		member     bool
		status     string
		wantCode   Code
		wantStatus string
		wantStates map[string]string
	}{
		{"receiver answers", oneToOne(CallInitiated), "b", false, CallOngoing, "", CallOngoing, map[string]string{"a": CallOngoing, "b": CallOngoing}},
		{"initiator cannot answer", oneToOne(CallInitiated), "a", false, CallOngoing, CodeCallInvalidStatus, "", nil},
		{"receiver rejects", oneToOne(CallInitiated), "b", false, CallRejected, "", CallRejected, map[string]string{"a": CallEnded, "b": CallRejected}},
		{"receiver busy", oneToOne(CallInitiated), "b", false, CallBusy, "", CallBusy, map[string]string{"b": CallRejected}},
		{"initiator cannot reject", oneToOne(CallInitiated), "a", false, CallRejected, CodeCallInvalidStatus, "", nil},
		{"initiator cancels", oneToOne(CallInitiated), "a", false, CallCancelled, "", CallCancelled, map[string]string{"a": CallEnded, "b": CallUnanswered}},
		{"receiver cannot cancel", oneToOne(CallInitiated), "b", false, CallCancelled, CodeCallInvalidStatus, "", nil},
		{"unanswered", oneToOne(CallInitiated), "b", false, CallUnanswered, "", CallUnanswered, map[string]string{"b": CallUnanswered}},
		{"end before start", oneToOne(CallInitiated), "a", false, CallEnded, CodeCallNotStarted, "", nil},
		{"stranger", oneToOne(CallInitiated), "c", false, CallOngoing, CodeCallNotAPart, "", nil},
		{"unknown status", oneToOne(CallInitiated), "b", false, "accepted", CodeBadRequest, "", nil},
		{"initiated again", oneToOne(CallInitiated), "a", false, CallInitiated, CodeBadRequest, "", nil},
		{"either ends", oneToOne(CallOngoing), "b", false, CallEnded, "", CallEnded, map[string]string{"a": CallEnded, "b": CallEnded}},
		{"answer twice", oneToOne(CallOngoing), "b", false, CallOngoing, CodeCallUserAlreadyJoined, "", nil},
		{"reject ongoing", oneToOne(CallOngoing), "b", false, CallRejected, CodeCallOngoingToInvalid, "", nil},
		{"cancel ongoing", oneToOne(CallOngoing), "a", false, CallCancelled, CodeCallOngoingToInvalid, "", nil},
		{"ended is final", oneToOne(CallEnded), "a", false, CallOngoing, CodeCallTerminated, "", nil},
		{"rejected is final", oneToOne(CallRejected), "b", false, CallEnded, CodeCallTerminated, "", nil},
		{"member joins", group(CallOngoing, in("a"), in("b")), "c", true, CallOngoing, "", CallOngoing, map[string]string{"c": CallOngoing}},
		{"non-member cannot join", group(CallOngoing, in("a")), "c", false, CallOngoing, CodeCallNotAPart, "", nil},
		{"member joins twice", group(CallOngoing, in("a"), in("b")), "b", true, CallOngoing, CodeCallGroupAlreadyJoined, "", nil},
		{"one leaves, call goes on", group(CallOngoing, in("a"), in("b")), "b", true, CallEnded, "", CallOngoing, map[string]string{"a": CallOngoing, "b": CallEnded}},
		{"last leaves, call ends", group(CallOngoing, in("a"), CallParticipant{UID: "b", State: CallEnded, IsJoined: true}), "a", true, CallEnded, "", CallEnded, map[string]string{"a": CallEnded}},
		{"leave twice", group(CallOngoing, in("a"), CallParticipant{UID: "b", State: CallEnded, IsJoined: true}), "b", true, CallEnded, CodeCallGroupAlreadyLeft, "", nil},
		{"rejoin after leaving the group", group(CallOngoing, in("a"), CallParticipant{UID: "b", State: CallEnded, IsJoined: true}), "b", false, CallOngoing, CodeCallNotAPart, "", nil},
		{"leave after leaving the group", group(CallOngoing, in("a"), in("b")), "b", false, CallEnded, "", CallOngoing, map[string]string{"b": CallEnded}},
		{"rejoin after leaving", group(CallOngoing, in("a"), CallParticipant{UID: "b", State: CallEnded, IsJoined: true}), "b", true, CallOngoing, "", CallOngoing, map[string]string{"b": CallOngoing}},
		{"member declines ongoing group call", group(CallOngoing, in("a")), "c", true, CallRejected, "", CallOngoing, map[string]string{"c": CallRejected}},
		{"member declines ringing group call", group(CallInitiated, CallParticipant{UID: "a", State: CallUnanswered}), "c", true, CallBusy, "", CallInitiated, map[string]string{"c": CallRejected}},
		{"member answers group call", group(CallInitiated, CallParticipant{UID: "a", State: CallUnanswered}), "c", true, CallOngoing, "", CallOngoing, map[string]string{"a": CallOngoing, "c": CallOngoing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.call
			_, err := applyCallStatus(&c, tt.actor, tt.member, tt.status, 160)
			if got := ErrorCode(err); got != tt.wantCode {
				t.Fatalf("code = %q, want %q (%v)", got, tt.wantCode, err)
			}
			if err != nil {
				return
			}
			if c.Status != tt.wantStatus {
				t.Errorf("status = %q, want %q", c.Status, tt.wantStatus)
			}
			for uid, want := range tt.wantStates {
				i := c.participant(uid)
				if i < 0 || c.Participants[i].State != want {
					t.Errorf("%s: participants %+v, want state %q", uid, c.Participants, want)
				}
			}
		})
	}
}

// Minutes run per type: time before a switch counts as the old type.
func TestCallAccrue(t *testing.T) {
	c := Call{Status: CallOngoing, Type: CallAudio, Since: 100,
		Participants: []CallParticipant{{UID: "a", State: CallOngoing, Since: 100}, {UID: "b", State: CallEnded, AudioSeconds: 5}}}
	if got := c.Accrue(130); len(got) != 1 || got[0] != "a" {
		t.Fatalf("changed = %v", got)
	}
	c.Type = CallVideo
	c.Accrue(150)
	if c.AudioSeconds != 30 || c.VideoSeconds != 20 || c.Participants[0].AudioSeconds != 30 || c.Participants[0].VideoSeconds != 20 {
		t.Errorf("after switch: %+v", c)
	}
	if c.Participants[1].AudioSeconds != 5 {
		t.Errorf("a participant who left accrued: %+v", c.Participants[1])
	}
}
