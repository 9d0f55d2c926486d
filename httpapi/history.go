package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// The query parameters each message list reads. A name a list does not read is ignored, as
// the hosted service ignores it: CometChat's SDK sends its message builder's whole state to
// every message list (per_page, withThreadSubscribed, withParent, mentionsWithTagInfo,
// mentionsWithBlockedInfo, …;
// docs/api-decisions.md lists them), and a list that refused one would leave the UI Kit's
// conversation in its error state.
var (
	listFilters = []string{"hideMessagesFromBlockedUsers", "affix", "id", "sentAt", "fromTimestamp", "toTimestamp", "category", "categories",
		"type", "types", "sender", "searchKey", "hideDeleted", "onlyDeleted", "hideReplies", "hasReactions",
		"hasAttachments", "attachmentTypes", "hasLinks", "withTags", "tags", "hasMentions", "mentionedUids", "myMentionsOnly", "pinned", "saved",
		"hideQuotedMessages", "onlyInteractionGoalCompleted"}
	// The app's list (and a user's across its conversations) also takes the hosted file's
	// newer filters, which it documents there only; unread and count together are the client
	// SDKs' unread counts across conversations (unread alone is not read here: it takes a
	// conversation).
	allMessagesFilters = append(slices.Clone(listFilters), "receiverType", "conversationId", "senders",
		"sentAt[from]", "sentAt[to]", "updatedAt[from]", "updatedAt[to]", "editedAt[from]", "editedAt[to]", "unread", "count")
	conversationFilters = append(slices.Clone(listFilters), "unread", "undelivered", "count")
	// A thread's replies take the same filters as a conversation (the SDK's thread builder
	// is its message builder with a parent id), and its first page by number.
	threadFilters = append(slices.Clone(listFilters), "page")
)

// messagePage reads a message list's query: the names in reads, and a page's size under any
// of its names.
func messagePage(r *http.Request, reads []string) (chat.MessagePage, bool, error) {
	q := newQuery(r)
	for name := range q.v {
		if !slices.Contains(reads, name) && !slices.Contains(pageSizeNames, name) {
			delete(q.v, name)
		}
	}
	p := chat.MessagePage{
		Affix:           q.str("affix"),
		CursorID:        q.str("id"),
		SentAt:          int64(q.integer("sentAt", 0, 0, 1<<62)),
		Limit:           q.pageSize(0, 1, chat.MaxMessageLimit),
		FromTimestamp:   int64(q.integer("fromTimestamp", 0, 0, 1<<62)),
		ToTimestamp:     int64(q.integer("toTimestamp", 0, 0, 1<<62)),
		Categories:      append(q.list("category"), q.list("categories")...),
		Types:           append(q.list("type"), q.list("types")...),
		Sender:          q.str("sender"),
		ReceiverType:    q.str("receiverType"),
		ConversationID:  q.str("conversationId"),
		SearchKey:       q.str("searchKey"),
		HideDeleted:     q.boolean("hideDeleted"),
		OnlyDeleted:     q.boolean("onlyDeleted"),
		HideReplies:     q.boolean("hideReplies"),
		HasReactions:    q.boolean("hasReactions"),
		HasAttachments:  q.boolean("hasAttachments"),
		AttachmentTypes: q.list("attachmentTypes"),
		HasLinks:        q.boolean("hasLinks"),
		Tags:            q.list("tags"),
		Unread:          q.boolean("unread"),
		Undelivered:     q.boolean("undelivered"),
		Count:           q.boolean("count"),
		HasMentions:     q.boolean("hasMentions"),
		MentionedUIDs:   q.list("mentionedUids"),
		MyMentionsOnly:  q.boolean("myMentionsOnly"),
		HideBlocked:     q.boolean("hideMessagesFromBlockedUsers"),
		Pinned:          q.boolean("pinned"),
		Saved:           q.boolean("saved"),
		Senders:         q.list("senders"),
		SentRange:       q.timeRange("sentAt"),
		UpdatedRange:    q.timeRange("updatedAt"),
		EditedRange:     q.timeRange("editedAt"),
		HideQuoted:      q.boolean("hideQuotedMessages"),
		// The SDK's setInteractionGoalCompletedOnly sends 1.
		OnlyGoalCompleted: q.boolean("onlyInteractionGoalCompleted"),
	}
	// A thread's page-based paging is served from its first page only, by cursor after that.
	if pg := q.str("page"); pg != "" && pg != "1" {
		q.fail("page", "Only page 1 is served: page on with id and affix, from meta.next.")
	}
	return p, q.boolean("withTags"), q.err()
}

// messageListMeta is a message list's meta: the hosted service's current and next, and
// its pagination and cursor (whose id is a number in its examples). A cursor list knows no
// total: pagination describes the page itself, and whether another may follow
// (docs/api-decisions.md).
type messageListMeta struct {
	Pagination pagination `json:"pagination"`
	Current    struct {
		Limit int `json:"limit"`
		Count int `json:"count"`
	} `json:"current"`
	Next struct {
		Affix  string `json:"affix"`
		SentAt int64  `json:"sentAt,omitempty"`
		ID     string `json:"id"`
	} `json:"next"`
	Cursor struct {
		ID    int64  `json:"id"`
		Affix string `json:"affix"`
	} `json:"cursor"`
}

// appendJSON appends v as encoding/json writes it, without HTML escaping.
func appendJSON(b []byte, v any) []byte {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // natter's own types: they always encode
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// writeMessageList writes {"data":[messages],"meta":…}, the messages hand-encoded.
func writeMessageList(w http.ResponseWriter, r *http.Request, l chat.MessageList, withTags bool) {
	var meta messageListMeta
	meta.Current.Limit, meta.Current.Count = l.Limit, len(l.Messages)
	meta.Next.Affix, meta.Next.SentAt, meta.Next.ID = l.NextAffix, l.NextSentAt, strconv.FormatInt(l.NextID, 10)
	meta.Cursor.ID, meta.Cursor.Affix = l.NextID, l.NextAffix
	// total_pages is what the SDK's MessagesRequest pages by: at 1 it answers its next
	// fetch in the same direction with nothing, without asking. A full page may have more
	// after it, so it says 2; a short page is the list's last.
	pages := 1
	if len(l.Messages) > 0 && len(l.Messages) >= l.Limit {
		pages = 2
	}
	meta.Pagination = pagination{Total: len(l.Messages), Count: len(l.Messages), PerPage: l.Limit, CurrentPage: 1, TotalPages: pages}
	b := bytesPool.Get().(*[]byte)
	defer bytesPool.Put(b)
	out := append((*b)[:0], `{"data":[`...)
	for i, m := range l.Messages {
		if i > 0 {
			out = append(out, ',')
		}
		if !withTags {
			m.Tags = nil
		}
		out = wire.AppendMessage(out, m)
	}
	out = append(out, `],"meta":`...)
	out = appendJSON(out, meta)
	out = append(out, "}\n"...)
	*b = out
	writeBody(w, r, http.StatusOK, out)
}

func (s *Server) listMessages(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	page, withTags, err := messagePage(r, allMessagesFilters)
	if err != nil {
		return err
	}
	l, err := s.svc.ListMessages(r.Context(), p, page)
	return s.answerList(w, r, l, page, withTags, err)
}

func (s *Server) listUserMessages(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	page, withTags, err := messagePage(r, conversationFilters)
	if err != nil {
		return err
	}
	l, err := s.svc.ListUserMessages(r.Context(), p, r.PathValue("uid"), page)
	return s.answerList(w, r, l, page, withTags, err)
}

func (s *Server) listGroupMessages(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	page, withTags, err := messagePage(r, conversationFilters)
	if err != nil {
		return err
	}
	l, err := s.svc.ListGroupMessages(r.Context(), p, r.PathValue("guid"), page)
	return s.answerList(w, r, l, page, withTags, err)
}

// unreadCountJSON is one conversation's unread count, as both client SDKs read the answer
// of count=true: data.map over [{entityId, entityType, count}].
type unreadCountJSON struct {
	EntityID   string `json:"entityId"`
	EntityType string `json:"entityType"`
	Count      int64  `json:"count"`
}

// answerList writes a message list, or with count=true its unread counts: one per
// conversation with unread messages (an empty list when there are none).
func (s *Server) answerList(w http.ResponseWriter, r *http.Request, l chat.MessageList, page chat.MessagePage, withTags bool, err error) error {
	if err != nil {
		return err
	}
	if page.Count {
		out := make([]unreadCountJSON, len(l.Counts))
		for i, c := range l.Counts {
			out[i] = unreadCountJSON{EntityID: c.EntityID, EntityType: c.EntityType, Count: c.Count}
		}
		writeData(w, r, out, nil)
		return nil
	}
	writeMessageList(w, r, l, withTags)
	return nil
}

func (s *Server) listThread(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	page, _, err := messagePage(r, threadFilters)
	if err != nil {
		return err
	}
	l, err := s.svc.ListThread(r.Context(), p, r.PathValue("id"), page)
	if err != nil {
		return err
	}
	writeMessageList(w, r, l, true)
	return nil
}

func (s *Server) sendThreadMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req sendMessageRequest
	files, err := s.decodeSendRequest(w, r, p, &req)
	if err != nil {
		return err
	}
	r = r.WithContext(files.ctx)
	if req.Multiple != nil {
		err := chat.InvalidField("multipleReceivers", "A thread reply goes to its thread's conversation only.")
		files.finish(err)
		return err
	}
	m, err := s.svc.SendThreadMessage(r.Context(), p, r.PathValue("id"), req.send())
	files.finish(err)
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}
