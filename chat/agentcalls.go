package chat

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// What the agent workers (package agent) do through the service: read what a job's call
// needs, post and edit the bot's answer as the bot, and show the bot typing.

// ErrAgentGone reports a job with nothing left to do: its agent was deleted or
// deactivated, or the message it answers was deleted.
var ErrAgentGone = errors.New("agent or message gone")

// AgentCall is what a job's call to the endpoint needs.
type AgentCall struct {
	Job     AgentJob
	Agent   Agent
	Headers map[string]string // opened
	Bot     User
	Trigger Message
	History []Message // oldest first, without the trigger
	// Where the answer goes: a user (the trigger's sender) or a group, and in a thread
	// when the trigger was in one.
	ReceiverType string
	Receiver     string
	ParentID     int64
}

// PrepareAgentCall reads what job's call needs; ErrAgentGone when there is nothing to do.
func (s Agents) PrepareAgentCall(ctx context.Context, job AgentJob) (AgentCall, error) {
	c := AgentCall{Job: job}
	a, err := s.store.Agent(ctx, job.AppID, job.AgentUID)
	if errors.Is(err, ErrNotFound) || err == nil && !a.IsActive {
		return c, ErrAgentGone
	}
	if err != nil {
		return c, err
	}
	c.Agent = a
	if c.Headers, err = s.AgentHeaders(ctx, a); err != nil {
		return c, err
	}
	bot, err := s.store.User(ctx, job.AppID, a.UID)
	if errors.Is(err, ErrNotFound) || err == nil && !bot.Active() {
		return c, ErrAgentGone
	}
	if err != nil {
		return c, err
	}
	c.Bot = bot
	m, err := s.store.Message(ctx, job.AppID, job.MessageID, "")
	if errors.Is(err, ErrNotFound) || err == nil && m.DeletedAt != 0 {
		return c, ErrAgentGone
	}
	if err != nil {
		return c, err
	}
	c.Trigger = m
	c.ReceiverType, c.Receiver, c.ParentID = m.ReceiverType, m.Receiver, m.ParentID
	if m.ReceiverType == ReceiverUser {
		c.Receiver = m.Sender
	} else if member, err := s.IsMember(ctx, job.AppID, m.Receiver, a.UID); err != nil {
		return c, err
	} else if !member { // mentioned where it cannot answer: not called
		return c, ErrAgentGone
	}
	if a.HistoryLength > 0 {
		hs, err := s.store.AgentHistory(ctx, job.AppID, m.ConversationID, m.ParentID, m.ID, a.HistoryLength)
		if err != nil {
			return c, err
		}
		for i := len(hs) - 1; i >= 0; i-- {
			c.History = append(c.History, hs[i])
		}
	}
	return c, nil
}

// botPrincipal is the app acting as the call's bot.
func (s *Service) botPrincipal(ctx context.Context, c AgentCall) (Principal, error) {
	app, err := s.lookupApp(ctx, c.Job.AppID)
	if err != nil {
		return Principal{}, err
	}
	return Principal{App: app, Scope: ScopeFullAccess, Actor: c.Bot.UID}, nil
}

// PostAgentReply sends the bot's text message with data (a data object: text, metadata)
// where the call's answer goes, as any send (announced); ErrAgentGone, and nothing sent, when
// the agent was deleted or deactivated meanwhile.
func (s Agents) PostAgentReply(ctx context.Context, c AgentCall, data json.RawMessage) (Message, error) {
	a, err := s.store.Agent(ctx, c.Job.AppID, c.Agent.UID)
	if errors.Is(err, ErrNotFound) || err == nil && !a.IsActive {
		return Message{}, ErrAgentGone
	}
	if err != nil {
		return Message{}, err
	}
	p, err := s.botPrincipal(ctx, c)
	if err != nil {
		return Message{}, err
	}
	in := MessageSend{Receiver: c.Receiver, ReceiverType: c.ReceiverType, Category: CategoryMessage, Type: "text", Data: data}
	var parent *Message
	if c.ParentID != 0 {
		pm, err := s.store.Message(ctx, c.Job.AppID, c.ParentID, "")
		if err != nil {
			return Message{}, err
		}
		parent = &pm
	}
	return s.sendAs(ctx, p, c.Bot, in, parent)
}

// EditAgentReply replaces the bot's message id's data.text (and data.metadata when set),
// as the bot, as any edit (its action message announced).
func (s Agents) EditAgentReply(ctx context.Context, c AgentCall, id int64, data json.RawMessage) error {
	p, err := s.botPrincipal(ctx, c)
	if err != nil {
		return err
	}
	_, err = s.EditMessage(ctx, p, strconv.FormatInt(id, 10), MessageEdit{Data: data})
	return err
}

// AgentTyping shows (or stops showing) the call's bot typing where its answer goes. It is a
// change on the feed (ChangeTyping), as the bot's messages are, not an event on the bus as a
// client's typing is: the two would travel apart (the bus, the change log) and a socket
// could see the bot's answer before "typing started", or "ended" before the last edit. On
// PostgreSQL that costs one change_log row per call (started, its repeats, ended), beside
// the answer's own writes; on SQLite, one node, nothing is written.
func (s Agents) AgentTyping(ctx context.Context, c AgentCall, started bool) error {
	ch := &Change{Kind: ChangeTyping, App: c.Job.AppID, Actor: c.Bot.UID, Subject: TypingEnded}
	if started {
		ch.Subject = TypingStarted
	}
	if c.ReceiverType == ReceiverGroup {
		ch.GUID = c.Receiver
	} else {
		ch.UIDs = []string{c.Receiver}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentTypingTimeout)
	defer cancel()
	if log, ok := s.store.(ChangeLog); !ok || log.Node() == "" {
		s.announce(ctx, []*Change{ch}) // one node: no other node to tell
		return nil
	}
	return s.transact(ctx, func(_ Tx, cs *Changes) error {
		cs.Add(ch)
		return nil
	})
}

// agentTypingTimeout bounds the write of a bot's typing indicator: a database that does not
// answer costs the indicator, not the answer.
const agentTypingTimeout = 5 * time.Second
