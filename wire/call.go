package wire

import (
	"encoding/json"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// appendCallData appends a call message's data: its action, the call's metadata, and
// entities by (who changed the call), for (the message's receiver) and on (the call as the
// change left it, stored with it), the call's parties in on.entity.data.entities as the SDK
// reads them: sender its initiator (the message's target user), receiver its user or group.
// on.entity.data.metadata repeats the call's metadata, as the hosted call messages have it.
// on.entity.wsChannel is the hosted call channel's credentials: natter runs no channel of
// its own (the calls SDK joins by session id), so its three fields are empty strings.
func appendCallData(b []byte, m chat.Message) []byte {
	var d struct {
		Action   string          `json:"action"`
		Metadata json.RawMessage `json:"metadata"`
		Entities struct {
			On struct {
				Entity json.RawMessage `json:"entity"`
			} `json:"on"`
		} `json:"entities"`
	}
	_ = json.Unmarshal(StoredObject(m.Data), &d)
	meta := d.Metadata
	if len(meta) == 0 || meta[0] != '{' {
		meta = nil
	}
	b = append(b, `{"action":`...)
	b = AppendString(b, d.Action)
	if meta != nil {
		b = append(b, `,"metadata":`...)
		b = append(b, meta...)
	}
	b = append(b, `,"entities":{"by":`...)
	b = appendUserEntity(b, m.SenderEntity, "")
	b = append(b, `,"for":`...)
	b = appendReceiver(b, m)
	if ent := d.Entities.On.Entity; len(ent) > 1 && ent[len(ent)-1] == '}' {
		var call struct {
			Receiver    string           `json:"receiver"`
			InitiatedAt int64            `json:"initiatedAt"`
			JoinedAt    *int64           `json:"joinedAt"`
			WSChannel   *json.RawMessage `json:"wsChannel"`
		}
		_ = json.Unmarshal(ent, &call)
		b = append(b, `,"on":{"entity":`...)
		b = append(b, ent[:len(ent)-1]...)
		if call.JoinedAt == nil {
			// Before anyone answered, the hosted messages give the initiation time.
			b = append(b, `,"joinedAt":`...)
			b = strconv.AppendInt(b, call.InitiatedAt, 10)
		}
		if call.WSChannel == nil {
			b = append(b, `,"wsChannel":{"secret":"","service":"","identity":""}`...)
		}
		b = append(b, `,"data":{"entities":{"sender":`...)
		initiator := chat.Entity{UID: m.TargetUID}
		if m.TargetUser != nil {
			initiator = *m.TargetUser
		}
		b = appendUserEntity(b, initiator, "")
		b = append(b, `,"receiver":`...)
		switch {
		case m.ReceiverType == chat.ReceiverGroup:
			b = appendReceiver(b, m)
		case call.Receiver == m.Receiver:
			b = appendUserEntity(b, m.ReceiverEntity, m.ConversationID)
		default: // the receiver changed the call
			b = appendUserEntity(b, m.SenderEntity, m.ConversationID)
		}
		b = append(b, '}')
		if meta != nil {
			b = append(b, `,"metadata":`...)
			b = append(b, meta...)
		}
		b = append(b, `}},"entityType":"call"}`...)
	}
	return append(b, "}}"...)
}

// callEventData renders the hosted call_started, call_participant_joined/left and
// call_ended data (API-reference §7): the session and its occupants, snake_case and
// stringly as the hosted service sends them.
func callEventData(sub chat.Subject) []byte {
	c := sub.Ref.Call
	type occupantJSON struct {
		JoinedAt  int64  `json:"joined_at"`
		AudioCall string `json:"audio_call"`
		LeftAt    int64  `json:"left_at,omitempty"`
		Name      string `json:"name"`
		UID       string `json:"uid"`
	}
	occ := func(o chat.EventOccupant) occupantJSON {
		return occupantJSON{JoinedAt: o.JoinedAt, AudioCall: strconv.FormatBool(o.Audio), LeftAt: o.LeftAt, Name: o.Name, UID: o.UID}
	}
	switch sub.Trigger {
	case chat.TriggerCallStarted:
		return mustJSON(map[string]any{"created_at": c.CreatedAt, "sessionId": c.SessionID})
	case chat.TriggerCallEnded:
		all := make([]occupantJSON, len(c.Occupants))
		for i, o := range c.Occupants {
			all[i] = occ(o)
		}
		return mustJSON(map[string]any{"all_occupants": all, "destroyed_at": c.DestroyedAt, "created_at": c.CreatedAt, "sessionId": c.SessionID})
	}
	var o occupantJSON
	if len(c.Occupants) > 0 {
		o = occ(c.Occupants[0])
	}
	return mustJSON(map[string]any{"occupant": o, "sessionId": c.SessionID})
}
