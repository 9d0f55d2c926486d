package chat

// The call session's state machine (docs/calls.md): applyCallStatus decides every status
// change, and Accrue counts minutes.

// terminalCall reports whether a session in status has finished.
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
