package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/natter-chat/natter/internal/modmatch"
)

// Enforcement (docs/moderation.md). Each app's enabled rules are compiled once per
// moderation version into a modmatch.Matcher per operand and kept in memory. A node reads
// the app's version again at most once per Config.KeyCacheTTL (3 s by default) and
// recompiles only when it moved: a change made on this node applies at once, one made on
// another node within the TTL. A send to an app without enabled rules costs a map lookup.

// modCache is each app's compiled rules.
type modCache struct {
	mu       sync.RWMutex // guards m, gen and inflight
	m        map[string]*modEngine
	gen      uint64              // bumped by every eviction, so that a build that raced one is not kept
	inflight map[string]*modLoad // the app's version check or compile under way: one per app at a time
}

// modLoad is one app's version check or compile, which other sends of the app wait for
// (or, with compiled rules at hand, do not wait for).
type modLoad struct {
	done chan struct{}
	e    *modEngine
	err  error
}

// modEngine is one app's compiled rules at one moderation version.
type modEngine struct {
	version      int64
	checked      time.Time // when version was last read
	text, custom *modmatch.Matcher
	conds        map[string]modCond // a matcher rule id: the rule and condition it stands for
}

// enabled reports whether the app has enabled rules to evaluate.
func (e *modEngine) enabled() bool { return e != nil && (e.text != nil || e.custom != nil) }

type modCond struct {
	rule ModRule
	cond Condition
}

// moderationChanged drops this node's compiled rules of the app.
func (s *Service) moderationChanged(appID string) {
	c := &s.mod
	c.mu.Lock()
	delete(c.m, appID)
	c.gen++
	c.mu.Unlock()
}

// moderation returns the app's compiled rules, compiling them when they changed. While one
// send of the app checks the version, the app's other sends use the rules at hand, or wait
// for the check when there are none.
func (s *Service) moderation(ctx context.Context, appID string) (*modEngine, error) {
	c, ttl := &s.mod, s.cfg.KeyCacheTTL
	c.mu.RLock()
	e := c.m[appID]
	c.mu.RUnlock()
	if e != nil && time.Since(e.checked) < ttl {
		return e, nil
	}
	c.mu.Lock()
	if l, ok := c.inflight[appID]; ok {
		c.mu.Unlock()
		if e != nil {
			return e, nil // stale by the check's few milliseconds at most
		}
		select {
		case <-l.done:
			return l.e, l.err
		case <-ctx.Done():
			return nil, internal("wait for moderation rules", ctx.Err())
		}
	}
	l := &modLoad{done: make(chan struct{})}
	if c.inflight == nil {
		c.inflight = map[string]*modLoad{}
	}
	c.inflight[appID] = l
	gen := c.gen
	c.mu.Unlock()
	l.e, l.err = s.loadModeration(ctx, appID, e)
	c.mu.Lock()
	delete(c.inflight, appID)
	if l.err == nil && c.gen == gen {
		if c.m == nil || len(c.m) >= maxCached {
			c.m = map[string]*modEngine{}
		}
		c.m[appID] = l.e
	}
	c.mu.Unlock()
	close(l.done)
	return l.e, l.err
}

// loadModeration reads the app's moderation version and compiles its rules unless old is
// at that version already.
func (s *Service) loadModeration(ctx context.Context, appID string, old *modEngine) (*modEngine, error) {
	v, err := s.store.ModerationVersion(ctx, appID)
	if err != nil {
		return nil, internal("read moderation version", err)
	}
	if old != nil && old.version == v {
		fresh := *old
		fresh.checked = time.Now()
		return &fresh, nil
	}
	return s.compileModeration(ctx, appID, v)
}

// compileModeration compiles the app's enabled rules. A rule modmatch refuses (which
// validation should have prevented) is left out rather than stopping every send.
func (s *Service) compileModeration(ctx context.Context, appID string, version int64) (*modEngine, error) {
	rules, err := s.store.ModRules(ctx, appID)
	if err != nil {
		return nil, internal("read moderation rules", err)
	}
	e := &modEngine{version: version, checked: time.Now(), conds: map[string]modCond{}}
	var lists map[string][]string
	byOperand := map[string][]modmatch.Rule{}
	for i, r := range rules {
		if !r.Enabled {
			continue
		}
		if len(r.Lists()) > 0 && lists == nil {
			ls, err := s.store.KeywordLists(ctx, appID, true)
			if err != nil {
				return nil, internal("read keyword lists", err)
			}
			lists = map[string][]string{}
			for _, l := range ls {
				lists[l.ID] = l.Terms
			}
		}
		for j, c := range r.Conditions {
			mr := modmatch.Rule{ID: strconv.Itoa(i) + "." + strconv.Itoa(j)}
			switch c.Category {
			case "word":
				if c.IsKeywordsReferencePresent {
					for _, id := range c.Value {
						mr.Keywords = append(mr.Keywords, lists[id]...)
					}
				} else {
					mr.Keywords = c.Value
				}
			case "pattern":
				mr.Patterns = c.Value
			case "contact":
				for _, v := range c.Value {
					mr.Emails, mr.Phones, mr.Links = mr.Emails || v == "email", mr.Phones || v == "phone", mr.Links || v == "link"
				}
			}
			e.conds[mr.ID] = modCond{rule: r, cond: c}
			byOperand[c.Operand] = append(byOperand[c.Operand], mr)
		}
	}
	e.text = compileLeniently(byOperand["text"])
	e.custom = compileLeniently(byOperand["custom"])
	return e, nil
}

// compileLeniently compiles rules, leaving out any that modmatch refuses; nil without any.
func compileLeniently(rules []modmatch.Rule) *modmatch.Matcher {
	for len(rules) > 0 {
		m, err := modmatch.Compile(rules)
		if err == nil {
			return m
		}
		var me *modmatch.Error
		if !errors.As(err, &me) || me.RuleID == "" {
			return nil
		}
		kept := rules[:0:0]
		for _, r := range rules {
			if r.ID != me.RuleID {
				kept = append(kept, r)
			}
		}
		if len(kept) == len(rules) {
			return nil
		}
		rules = kept
	}
	return nil
}

// verdict is what the rules decided on a message.
type verdict struct {
	checked bool     // the app has enabled rules, and they passed or matched
	drop    *modCond // the first dropMessage rule matched
	block   *modCond // the first blockMessage rule matched
}

// decide turns matches into a verdict: a dropMessage rule wins over a blockMessage one;
// among rules of one action the first matched counts. A matched rule whose filters do not
// match the message's sender or receiver is skipped; subject is called only then, and once,
// so that a send without filtered rules matched never builds it, and an edit reads its
// message only when a filtered rule matched its text.
func decide(conds map[string]modCond, matches []modmatch.Match, subject func() *ruleSubject) verdict {
	v := verdict{checked: true}
	var subj *ruleSubject
	resolved := false
	for _, mt := range matches {
		c, ok := conds[mt.RuleID]
		if !ok {
			continue
		}
		if len(c.rule.Filters) > 0 {
			if !resolved && subject != nil {
				subj, resolved = subject(), true
			}
			if !filtersMatch(c.rule.Filters, subj) {
				continue
			}
		}
		if slices.Contains(c.rule.Action, ActionDropMessage) && v.drop == nil {
			v.drop = &c
		} else if slices.Contains(c.rule.Action, ActionBlockMessage) && v.block == nil {
			v.block = &c
		}
	}
	return v
}

// evaluate runs the app's rules on a message's content: data.text for operand text, the
// strings of data.customData for operand custom. subject is the message's sender and
// receiver, for rules with filters (decide); nil applies every rule as if it had none.
func (e *modEngine) evaluate(data json.RawMessage, subject func() *ruleSubject) verdict {
	return e.evaluateWith(data, "", subject)
}

// evaluateMessage is evaluate for a message being sent: an interactive message's visible
// text (InteractiveText: its titles, labels, button texts) is text too, so that a word a
// rule refuses in data.text is refused on a form's button as well.
func (e *modEngine) evaluateMessage(m *Message, subject func() *ruleSubject) verdict {
	if m.Category == CategoryInteractive && e.enabled() && e.text != nil {
		return e.evaluateWith(m.Data, InteractiveText(m.Data), subject)
	}
	return e.evaluate(m.Data, subject)
}

// evaluateWith is evaluate with more text for operand text (one per line after data.text).
func (e *modEngine) evaluateWith(data json.RawMessage, more string, subject func() *ruleSubject) verdict {
	if !e.enabled() {
		return verdict{}
	}
	var d struct {
		Text       string          `json:"text"`
		CustomData json.RawMessage `json:"customData"`
	}
	_ = json.Unmarshal(data, &d)
	var matches []modmatch.Match
	if more != "" {
		d.Text = strings.TrimPrefix(d.Text+"\n"+more, "\n")
	}
	if e.text != nil && d.Text != "" {
		matches = append(matches, e.text.Match(d.Text)...)
	}
	if e.custom != nil && len(d.CustomData) > 0 {
		matches = append(matches, e.custom.Match(jsonStrings(d.CustomData))...)
	}
	return decide(e.conds, matches, subject)
}

// jsonStrings is every string in a JSON value, keys aside, one per line.
func jsonStrings(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return b.String()
}

// moderate evaluates a send before it is stored: a dropMessage rule refuses it
// (ERR_MESSAGE_DROPPED); a blockMessage rule's verdict makes the caller hold it
// (holdMessage). subj is the message's sender and receiver, which the send has read already.
func (s *Service) moderate(ctx context.Context, m *Message, subj ruleSubject) (verdict, error) {
	e, err := s.moderation(ctx, m.AppID)
	if err != nil {
		return verdict{}, err
	}
	v := e.evaluateMessage(m, func() *ruleSubject { return &subj })
	if v.drop != nil {
		return v, errDropped(v.drop, "The message was not sent")
	}
	return v, nil
}

func errDropped(c *modCond, what string) error {
	return Errorf(CodeMessageDropped, "%s: it breaks the moderation rule %s.", what, c.rule.ID)
}

// moderateEdit evaluates an edit's new text: one that breaks any rule, blockMessage or
// dropMessage, is refused, and the message stays as it was (an edit is not held). Rules with
// filters are checked against the message's sender and receiver, read (from the entity
// cache) only when such a rule matched the new text.
func (s *Service) moderateEdit(ctx context.Context, appID string, id int64, changes map[string]json.RawMessage) error {
	raw, ok := changes["text"]
	if !ok {
		return nil
	}
	e, err := s.moderation(ctx, appID)
	if err != nil || !e.enabled() {
		return err
	}
	v := e.evaluate(json.RawMessage(`{"text":`+string(raw)+`}`), func() *ruleSubject { return s.editSubject(ctx, appID, id) })
	if c := v.drop; c != nil || v.block != nil {
		if c == nil {
			c = v.block
		}
		return errDropped(c, "The message was not edited")
	}
	return nil
}

// editSubject is the sender and receiver of the message being edited, for rules' filters;
// nil when they cannot be read, which applies the rule (filtersMatch): the edit itself then
// fails on the message it cannot find, or is refused as if the rule had no filters.
func (s *Service) editSubject(ctx context.Context, appID string, id int64) *ruleSubject {
	m, err := s.store.Message(ctx, appID, id, "")
	if err != nil {
		return nil
	}
	sender, err := s.cachedUser(ctx, appID, m.Sender)
	if err != nil {
		return nil
	}
	subj := &ruleSubject{Sender: &sender}
	if m.ReceiverType == ReceiverGroup {
		g, err := s.cachedGroup(ctx, appID, m.Receiver)
		if err != nil {
			return nil
		}
		subj.Group = &g
	} else {
		u, err := s.cachedUser(ctx, appID, m.Receiver)
		if err != nil {
			return nil
		}
		subj.Receiver = &u
	}
	return subj
}

// approvedEvent is the moderation_engine_approved event of a send the app's enabled rules
// passed, or nil.
func (v verdict) approvedEvent(ctx context.Context, s *Service, m *Message) *OutboxEvent {
	if !v.checked {
		return nil
	}
	return s.outboxEvent(ctx, TriggerModerationEngineApproved, m, EventRef{Data: m.Data, Tags: m.Tags})
}

// holdMessage keeps a message a blockMessage rule matched in the blocked list instead of
// sending it, and answers the sender with it, data.moderation.status pending and the id it
// takes from the messages' sequence now and keeps when approved, so that the sender's client,
// which keys messages by id, never confuses it with another. Nobody else sees it until a
// moderator approves it.
func (s *Service) holdMessage(ctx context.Context, sender User, m Message, v verdict) (Message, error) {
	now := s.now()
	m.SentAt, m.UpdatedAt, m.SenderEntity, m.Moderation = now, now, sender.Entity(), ModPending
	if m.ReceiverGroup != nil {
		m.ReceiverGroup = eventGroup(*m.ReceiverGroup)
	}
	b := BlockedMessage{AppID: m.AppID, RuleID: v.block.rule.ID, RuleName: v.block.rule.Name, Revision: v.block.rule.Revision,
		Condition: v.block.cond, Action: v.block.rule.Action, Message: m, Status: ModPending, CreatedAt: now, UpdatedAt: now}
	event := s.subscribed(ctx, m.AppID, TriggerModerationEngineBlocked)
	m.MarkMentioned(sender.UID)
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		if err := tx.InsertBlocked(&b); err != nil {
			return err
		}
		// A held message keeps its files from the sweep: a moderator may approve it later.
		if err := tx.AttachFiles(m.AppID, m.Files); err != nil {
			return err
		}
		m.ID = b.MessageID
		// Announced as held (Moderation set): its sender's answer, nobody's frame.
		c := messageChange(&m, 0)
		cs.Add(c)
		if !event {
			return nil
		}
		c.Work = WorkWebhook
		return tx.InsertOutbox(OutboxEvent{AppID: m.AppID, Trigger: TriggerModerationEngineBlocked, ConversationID: m.ConversationID,
			Ref: EventRef{BlockedID: b.ID}, At: time.Now().UnixMilli()})
	})
	if errors.Is(err, ErrFileGone) {
		return Message{}, errFileGone
	} else if err != nil {
		return Message{}, internal("hold blocked message", err)
	}
	return m, nil
}
