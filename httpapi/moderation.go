package httpapi

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// Moderation (docs/moderation.md): reasons, flagging, the flagged, reviewed and blocked
// lists, rules with revisions and keyword lists, in the hosted service's shapes.

type reasonJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
	CreatedAt   int64  `json:"createdAt"`
	UpdatedAt   int64  `json:"updatedAt"`
}

func reasonOut(r chat.Reason) reasonJSON {
	return reasonJSON{ID: r.ID, Name: r.Name, Description: r.Description, Default: r.Default, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// listMeta is the hosted moderation lists' meta: {current: {limit, count}}.
type listMeta struct {
	Current struct {
		Limit int `json:"limit"`
		Count int `json:"count"`
	} `json:"current"`
}

func metaOf(limit, count int) listMeta {
	var m listMeta
	m.Current.Limit, m.Current.Count = limit, count
	return m
}

func (s *Server) createReason(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		ID          string  `json:"id"`
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	rs, err := s.svc.Moderation().CreateReason(r.Context(), p, chat.ReasonInput{ID: req.ID, Name: req.Name, Description: req.Description})
	if err != nil {
		return err
	}
	writeData(w, r, reasonOut(rs), nil)
	return nil
}

func (s *Server) listReasons(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	rs, err := s.svc.Moderation().Reasons(r.Context(), p)
	if err != nil {
		return err
	}
	out := make([]reasonJSON, len(rs))
	for i, x := range rs {
		out[i] = reasonOut(x)
	}
	writeData(w, r, out, metaOf(len(out), len(out)))
	return nil
}

func (s *Server) getReason(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	rs, err := s.svc.Moderation().Reason(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, r, reasonOut(rs), nil)
	return nil
}

func (s *Server) updateReason(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		ID          *string `json:"id"`
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.ID != nil && *req.ID != r.PathValue("id") {
		return chat.InvalidField("id", "The id of a reason cannot change.")
	}
	rs, err := s.svc.Moderation().UpdateReason(r.Context(), p, chat.ReasonInput{ID: r.PathValue("id"), Name: req.Name, Description: req.Description})
	if err != nil {
		return err
	}
	writeData(w, r, reasonOut(rs), nil)
	return nil
}

func (s *Server) deleteReason(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	id := r.PathValue("id")
	if err := s.svc.Moderation().DeleteReason(r.Context(), p, id); err != nil {
		return err
	}
	// The hosted spec draws success and message at the top level; natter keeps its one
	// envelope (docs/moderation.md).
	writeData(w, r, success{true, "The reason with id " + id + " has been deleted successfully."}, nil)
	return nil
}

func (s *Server) flagMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		ReasonID string `json:"reasonId"`
		ID       string `json:"id"` // the reason, as the client SDK's flagMessage names it
		Remark   string `json:"remark"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.ReasonID == "" {
		req.ReasonID = req.ID
	}
	id := r.PathValue("id")
	if err := s.svc.Moderation().FlagMessage(r.Context(), p, id, chat.FlagInput{ReasonID: req.ReasonID, Remark: req.Remark}); err != nil {
		return err
	}
	writeData(w, r, success{true, "The message with id " + id + " has been flagged."}, nil)
	return nil
}

type flagJSON struct {
	UID       string `json:"uid"`
	ReasonID  string `json:"reasonId"`
	Remark    string `json:"remark"`
	FlaggedAt int64  `json:"flaggedAt"`
}

// flaggedByJSON is one flag as the newest hosted file's flagged list gives it: the flagger's
// user and the reason's name and description beside the flag.
type flaggedByJSON struct {
	UID         string `json:"uid"`
	Name        string `json:"name"`
	Avatar      string `json:"avatar,omitempty"`
	Role        string `json:"role"`
	ReasonID    string `json:"reasonId"`
	ReasonName  string `json:"reasonName"`
	Description string `json:"description"`
	Remark      string `json:"remark"`
	FlaggedAt   int64  `json:"flaggedAt"`
}

// flaggedJSON is a flagged list's entry without its message's keys: natter's own (status,
// flags, flaggedAt, reviewedAt, message) and the newest hosted file's (appId, flaggedBy,
// flaggedCount). appendFlagged puts the message's keys in front, as the file's example does.
type flaggedJSON struct {
	ID           string          `json:"id,omitempty"`
	AppID        string          `json:"appId"`
	Status       string          `json:"status"`
	Message      *rawJSON        `json:"message,omitempty"`
	Flags        []flagJSON      `json:"flags"`
	FlaggedBy    []flaggedByJSON `json:"flaggedBy"`
	FlaggedCount int             `json:"flaggedCount"`
	FlaggedAt    int64           `json:"flaggedAt"`
	ReviewedAt   int64           `json:"reviewedAt,omitempty"`
}

// appendFlagged writes one entry of the flagged or reviewed list: the message's keys (id
// first), then flaggedJSON's. A message no longer there (purged) leaves the entry with its id
// and the flags.
func appendFlagged(b []byte, appID string, f chat.Flagged) ([]byte, error) {
	o := flaggedJSON{AppID: appID, Status: f.Status, FlaggedAt: f.CreatedAt, ReviewedAt: f.ReviewedAt,
		Flags: make([]flagJSON, len(f.Flags)), FlaggedBy: make([]flaggedByJSON, len(f.Flags)), FlaggedCount: len(f.Flags)}
	for j, fl := range f.Flags {
		o.Flags[j] = flagJSON{UID: fl.UID, ReasonID: fl.ReasonID, Remark: fl.Remark, FlaggedAt: fl.CreatedAt}
		o.FlaggedBy[j] = flaggedByJSON{UID: fl.UID, Name: fl.By.Name, Avatar: fl.By.Avatar, Role: fl.By.Role, ReasonID: fl.ReasonID,
			ReasonName: fl.Reason.Name, Description: fl.Reason.Description, Remark: fl.Remark, FlaggedAt: fl.CreatedAt}
	}
	if f.Message == nil {
		o.ID = strconv.FormatInt(f.MessageID, 10)
		tail, err := json.Marshal(o)
		return append(b, tail...), err
	}
	m := wire.AppendMessage(nil, *f.Message)
	msg := rawJSON(m)
	o.Message = &msg
	tail, err := json.Marshal(o) // without id: the message's keys carry it
	if err != nil {
		return b, err
	}
	b = append(b, m[:len(m)-1]...)
	b = append(b, ',')
	return append(b, tail[1:]...), nil
}

// rawJSON is pre-encoded JSON inside a struct that encoding/json writes.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// moderationPage reads a review list's limit (1–100, default 50) and before cursor.
func moderationPage(r *http.Request) (before int64, limit int, err error) {
	q := newQuery(r)
	limit = q.pageSize(50, 1, chat.MaxModerationPage)
	before = int64(q.integer("before", 0, 0, 1<<31-1))
	return before, limit, q.err()
}

func (s *Server) listFlagged(reviewed bool) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		before, limit, err := moderationPage(r)
		if err != nil {
			return err
		}
		fs, err := s.svc.Moderation().FlaggedMessages(r.Context(), p, reviewed, before, limit)
		if err != nil {
			return err
		}
		items := make([]rawJSON, len(fs))
		for i, f := range fs {
			if items[i], err = appendFlagged(nil, p.App.ID, f); err != nil {
				return err
			}
		}
		writeData(w, r, items, metaOf(limit, len(items)))
		return nil
	}
}

func (s *Server) reviewFlagged(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Status string `json:"status"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	id := r.PathValue("id")
	if err := s.svc.Moderation().ReviewFlagged(r.Context(), p, id, req.Status); err != nil {
		return err
	}
	writeData(w, r, success{true, "The message with id " + id + " has been " + req.Status + "."}, nil)
	return nil
}

type blockedJSON struct {
	ID         string         `json:"id"`
	RuleID     string         `json:"ruleId"`
	RuleName   string         `json:"ruleName"`
	RevisionID string         `json:"revisionId"`
	Condition  chat.Condition `json:"condition"`
	Message    rawJSON        `json:"message"`
	Action     []string       `json:"action"`
	Status     string         `json:"status"`
	CreatedAt  int64          `json:"createdAt"`
	UpdatedAt  int64          `json:"updatedAt"`
}

func (s *Server) listBlockedMessages(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	before, limit, err := moderationPage(r)
	if err != nil {
		return err
	}
	bs, err := s.svc.Moderation().BlockedMessages(r.Context(), p, before, limit)
	if err != nil {
		return err
	}
	out := make([]blockedJSON, len(bs))
	for i, b := range bs {
		out[i] = blockedJSON{ID: strconv.FormatInt(b.MessageID, 10), RuleID: b.RuleID, RuleName: b.RuleName,
			RevisionID: chat.RevisionID(p.App.ID, b.RuleID, b.Revision), Condition: b.Condition, Message: wire.AppendMessage(nil, b.Message),
			Action: b.Action, Status: b.Status, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
	}
	writeData(w, r, out, metaOf(limit, len(out)))
	return nil
}

func (s *Server) reviewBlocked(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Status   string `json:"status"`
		Reviewed *bool  `json:"reviewed"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	id := r.PathValue("id")
	m, err := s.svc.Moderation().ReviewBlocked(r.Context(), p, id, req.Status)
	if err != nil {
		return err
	}
	// As the hosted API answers ("Message with ID 268 has been approved"): the id is the
	// message's, which it keeps when sent.
	msg := "The message with id " + id + " has been rejected."
	if m.ID != 0 {
		msg = "The message with id " + strconv.FormatInt(m.ID, 10) + " has been approved."
	}
	writeData(w, r, success{true, msg}, nil)
	return nil
}

type ruleJSON struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Enabled     bool             `json:"enabled"`
	Conditions  []chat.Condition `json:"conditions"`
	Action      []string         `json:"action"`
	// Filters are returned as sent; left out when the rule has none, as before filters.
	Filters    []chat.RuleFilter `json:"filters,omitempty"`
	Active     bool              `json:"active"`
	CreatedAt  int64             `json:"createdAt"`
	UpdatedAt  int64             `json:"updatedAt"`
	RevisionID string            `json:"revisionId"`
}

func ruleOut(r chat.ModRule) ruleJSON {
	return ruleJSON{ID: r.ID, Name: r.Name, Description: r.Description, Enabled: r.Enabled, Conditions: r.Conditions, Action: r.Action,
		Filters: r.Filters, Active: r.Active, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, RevisionID: chat.RevisionID(r.AppID, r.ID, r.Revision)}
}

type ruleRequest struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Enabled     *bool            `json:"enabled"`
	Conditions  []chat.Condition `json:"conditions"`
	Action      []string         `json:"action"`
	// Filters are the hosted file's user and group filters, left raw so that chat decodes
	// each strictly and names the one it refuses (filters[i]).
	Filters []json.RawMessage `json:"filters"`
}

func (q ruleRequest) input() chat.RuleInput {
	return chat.RuleInput{ID: q.ID, Name: q.Name, Description: q.Description, Enabled: q.Enabled, Conditions: q.Conditions, Action: q.Action,
		Filters: q.Filters}
}

func (s *Server) createRule(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req ruleRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	rule, err := s.svc.Moderation().CreateRule(r.Context(), p, req.input())
	if err != nil {
		return err
	}
	writeData(w, r, ruleOut(rule), nil)
	return nil
}

func (s *Server) updateRule(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req ruleRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	rule, err := s.svc.Moderation().UpdateRule(r.Context(), p, r.PathValue("ruleId"), req.input())
	if err != nil {
		return err
	}
	writeData(w, r, ruleOut(rule), nil)
	return nil
}

func rulesOut(rs []chat.ModRule) []ruleJSON {
	out := make([]ruleJSON, len(rs))
	for i, x := range rs {
		out[i] = ruleOut(x)
	}
	return out
}

func (s *Server) listRules(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	rs, err := s.svc.Moderation().ModRules(r.Context(), p)
	if err != nil {
		return err
	}
	writeData(w, r, rulesOut(rs), metaOf(chat.MaxRules, len(rs)))
	return nil
}

func (s *Server) getRule(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	rule, err := s.svc.Moderation().ModRule(r.Context(), p, r.PathValue("ruleId"))
	if err != nil {
		return err
	}
	writeData(w, r, ruleOut(rule), nil)
	return nil
}

func (s *Server) listRuleRevisions(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	rs, err := s.svc.Moderation().RuleRevisions(r.Context(), p, r.PathValue("ruleId"))
	if err != nil {
		return err
	}
	writeData(w, r, rulesOut(rs), metaOf(len(rs), len(rs)))
	return nil
}

func (s *Server) deleteRule(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	id := r.PathValue("ruleId")
	if err := s.svc.Moderation().DeleteRule(r.Context(), p, id); err != nil {
		return err
	}
	writeData(w, r, success{true, "Rule with id " + id + " has been deleted successfully."}, nil)
	return nil
}

// keywordJSON is a keyword list with the hosted list's keys: _id (the hosted store's record
// id; natter's is the list's id), appId, and default (a list the service ships to every
// app: natter ships none, so false).
type keywordJSON struct {
	MongoID     string   `json:"_id"`
	ID          string   `json:"id"`
	AppID       string   `json:"appId"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Category    string   `json:"category"`
	IsCSV       bool     `json:"isCSV"`
	SearchTerms []string `json:"searchTerms"`
	CreatedAt   int64    `json:"createdAt"`
	UpdatedAt   int64    `json:"updatedAt"`
	RevisionID  string   `json:"revisionId"`
	Active      bool     `json:"active"`
	Default     bool     `json:"default"`
}

func keywordOut(l chat.KeywordList) keywordJSON {
	terms := l.Terms
	if terms == nil {
		terms = []string{}
	}
	return keywordJSON{MongoID: l.ID, ID: l.ID, AppID: l.AppID, Name: l.Name, Description: l.Description, Category: l.Category, IsCSV: l.IsCSV, SearchTerms: terms,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, RevisionID: chat.RevisionID(l.AppID, l.ID, l.Revision), Active: true}
}

// MaxKeywordBodyBytes caps a keyword list upload (10,000 keywords of up to 100 bytes, with
// separators and the multipart framing), in place of the usual body cap.
const MaxKeywordBodyBytes = 2 << 20

// keywordListInput reads a keyword list from a JSON body ({id, name, description, category,
// searchTerms: [...]}) or a multipart/form-data one (the hosted KeywordList: fields id,
// name, description, category and searchTerms, comma- or newline-separated and repeatable,
// and a CSV file in the field file, whose every cell is a keyword; isCSV is then true).
func keywordListInput(r *http.Request) (chat.KeywordListInput, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		var req struct {
			ID          string   `json:"id"`
			Name        string   `json:"name"`
			Description string   `json:"description"`
			Category    string   `json:"category"`
			SearchTerms []string `json:"searchTerms"`
		}
		if err := decodeJSON(r, &req); err != nil {
			return chat.KeywordListInput{}, err
		}
		if len(req.SearchTerms) > 2*chat.MaxListTerms {
			return chat.KeywordListInput{}, chat.InvalidField("searchTerms", "A keyword list may have at most "+strconv.Itoa(chat.MaxListTerms)+" keywords.")
		}
		return chat.KeywordListInput{ID: req.ID, Name: req.Name, Description: req.Description, Category: req.Category, Terms: req.SearchTerms}, nil
	}
	if err := r.ParseMultipartForm(MaxKeywordBodyBytes); err != nil {
		if isTooLarge(err) {
			return chat.KeywordListInput{}, errBodyTooLarge(MaxKeywordBodyBytes)
		}
		return chat.KeywordListInput{}, chat.Errorf(chat.CodeBadRequest, "The multipart/form-data body could not be read.")
	}
	defer r.MultipartForm.RemoveAll()
	f := r.MultipartForm.Value
	one := func(k string) string {
		if v := f[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	in := chat.KeywordListInput{ID: one("id"), Name: one("name"), Description: one("description"), Category: one("category")}
	for _, v := range f["searchTerms"] {
		in.Terms = append(in.Terms, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' })...)
	}
	for _, fh := range r.MultipartForm.File["file"] {
		file, err := fh.Open()
		if err != nil {
			return in, chat.Errorf(chat.CodeBadRequest, "The file could not be read.")
		}
		cr := csv.NewReader(file)
		cr.FieldsPerRecord, cr.LazyQuotes = -1, true
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				file.Close()
				return in, chat.InvalidField("file", "The file is not valid CSV.")
			}
			in.Terms = append(in.Terms, rec...)
			if len(in.Terms) > 2*chat.MaxListTerms {
				file.Close()
				return in, chat.InvalidField("searchTerms", "A keyword list may have at most "+strconv.Itoa(chat.MaxListTerms)+" keywords.")
			}
		}
		file.Close()
		in.IsCSV = true
	}
	return in, nil
}

func (s *Server) createKeywordList(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	in, err := keywordListInput(r)
	if err != nil {
		return err
	}
	l, err := s.svc.Moderation().CreateKeywordList(r.Context(), p, in)
	if err != nil {
		return err
	}
	writeData(w, r, keywordOut(l), nil)
	return nil
}

func (s *Server) updateKeywordList(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	in, err := keywordListInput(r)
	if err != nil {
		return err
	}
	l, err := s.svc.Moderation().UpdateKeywordList(r.Context(), p, r.PathValue("keywordId"), in)
	if err != nil {
		return err
	}
	writeData(w, r, keywordOut(l), nil)
	return nil
}

func (s *Server) listKeywordLists(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	ls, err := s.svc.Moderation().KeywordLists(r.Context(), p)
	if err != nil {
		return err
	}
	out := make([]keywordJSON, len(ls))
	for i, l := range ls {
		out[i] = keywordOut(l)
	}
	writeData(w, r, out, metaOf(chat.MaxKeywordLists, len(out)))
	return nil
}

func (s *Server) getKeywordList(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	l, err := s.svc.Moderation().KeywordList(r.Context(), p, r.PathValue("keywordId"))
	if err != nil {
		return err
	}
	writeData(w, r, keywordOut(l), nil)
	return nil
}

func (s *Server) deleteKeywordList(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	id := r.PathValue("keywordId")
	if err := s.svc.Moderation().DeleteKeywordList(r.Context(), p, id); err != nil {
		return err
	}
	writeData(w, r, success{true, "Keyword with id " + id + " has been deleted successfully."}, nil)
	return nil
}

// moderationServiceRefused answers the hosted "moderate before delivery" service
// (/moderation/messages and /moderation/messages/{id}), which natter refuses by decision
// (docs/api-decisions.md, "Moderation before delivery"): its messages are submitted for a
// verdict given later, kept in a list of their own even when disapproved, and may create their
// users and groups on the way; natter's moderation judges every send in the send's own
// transaction and keeps nothing it drops. The rules that service applies apply here to every
// message sent through POST /messages.
func moderationServiceRefused(http.ResponseWriter, *http.Request, chat.Principal) error {
	return chat.Errorf(chat.CodeNotImplemented, "natter does not serve the moderation service's /moderation/messages: "+
		"send through POST /messages, where the app's moderation rules judge every message before it is delivered "+
		"(a held message is listed by GET /moderation/blocked-messages).")
}
