package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// The threads a user follows (GET /threads) and following one
// (POST/DELETE /messages/{id}/thread/subscription): chat/threads.go.

func (s *Server) listThreads(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerThreads(w, r, p, chat.ThreadPage{})
}

// listUserThreads and listGroupThreads are the SDK's ThreadsRequestBuilder with setUid and
// setGuid: the user's threads in one conversation.
func (s *Server) listUserThreads(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerThreads(w, r, p, chat.ThreadPage{UID: r.PathValue("uid")})
}

func (s *Server) listGroupThreads(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.answerThreads(w, r, p, chat.ThreadPage{GUID: r.PathValue("guid")})
}

func (s *Server) answerThreads(w http.ResponseWriter, r *http.Request, p chat.Principal, scope chat.ThreadPage) error {
	q := newQuery(r)
	page := chat.ThreadPage{
		UID:       scope.UID,
		GUID:      scope.GUID,
		Affix:     q.str("affix"),
		UpdatedAt: int64(q.integer("updatedAt", 0, 0, 1<<62)),
		CursorID:  q.str("id"),
		Limit:     q.pageSize(chat.DefaultThreadLimit, 1, chat.MaxThreadLimit),
	}
	if q.v.Has("participatedByMe") {
		b := q.boolean("participatedByMe")
		page.ParticipatedByMe = &b
	}
	// Counts come with every thread: withUnreadReplyCount and withMentionCount are read
	// only to refuse a value that is not a boolean.
	q.boolean("withUnreadReplyCount")
	q.boolean("withMentionCount")
	if err := q.err(); err != nil {
		return err
	}
	l, err := s.svc.ListThreads(r.Context(), p, page)
	if err != nil {
		return err
	}
	writeThreadList(w, r, l)
	return nil
}

// threadListMeta is the threads list's meta: the hosted service's current and next, next
// with the parent's id that breaks ties between threads updated in the same second.
type threadListMeta struct {
	Current struct {
		Limit int `json:"limit"`
		Count int `json:"count"`
	} `json:"current"`
	Next struct {
		Affix     string `json:"affix"`
		UpdatedAt int64  `json:"updatedAt"`
		ID        string `json:"id,omitempty"`
	} `json:"next"`
}

// writeThreadList writes {"data":[threads],"meta":…}: each thread is its parent message
// as the message lists answer it, its updatedAt the thread's (the list's cursor), with the
// thread's keys after it: parentMessageId, replyCount, lastReply, threadSubscribed,
// unreadReplyCount (the SDK's name) and unreadMentionsCount.
func writeThreadList(w http.ResponseWriter, r *http.Request, l chat.ThreadList) {
	var meta threadListMeta
	meta.Current.Limit, meta.Current.Count = l.Limit, len(l.Threads)
	meta.Next.Affix, meta.Next.UpdatedAt = l.NextAffix, l.NextUpdatedAt
	if l.NextID != 0 {
		meta.Next.ID = strconv.FormatInt(l.NextID, 10)
	}
	b := bytesPool.Get().(*[]byte)
	defer bytesPool.Put(b)
	out := append((*b)[:0], `{"data":[`...)
	for i, t := range l.Threads {
		if i > 0 {
			out = append(out, ',')
		}
		m := t.Parent
		m.UpdatedAt, m.UnreadReplies, m.Tags, m.ThreadSubscribed = t.UpdatedAt, 0, nil, false
		out = wire.AppendMessage(out, m)
		out = out[:len(out)-1] // the message's closing brace: the thread's keys follow
		out = append(out, `,"parentMessageId":"`...)
		out = strconv.AppendInt(out, m.ID, 10)
		out = append(out, '"')
		if m.ReplyCount == 0 { // the message has it only when it has replies
			out = append(out, `,"replyCount":0`...)
		}
		if t.LastReply != nil {
			reply := *t.LastReply
			reply.Tags = nil
			out = append(out, `,"lastReply":`...)
			out = wire.AppendMessage(out, reply)
		}
		out = append(out, `,"threadSubscribed":true,"unreadReplyCount":`...)
		out = strconv.AppendInt(out, t.UnreadReplies, 10)
		out = append(out, `,"unreadMentionsCount":`...)
		out = strconv.AppendInt(out, t.UnreadMentions, 10)
		out = append(out, '}')
	}
	out = append(out, `],"meta":`...)
	out = appendJSON(out, meta)
	out = append(out, "}\n"...)
	*b = out
	writeBody(w, r, http.StatusOK, out)
}

func (s *Server) subscribeThread(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	msg, err := s.svc.SubscribeThread(r.Context(), p, r.PathValue("id"))
	return answerThreadState(w, r, msg, err)
}

func (s *Server) unsubscribeThread(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	msg, err := s.svc.UnsubscribeThread(r.Context(), p, r.PathValue("id"))
	return answerThreadState(w, r, msg, err)
}

// answerThreadState answers {"success": true, "message"}: the hosted example's success,
// and the message the SDK's acknowledgement reads.
func answerThreadState(w http.ResponseWriter, r *http.Request, msg string, err error) error {
	if err != nil {
		return err
	}
	writeData(w, r, map[string]any{"success": true, "message": msg}, nil)
	return nil
}
