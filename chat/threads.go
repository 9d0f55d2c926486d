package chat

import (
	"context"
	"fmt"
	"slices"
)

// Threads (issue 38): who follows a message's thread, the list of the threads a user
// follows (GET /threads, the SDK's ThreadsRequestBuilder), and the subscription endpoints
// (POST and DELETE /messages/{id}/thread/subscription). A thread is its parent message;
// there is no thread id. A user follows a thread when it subscribes, and on its own when it
// replies in it, is mentioned in a reply, or wrote the parent when the first reply came
// (replySubscribers). Unsubscribing keeps the user's row as "unsubscribed", so that a later
// reply does not notify it as a bystander (docs/notifications.md); the list shows only the
// threads followed.

// Thread subscription states, as the store keeps them and the notification rule reads them.
const (
	ThreadNone         = 0 // no row: the user never followed nor left the thread
	ThreadSubscribed   = 1
	ThreadUnsubscribed = 2
)

// MaxThreadLimit is the most threads a page lists (the hosted limit's maximum).
const MaxThreadLimit = 1000

// DefaultThreadLimit is a page's size when the request names none (the hosted default).
const DefaultThreadLimit = 100

// ThreadPage is a threads-list request: newest first (affix prepend, the default) from a
// cursor, or oldest first after it (append). The cursor is the thread's updatedAt, with the
// parent's id to break ties; without the id, the threads updated at exactly UpdatedAt are
// listed again.
type ThreadPage struct {
	Affix            string
	UpdatedAt        int64
	CursorID         string
	Limit            int
	ParticipatedByMe *bool
	// UID or GUID scope the list to the acting user's one-to-one conversation with UID, or
	// to the group GUID's conversation (the SDK's setUid and setGuid).
	UID, GUID string
}

// ThreadQuery is a validated ThreadPage for the store.
type ThreadQuery struct {
	Append    bool
	UpdatedAt int64 // 0: from the newest (prepend) or the oldest (append)
	ID        int64 // 0: the cursor is updatedAt alone, inclusive
	Limit     int
	// ConversationID limits the list to one conversation ("" for all).
	ConversationID string
}

// ThreadRow is one followed thread as the store lists it.
type ThreadRow struct {
	ParentID, UpdatedAt, LastReplyID int64
}

// Thread is one entry of a user's list: the parent with its thread's facts.
type Thread struct {
	Parent         Message
	LastReply      *Message
	UpdatedAt      int64
	UnreadReplies  int64
	UnreadMentions int64
}

// ThreadList is one page of threads and where the next begins.
type ThreadList struct {
	Threads       []Thread
	Limit         int
	NextAffix     string
	NextUpdatedAt int64
	NextID        int64
}

// ThreadStore is the read side of threads.
type ThreadStore interface {
	// FollowedThreads lists the threads uid follows, in the query's order, leaving out
	// those of the groups it is no longer a member of.
	FollowedThreads(ctx context.Context, appID, uid string, q ThreadQuery) ([]ThreadRow, error)
	// ThreadUnread sets each parent's UnreadReplies (the replies from others after uid's read
	// marker of the conversation) and returns its unread mentions of uid, by parent id;
	// each costs a few index steps, however long the thread.
	ThreadUnread(ctx context.Context, appID, uid string, parents []Message) (map[int64]int64, error)
	// ThreadStates are the subscription states of uids in the thread of parentID
	// (ThreadSubscribed or ThreadUnsubscribed; a user without a row is left out).
	ThreadStates(ctx context.Context, appID string, parentID int64, uids []string) (map[string]int, error)
}

// ThreadTx changes a user's subscription inside a transaction.
type ThreadTx interface {
	// ThreadState is uid's state in the thread of parentID (ThreadNone without a row).
	ThreadState(appID string, parentID int64, uid string) (int, error)
	// SetThreadState stores uid's state (ThreadSubscribed or ThreadUnsubscribed) in
	// parent's thread; at is the row's new updatedAt.
	SetThreadState(t ThreadRef, uid string, state int, at int64) error
}

// ThreadRef names a thread for the store: its parent, conversation and, for a group's, the
// group (the list leaves out the groups a user left).
type ThreadRef struct {
	AppID, ConversationID, GUID string
	ParentID                    int64
}

// threadOf is the thread of parent.
func threadOf(parent *Message) ThreadRef {
	t := ThreadRef{AppID: parent.AppID, ConversationID: parent.ConversationID, ParentID: parent.ID}
	if parent.ReceiverType == ReceiverGroup {
		t.GUID = parent.Receiver
	}
	return t
}

const (
	affixAppend  = "append"
	affixPrepend = "prepend"
)

// replySubscribers decides who a reply makes follow its thread: its sender and the users it
// mentions always (replying or being mentioned follows a thread again after leaving it), and
// the parent's author with the thread's first reply unless it chose otherwise before
// (ifNew). The app (app_system) follows nothing.
func replySubscribers(parent, reply *Message) (always, ifNew []string) {
	add := func(list []string, uid string) []string {
		if uid == "" || uid == SystemUID || slices.Contains(list, uid) {
			return list
		}
		return append(list, uid)
	}
	always = add(always, reply.Sender)
	for _, e := range reply.Mentions {
		always = add(always, e.UID)
	}
	if parent.ReplyCount == 0 && !slices.Contains(always, parent.Sender) {
		ifNew = add(ifNew, parent.Sender)
	}
	return always, ifNew
}

// threadQuery validates a page.
func (pg ThreadPage) query() (ThreadQuery, error) {
	f := fieldErrors{}
	q := ThreadQuery{Limit: pg.Limit, UpdatedAt: pg.UpdatedAt}
	if q.Limit == 0 {
		q.Limit = DefaultThreadLimit
	}
	switch pg.Affix {
	case "", affixPrepend:
	case affixAppend:
		q.Append = true
	default:
		f.add("affix", "affix must be append or prepend.")
	}
	if pg.CursorID != "" {
		id, err := ParseMessageID(pg.CursorID)
		if err != nil {
			f.add("id", "id must be a message id, the id of meta.next.")
		}
		q.ID = id
	}
	if pg.ParticipatedByMe != nil && !*pg.ParticipatedByMe {
		f.add("participatedByMe", "natter lists only the threads the user follows: participatedByMe must be true or left out.")
	}
	return q, f.err()
}

// ListThreads lists the threads the acting user follows, newest first: each parent as a
// message of the user's, with its reply count, last reply, and the replies and mentions of
// the user it has not read.
func (s *Service) ListThreads(ctx context.Context, p Principal, page ThreadPage) (ThreadList, error) {
	q, err := page.query()
	if err != nil {
		return ThreadList{}, err
	}
	u, err := s.actingUser(ctx, p)
	if err != nil {
		return ThreadList{}, err
	}
	switch {
	case page.UID != "":
		other, err := s.User(ctx, p, page.UID)
		if err != nil {
			return ThreadList{}, err
		}
		q.ConversationID = ConversationID(u.UID, other.UID)
	case page.GUID != "":
		g, err := s.groupAs(ctx, p.App.ID, page.GUID, u.UID)
		if err != nil {
			return ThreadList{}, err
		}
		q.ConversationID = GroupConversationID(g.GUID)
	}
	rows, err := s.store.FollowedThreads(ctx, p.App.ID, u.UID, q)
	if err != nil {
		return ThreadList{}, internal("list threads", err)
	}
	l := ThreadList{Limit: q.Limit, NextAffix: affixPrepend, NextUpdatedAt: q.UpdatedAt, NextID: q.ID}
	if q.Append {
		l.NextAffix = affixAppend
	}
	if len(rows) == 0 {
		return l, nil
	}
	ids := make([]int64, 0, 2*len(rows))
	for _, r := range rows {
		ids = append(ids, r.ParentID)
		if r.LastReplyID != 0 {
			ids = append(ids, r.LastReplyID)
		}
	}
	ms, err := s.store.MessagesByID(ctx, p.App.ID, u.UID, ids)
	if err != nil {
		return ThreadList{}, internal("read threads", err)
	}
	parents := make([]Message, 0, len(rows))
	for _, r := range rows {
		if m, ok := ms[r.ParentID]; ok {
			parents = append(parents, m)
		}
	}
	mentions, err := s.store.ThreadUnread(ctx, p.App.ID, u.UID, parents)
	if err != nil {
		return ThreadList{}, internal("count thread replies", err)
	}
	byID := make(map[int64]Message, len(parents))
	for _, m := range parents {
		byID[m.ID] = m
	}
	for _, r := range rows {
		m, ok := byID[r.ParentID]
		if !ok {
			continue // gone since the row was read
		}
		t := Thread{Parent: m, UpdatedAt: r.UpdatedAt, UnreadReplies: m.UnreadReplies, UnreadMentions: mentions[m.ID]}
		if last, ok := ms[r.LastReplyID]; ok {
			t.LastReply = &last
		}
		l.Threads = append(l.Threads, t)
	}
	last := rows[len(rows)-1]
	l.NextUpdatedAt, l.NextID = last.UpdatedAt, last.ParentID
	return l, nil
}

// SubscribeThread makes the acting user follow the thread of the message id, which it must
// be able to see; any message but a reply or an action has a thread, even one without
// replies yet. Subscribing again changes nothing.
func (s *Service) SubscribeThread(ctx context.Context, p Principal, id string) (string, error) {
	return s.setThreadState(ctx, p, id, ThreadSubscribed)
}

// UnsubscribeThread makes the acting user stop following the thread of the message id.
// Unsubscribing from a thread not followed is no error; the user is then not notified of
// its replies as a bystander either (docs/notifications.md).
func (s *Service) UnsubscribeThread(ctx context.Context, p Principal, id string) (string, error) {
	return s.setThreadState(ctx, p, id, ThreadUnsubscribed)
}

func (s *Service) setThreadState(ctx context.Context, p Principal, id string, state int) (string, error) {
	parent, u, err := s.message(ctx, p, id)
	if err != nil {
		return "", err
	}
	if u.UID == "" {
		if _, err := p.actor(); err != nil {
			return "", err
		}
	}
	switch {
	case parent.ParentID != 0:
		return "", Errorf(CodeMessageThreadNesting, "The message with id %d is a thread reply: a reply has no thread of its own.", parent.ID)
	case parent.Category == CategoryAction:
		return "", Errorf(CodeWrongThreadCategory, "The message with id %d is an action message, which has no thread.", parent.ID)
	case parent.DeletedAt != 0 && state == ThreadSubscribed:
		return "", errDeleted(parent.Head())
	}
	now := s.now()
	err = s.transact(ctx, func(tx Tx, cs *Changes) error {
		was, err := tx.ThreadState(p.App.ID, parent.ID, u.UID)
		if err != nil || was == state {
			return err
		}
		cs.Add(&Change{Kind: ChangeConversation, App: p.App.ID, Conversation: parent.ConversationID, MessageID: parent.ID, UIDs: []string{u.UID}})
		return tx.SetThreadState(threadOf(&parent), u.UID, state, now)
	})
	if err != nil {
		return "", pinErr("change thread subscription", err)
	}
	if state == ThreadSubscribed {
		return fmt.Sprintf("The user %s has subscribed to the thread of message %d.", u.UID, parent.ID), nil
	}
	return fmt.Sprintf("The user %s has unsubscribed from the thread of message %d.", u.UID, parent.ID), nil
}
