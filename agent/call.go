package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/natter-chat/natter/chat"
)

// What natter posts to an agent's endpoint (docs/agents.md, "The request").

type callAgent struct {
	UID         string          `json:"uid"`
	Name        string          `json:"name"`
	Instruction string          `json:"instruction,omitempty"`
	MetaData    json.RawMessage `json:"metaData,omitempty"`
}

type callConversation struct {
	ID       string `json:"id"`
	Type     string `json:"type"`           // user or group
	With     string `json:"with,omitempty"` // a one-to-one conversation's user
	GUID     string `json:"guid,omitempty"`
	ParentID string `json:"parentId,omitempty"` // the thread the message is in
}

// item is a message as the agent sees it: its role is "assistant" for the agent's own.
type item struct {
	ID     string `json:"id"`
	Sender string `json:"sender"`
	Role   string `json:"role"`
	Text   string `json:"text"`
	SentAt int64  `json:"sentAt"`
}

type callBody struct {
	Agent        callAgent        `json:"agent"`
	Conversation callConversation `json:"conversation"`
	Message      item             `json:"message"`
	History      []item           `json:"history"`
}

func itemOf(m chat.Message, agent string) item {
	var d struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Data, &d)
	role := "user"
	if m.Sender == agent {
		role = "assistant"
	}
	return item{ID: strconv.FormatInt(m.ID, 10), Sender: m.Sender, Role: role, Text: d.Text, SentAt: m.SentAt}
}

func body(c chat.AgentCall) []byte {
	b := callBody{Agent: callAgent{UID: c.Agent.UID, Name: c.Agent.Name, Instruction: c.Agent.Instruction, MetaData: c.Agent.Metadata},
		Conversation: callConversation{ID: c.Trigger.ConversationID, Type: c.Trigger.ReceiverType},
		Message:      itemOf(c.Trigger, c.Agent.UID), History: []item{}}
	if c.Trigger.ReceiverType == chat.ReceiverGroup {
		b.Conversation.GUID = c.Trigger.Receiver
	} else {
		b.Conversation.With = c.Trigger.Sender
	}
	if c.Trigger.ParentID != 0 {
		b.Conversation.ParentID = strconv.FormatInt(c.Trigger.ParentID, 10)
	}
	for _, m := range c.History {
		b.History = append(b.History, itemOf(m, c.Agent.UID))
	}
	out, _ := json.Marshal(b)
	return out
}

// failure is why an agent did not answer (in full): a code for programs, a message for
// people.
type failure struct {
	code, msg string
}

// errRetry marks an attempt's failure that another attempt may mend.
type attemptError struct {
	f     failure
	retry bool
}

// answer calls the endpoint, with retries, and posts its answer or a failure note. It
// reports whether the job is done (false: the worker stopped meanwhile).
func (w *Worker) answer(ctx context.Context, log *slog.Logger, c chat.AgentCall) bool {
	jctx, cancel := context.WithTimeout(ctx, w.cfg.StreamDeadline)
	defer cancel()
	for attempt := 0; ; attempt++ {
		ae := w.attempt(jctx, log, c)
		if ctx.Err() != nil {
			return false
		}
		if ae == nil {
			return true
		}
		if !ae.retry || attempt >= w.cfg.Retries || jctx.Err() != nil {
			if attempt > 0 {
				ae.f.msg += fmt.Sprintf(" (after %d attempts)", attempt+1)
			}
			w.fail(ctx, log, c, ae.f)
			return true
		}
		select {
		case <-jctx.Done():
		case <-time.After(w.retry.Delay(attempt + 1)):
		}
	}
}

// attempt makes one call and handles its answer; nil when the answer was posted (or a
// failure after the answer began was noted on its message).
func (w *Worker) attempt(ctx context.Context, log *slog.Logger, c chat.AgentCall) *attemptError {
	timeout := time.Duration(c.Agent.TimeoutSeconds) * w.cfg.TimeoutUnit
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() { timedOut.Store(true); cancel() })
	defer timer.Stop()
	timeoutFailure := failure{code: "timeout", msg: fmt.Sprintf("the agent did not answer within %s", timeout)}
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.Agent.URL, bytes.NewReader(body(c)))
	if err != nil {
		return &attemptError{f: failure{code: "connection", msg: "the agent's URL cannot be called"}}
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream, application/json")
	req.Header.Set("User-Agent", "natter-agent/1")
	req.Header.Set("X-Natter-Agent", c.Agent.UID)
	req.Header.Set("X-Natter-Job", strconv.FormatInt(c.Job.ID, 10))
	res, err := w.client.Do(req)
	if err != nil {
		switch {
		case timedOut.Load():
			return &attemptError{f: timeoutFailure, retry: true}
		case ctx.Err() != nil:
			return &attemptError{f: timeoutFailure}
		}
		var ue *url.Error
		if errors.As(err, &ue) { // without the URL, which may carry a secret in its query
			err = ue.Err
		}
		log.Info("agent: call failed", "err", err)
		return &attemptError{f: failure{code: "connection", msg: "the agent could not be reached"}, retry: true}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return &attemptError{f: failure{code: "http_status", msg: fmt.Sprintf("the agent answered HTTP %d", res.StatusCode)},
			retry: res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests}
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		w.stream(ctx, log, c, res.Body, timer, timeout, &timedOut)
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	switch {
	case timedOut.Load():
		return &attemptError{f: timeoutFailure}
	case err != nil:
		return &attemptError{f: failure{code: "connection", msg: "the agent's answer broke off"}}
	case len(raw) > maxBody:
		return &attemptError{f: failure{code: "too_large", msg: "the agent's answer was larger than " + strconv.Itoa(maxBody>>10) + " KiB"}}
	}
	text, ok := plainText(raw)
	if !ok {
		return &attemptError{f: failure{code: "bad_answer", msg: `the agent's answer was not JSON of a known shape, such as {"text": "..."}`}}
	}
	text, cut := fit(text)
	if text == "" { // the agent chose not to answer
		return nil
	}
	data := replyData(c, text, nil)
	if cut {
		data = replyData(c, text+cutNote, &failure{code: "too_large", msg: "the answer was cut at " + strconv.Itoa(MaxAnswerBytes) + " bytes"})
	}
	if _, err := w.svc.Agents().PostAgentReply(context.WithoutCancel(ctx), c, data); err != nil {
		logPost(log, err)
	}
	return nil
}

// plainText reads a plain answer: {"text": "..."}, or an OpenAI-style chat completion
// {"choices": [{"message": {"content": "..."}}]}. ok is false for anything else.
func plainText(raw []byte) (string, bool) {
	var a struct {
		Text    *string `json:"text"`
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if !json.Valid(raw) || json.Unmarshal(raw, &a) != nil {
		return "", false
	}
	switch {
	case a.Text != nil:
		return *a.Text, true
	case len(a.Choices) > 0 && a.Choices[0].Message.Content != nil:
		return *a.Choices[0].Message.Content, true
	}
	return "", false
}

const cutNote = "\n\n[The answer was cut: it was too long.]"

// fit cuts text to MaxAnswerBytes at a character boundary, and further while its JSON form
// (quotes and control characters escaped) would not leave room in a message's data; cut
// says whether it did.
func fit(text string) (string, bool) {
	text = strings.ReplaceAll(text, "\x00", "") // a message may not hold NUL (PostgreSQL cannot)
	cut := false
	for n := MaxAnswerBytes; len(text) > n || encodedLen(text) > MaxAnswerBytes+1000; n = len(text) * 9 / 10 {
		for n > 0 && n < len(text) && !utf8Start(text[n]) {
			n--
		}
		text, cut = text[:min(n, len(text))], true
	}
	return text, cut
}

func encodedLen(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// replyData is the bot message's data: its text, and metadata naming the message it
// answers and, when it failed, why.
func replyData(c chat.AgentCall, text string, f *failure) json.RawMessage {
	meta := map[string]any{"agentReply": map[string]any{"agent": c.Agent.UID, "messageId": strconv.FormatInt(c.Trigger.ID, 10)}}
	if f != nil {
		meta["agentError"] = map[string]string{"code": f.code, "message": f.msg}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{"text": text, "metadata": meta})
	return bytes.TrimSpace(buf.Bytes())
}

// editData is an edit's data: the text, and the failure metadata when it failed.
func editData(c chat.AgentCall, text string, f *failure) json.RawMessage {
	if f == nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"text": text})
		return bytes.TrimSpace(buf.Bytes())
	}
	return replyData(c, text, f)
}

// fail posts the bot's failure note.
func (w *Worker) fail(ctx context.Context, log *slog.Logger, c chat.AgentCall, f failure) {
	text := fmt.Sprintf("⚠ %s could not answer: %s.", c.Agent.Name, f.msg)
	if _, err := w.svc.Agents().PostAgentReply(context.WithoutCancel(ctx), c, replyData(c, text, &f)); err != nil {
		logPost(log.With("failure", f.code), err)
	}
}

// failPartial ends a begun answer (message id, text so far; "" to keep the message's) with
// the failure's note.
func (w *Worker) failPartial(ctx context.Context, log *slog.Logger, c chat.AgentCall, id int64, text string, f failure) {
	if text == "" {
		m, err := w.svc.Message(context.WithoutCancel(ctx), chat.Principal{App: chat.App{ID: c.Job.AppID}}, strconv.FormatInt(id, 10))
		if err == nil {
			var d struct {
				Text string `json:"text"`
			}
			json.Unmarshal(m.Data, &d)
			text = d.Text
		}
	}
	text, _ = fit(text)
	text += "\n\n[⚠ The answer was cut off: " + f.msg + ".]"
	if err := w.svc.Agents().EditAgentReply(context.WithoutCancel(ctx), c, id, editData(c, text, &f)); err != nil && !errors.Is(err, context.Canceled) {
		log.Warn("agent: note the failure", "err", err, "failure", f.code)
	}
}
