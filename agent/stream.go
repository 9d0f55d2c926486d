package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/natter-chat/natter/chat"
)

// A streamed answer (docs/agents.md, "Streaming"): server-sent events whose data are
// {"delta": "..."} chunks (or OpenAI-style {"choices": [{"delta": {"content": "..."}}]}, or
// AG-UI TEXT_MESSAGE_CONTENT events), ended by [DONE], {"done": true}, an event named done,
// or AG-UI's RUN_FINISHED. {"error": "..."} (or an event named error, or RUN_ERROR) ends it
// as a failure. The bot's message is created at the first chunk and edited as the answer
// grows, at most once per Config.Throttle, and once more at its end.

const maxLine = 64 << 10

// streamEvent is one event's data, in the shapes accepted.
type streamEvent struct {
	Delta   *string         `json:"delta"`
	Done    bool            `json:"done"`
	Error   json.RawMessage `json:"error"`
	Type    string          `json:"type"`    // AG-UI
	Message string          `json:"message"` // AG-UI RUN_ERROR
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
}

type streamState struct {
	w        *Worker
	ctx      context.Context
	log      *slog.Logger
	c        chat.AgentCall
	text     strings.Builder
	replyID  int64
	sent     string
	lastEdit time.Time
}

// stream reads a streamed answer; every read (re)arms timer, so the agent's timeout bounds
// the wait for each chunk, and ctx's deadline the whole answer.
func (w *Worker) stream(ctx context.Context, log *slog.Logger, c chat.AgentCall, body io.Reader, timer *time.Timer, timeout time.Duration, timedOut *atomic.Bool) {
	st := &streamState{w: w, ctx: ctx, log: log, c: c}
	r := bufio.NewReaderSize(body, 4096)
	var event string
	var data [][]byte
	for {
		line, err := readLine(r)
		timer.Reset(timeout)
		if errors.Is(err, io.EOF) && len(data) > 0 && ctx.Err() == nil {
			if st.dispatch(event, bytes.Join(data, []byte("\n"))) {
				return
			}
			data = nil
		}
		if err != nil {
			switch {
			case errors.Is(ctx.Err(), context.Canceled):
				return // the worker stops: the job is taken again
			case timedOut.Load():
				st.fail(failure{code: "timeout", msg: "the agent sent nothing for " + timeout.String()})
			case ctx.Err() != nil:
				st.fail(failure{code: "timeout", msg: "the answer took longer than " + w.cfg.StreamDeadline.String()})
			case errors.Is(err, errLongLine):
				st.fail(failure{code: "bad_answer", msg: "the agent sent a line longer than 64 KiB"})
			case errors.Is(err, io.EOF):
				st.fail(failure{code: "bad_answer", msg: "the answer stream ended without its end event"})
			default:
				st.fail(failure{code: "connection", msg: "the answer stream broke off"})
			}
			return
		}
		switch {
		case len(line) == 0: // dispatch
			if len(data) == 0 {
				event = ""
				continue
			}
			if done := st.dispatch(event, bytes.Join(data, []byte("\n"))); done {
				return
			}
			event, data = "", nil
		case line[0] == ':': // a comment: a keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				event = string(value)
			case "data":
				data = append(data, append([]byte(nil), value...))
			}
		}
	}
}

var errLongLine = errors.New("line too long")

// readLine reads one line without its end (\n, \r\n).
func readLine(r *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := r.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxLine {
			return nil, errLongLine
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(out) > 0 && errors.Is(err, io.EOF) {
				return bytes.TrimRight(out, "\r\n"), nil
			}
			return nil, err
		}
		return bytes.TrimRight(out, "\r\n"), nil
	}
}

// dispatch handles one event; done when the stream is over (answered or failed).
func (st *streamState) dispatch(event string, data []byte) bool {
	if event == "done" || string(data) == "[DONE]" {
		st.end()
		return true
	}
	if event == "error" {
		st.fail(failure{code: "agent_error", msg: "the agent reported an error: " + short(string(data))})
		return true
	}
	var ev streamEvent
	if json.Unmarshal(data, &ev) != nil {
		st.fail(failure{code: "bad_answer", msg: "the agent streamed an event that is not JSON"})
		return true
	}
	switch {
	case len(ev.Error) > 0 && string(ev.Error) != "null":
		var msg string
		if json.Unmarshal(ev.Error, &msg) != nil {
			msg = string(ev.Error)
		}
		st.fail(failure{code: "agent_error", msg: "the agent reported an error: " + short(msg)})
		return true
	case ev.Type == "RUN_ERROR":
		st.fail(failure{code: "agent_error", msg: "the agent reported an error: " + short(ev.Message)})
		return true
	case ev.Done || ev.Type == "RUN_FINISHED":
		st.end()
		return true
	case ev.Delta != nil:
		return st.grow(*ev.Delta)
	case len(ev.Choices) > 0:
		return st.grow(ev.Choices[0].Delta.Content)
	}
	return false // an event of another kind: ignored
}

func short(s string) string {
	if len(s) > 200 {
		s, _ = fit(s[:200])
		return s + "…"
	}
	return s
}

// grow adds a chunk: the message is created at the first, then edited at most once per
// throttle. An answer past the size limit ends here, cut.
func (st *streamState) grow(delta string) bool {
	if delta == "" {
		return false
	}
	st.text.WriteString(delta)
	text, cut := fit(st.text.String())
	if cut {
		st.text.Reset()
		st.text.WriteString(text)
		st.fail(failure{code: "too_large", msg: "the answer was longer than " + itoa(MaxAnswerBytes) + " bytes"})
		return true
	}
	if st.replyID == 0 {
		if text == "" {
			return false
		}
		m, err := st.w.svc.Agents().PostAgentReply(context.WithoutCancel(st.ctx), st.c, replyData(st.c, text, nil))
		if err != nil {
			logPost(st.log, err)
			return true
		}
		st.replyID, st.sent, st.lastEdit = m.ID, text, time.Now()
		if err := st.w.store.SetAgentReply(context.WithoutCancel(st.ctx), st.w.cfg.Node, st.c.Job.ID, m.ID); err != nil {
			st.log.Warn("agent: record the answer's message", "err", err)
		}
		return false
	}
	if time.Since(st.lastEdit) >= st.w.cfg.Throttle {
		st.edit(text, nil)
	}
	return false
}

func (st *streamState) edit(text string, f *failure) {
	if text == st.sent && f == nil {
		return
	}
	if err := st.w.svc.Agents().EditAgentReply(context.WithoutCancel(st.ctx), st.c, st.replyID, editData(st.c, text, f)); err != nil {
		st.log.Warn("agent: edit the answer", "err", err)
	}
	st.sent, st.lastEdit = text, time.Now()
}

// end completes the answer: its last edit, or the message when it had a single chunk.
func (st *streamState) end() {
	text, _ := fit(st.text.String())
	switch {
	case st.replyID != 0:
		st.edit(text, nil)
	case text != "":
		if _, err := st.w.svc.Agents().PostAgentReply(context.WithoutCancel(st.ctx), st.c, replyData(st.c, text, nil)); err != nil {
			logPost(st.log, err)
		}
	}
}

// fail ends the answer with a failure: a note on its message when it began, else the
// failure note. Nothing is retried once a stream began.
func (st *streamState) fail(f failure) {
	text, _ := fit(st.text.String())
	if st.replyID == 0 && text == "" {
		st.w.fail(st.ctx, st.log, st.c, f)
		return
	}
	if st.replyID == 0 { // a cut first chunk
		m, err := st.w.svc.Agents().PostAgentReply(context.WithoutCancel(st.ctx), st.c, replyData(st.c, text, nil))
		if err != nil {
			logPost(st.log, err)
			return
		}
		st.replyID = m.ID
	}
	st.w.failPartial(st.ctx, st.log, st.c, st.replyID, st.text.String(), f)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
