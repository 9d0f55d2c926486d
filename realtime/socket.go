package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// The socket speaks the frames of CometChat's JavaScript SDK (docs/realtime.md): one JSON
// object per text frame; the client authenticates with its first frame, pings every 15 s,
// and sends typing indicators, receipts and transient messages; the server sends events in
// the envelope {appId, receiver, receiverType, deviceId, type, sender, body}.

const (
	statusGoingAway      = websocket.StatusGoingAway
	statusPolicy         = websocket.StatusPolicyViolation
	statusUnsupported    = websocket.StatusUnsupportedData
	statusTryAgainLater  = websocket.StatusTryAgainLater
	statusInvalidPayload = websocket.StatusInvalidFramePayloadData
	// maxFrame bounds a client's frame: typing metadata and transient data are small.
	maxFrame = 16 << 10
)

// socket is one client connection. Most sockets are idle most of the time, so an idle one
// holds as little as it can: its reader goroutine blocked without a buffer (socketconn.go),
// no writer goroutine and no queue (socketqueue.go), and nothing of the HTTP request that
// opened it.
type socket struct {
	h        *Hub
	ws       *websocket.Conn
	conn     *leanConn // under ws
	app      string
	uid      string
	role     string
	deviceID string
	p        chat.Principal
	user     json.RawMessage // the user's wire form, sent with its typing and receipts
	left     func()          // ends the socket's count in GET /stats

	mu      sync.Mutex
	queue   [][]byte       // frames to write, oldest first
	writing bool           // a writer is draining the queue (or it may not start yet)
	closed  bool           // shut down: nothing more is queued or written
	writers sync.WaitGroup // the writer, so the socket ends after its last write

	presence string          // the auth frame's presenceSubscription
	roles    map[string]bool // for ROLES
	friends  map[string]bool // for FRIENDS, read at connect

	memberOf map[string]time.Time // groups it may type in, until when (one frame at a time)
	reaches  map[string]time.Time // users it may type to (no block either way), until when
	tokens   float64              // inbound frame budget (one frame at a time)
	last     time.Time
}

// ServeHTTP accepts a socket at the root path.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.open.Load() >= int64(h.opt.MaxConns) {
		h.refuse(w, chat.Errorf(chat.CodeServiceUnavailable, "This node holds as many sockets as it may; connect again later."))
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.refuse(w, chat.Errorf(chat.CodeServiceUnavailable, "This node is shutting down; connect again."))
		return
	}
	h.sockets.Add(1)
	h.mu.Unlock()
	// The server's read and write timeouts are for requests; a socket lives for hours.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	// leanWriter: coder/websocket keeps the hijacked connection's buffers for the socket's
	// life; a leanConn holds buffers only while bytes pass.
	lw := &leanWriter{ResponseWriter: w}
	ws, err := websocket.Accept(lw, r, &websocket.AcceptOptions{
		// The socket authenticates with a credential in its first frame, never with a
		// cookie, so a page of any origin may open one (as with the hosted service).
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		h.sockets.Done()
		return // Accept answered the request
	}
	ws.SetReadLimit(maxFrame)
	h.open.Add(1)
	served := false
	defer func() {
		if !served {
			h.open.Add(-1)
			h.sockets.Done() // added before Accept
		}
	}()
	c := &socket{h: h, ws: ws, conn: lw.conn, writing: true, tokens: float64(h.opt.FrameBurst), last: time.Now()}
	if !c.start() {
		return
	}
	served = true
	// The socket outlives the request: its reader runs on a goroutine of its own, so that
	// net/http's request, buffers and this goroutine's deep stack go once it is open.
	go c.serve()
}

// start authenticates the socket, registers it and sends the ack; it reports whether the
// socket is open, for serve to take over.
func (c *socket) start() (open bool) {
	h := c.h
	ctx := context.Background()
	ack, err := c.authenticate(ctx)
	if err != nil {
		h.log.Debug("socket refused", "err", err)
		return false
	}
	// Registered before the ack, so an event published once the client has its ack reaches
	// it: the events queue until the writer may start, after the ack.
	first, ok := h.add(c)
	if !ok {
		c.shutdown(statusGoingAway, "server shutting down")
		return false
	}
	c.left = h.svc.Usage().SocketConnected(c.app, c.uid) // concurrent users of GET /stats
	defer func() {
		if !open {
			c.end()
		}
	}()
	if err := c.write(ack); err != nil {
		return false
	}
	if first {
		h.online(ctx, c)
	}
	c.startWriting()
	return true
}

// serve reads the client's frames until the socket closes.
func (c *socket) serve() {
	defer c.h.sockets.Done()
	defer c.h.open.Add(-1)
	defer c.end()
	c.reader()
	c.shutdown(websocket.StatusNormalClosure, "")
	// A write in flight ends before the socket does, so that the client gets the close
	// frame after it rather than a reset.
	c.writers.Wait()
}

// end unregisters a socket that was registered; its user goes offline with its last socket.
func (c *socket) end() {
	if c.h.remove(c) {
		c.h.offline(c)
	}
	c.left()
}

// refuse answers a socket this node will not open in the REST error envelope, as httpapi
// answers a request.
func (h *Hub) refuse(w http.ResponseWriter, err *chat.Error) {
	h.log.Warn("request failed", "code", err.Code, "err", err)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(wire.ErrorBody{Error: wire.ErrorOut(err)})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(wire.KindStatus(err.Kind()))
	_, _ = w.Write(buf.Bytes())
}

// authFrame is what the client's first frame carries.
type authFrame struct {
	AppID    string `json:"appId"`
	Type     string `json:"type"`
	Sender   string `json:"sender"`
	DeviceID string `json:"deviceId"`
	Body     struct {
		Auth         string   `json:"auth"`
		DeviceID     string   `json:"deviceId"`
		Presence     string   `json:"presenceSubscription"`
		Roles        []string `json:"roles"`
		PresenceRole []string `json:"presenceRoles"`
	} `json:"body"`
}

// authenticate reads the auth frame and returns its ack, for the caller to send; on failure
// it answers and closes the socket with the reason.
func (c *socket) authenticate(ctx context.Context) ([]byte, error) {
	// A read whose context ends closes the connection without a close frame: the timer
	// closes it with one, which ends the read.
	timer := time.AfterFunc(c.h.opt.AuthTimeout, func() { c.ws.Close(statusPolicy, "no auth frame in time") })
	typ, data, err := c.ws.Read(ctx)
	timer.Stop()
	if err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, c.h.opt.AuthTimeout)
	defer cancel()
	var f authFrame
	if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Type != "auth" {
		c.ws.Close(statusPolicy, "the first frame must be the auth frame")
		return nil, errors.New("no auth frame")
	}
	p, err := c.h.svc.SocketPrincipal(actx, strings.ToLower(f.AppID), f.Body.Auth)
	if err == nil && f.Sender != "" && !strings.EqualFold(f.Sender, p.Actor) {
		err = chat.Errorf(chat.CodeAuthTokenUnknown, "The socket credential is not the sender's.")
	}
	var u chat.User
	if err == nil {
		u, err = c.h.svc.Me(actx, p)
	}
	if err != nil {
		code, msg := "401", "The socket credential is not valid."
		var ce *chat.Error
		if errors.As(err, &ce) {
			msg = ce.Message
			if ce.Code.Kind() != chat.KindUnauthenticated && ce.Code.Kind() != chat.KindNotFound {
				code = strconv.Itoa(wire.StatusOf(ce.Code))
			}
		}
		resp, _ := json.Marshal(map[string]any{"appId": f.AppID, "type": "auth", "sender": f.Sender, "deviceId": f.DeviceID,
			"body": map[string]string{"code": code, "status": "ERROR", "message": msg}})
		wctx, wcancel := context.WithTimeout(ctx, c.h.opt.WriteTimeout)
		_ = c.ws.Write(wctx, websocket.MessageText, resp)
		wcancel()
		c.ws.Close(statusPolicy, truncateReason(msg))
		return nil, err
	}
	c.p, c.app, c.uid, c.role = p, p.App.ID, p.Actor, u.Role
	c.deviceID = f.DeviceID
	if c.deviceID == "" {
		c.deviceID = f.Body.DeviceID
	}
	c.user, _ = json.Marshal(wire.PublicUser(u)) // in frames to other users: never metadata.@private
	c.presence = strings.ToUpper(f.Body.Presence)
	if c.presence == "ROLES" {
		c.roles = map[string]bool{}
		for _, r := range append(f.Body.Roles, f.Body.PresenceRole...) {
			c.roles[strings.ToLower(r)] = true
		}
	}
	if c.presence == "FRIENDS" {
		c.friends = c.h.friendsOf(actx, p)
	}
	ack, _ := json.Marshal(map[string]any{"appId": c.app, "type": "auth", "sender": c.uid, "deviceId": c.deviceID,
		"body": map[string]string{"code": "200", "status": "OK"}})
	return ack, nil
}

// truncateReason keeps a close reason within the 123 bytes a close frame allows.
func truncateReason(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:120]
}

// wantsPresence reports whether the socket subscribed to the presence of u.
func (c *socket) wantsPresence(u *chat.PresenceOf) bool {
	switch c.presence {
	case "ALL_USERS":
		return true
	case "ROLES":
		return c.roles[u.Role]
	case "FRIENDS":
		return c.friends[u.UID]
	}
	return false
}

// inFrame is a frame from the client after authentication.
type inFrame struct {
	Action        string          `json:"action"`
	Type          string          `json:"type"`
	Receiver      string          `json:"receiver"`
	ReceiverType  string          `json:"receiverType"`
	MessageSender string          `json:"messageSender"`
	Body          json.RawMessage `json:"body"`
}

var pong = []byte(`{"action":"pong"}`)

// reader reads and handles the client's frames, one at a time, until the socket closes.
// Its goroutine, which an idle socket keeps, only waits for the next frame: each frame is
// read and handled on a goroutine that ends with it. The waiting one then never outgrows
// the 2 KiB a goroutine starts with (a read grows a stack to 4 KiB at least, and the
// runtime never shrinks it back below that).
func (c *socket) reader() {
	more := make(chan bool, 1)
	for {
		idle := time.AfterFunc(c.h.opt.IdleTimeout, func() { c.shutdown(statusPolicy, "no frame within the idle timeout") })
		if !c.conn.await() {
			// Nothing to wait on without a buffer (TLS, or not Linux): the read waits, here.
			if !c.frame(idle) {
				return
			}
			continue
		}
		go func() { more <- c.frame(idle) }()
		if !<-more {
			return
		}
	}
}

// frame reads and handles one frame from the client; it reports whether to read another.
func (c *socket) frame(idle *time.Timer) bool {
	defer func() {
		// As net/http does for a handler, so that a bug in one socket does not stop the node.
		if v := recover(); v != nil {
			c.h.log.Error("socket panic", "app", c.app, "uid", c.uid, "panic", v, "stack", string(debug.Stack()))
			c.shutdown(websocket.StatusInternalError, "internal error")
		}
	}()
	ctx := context.Background()
	typ, data, err := c.ws.Read(ctx)
	idle.Stop()
	if err != nil {
		if websocket.CloseStatus(err) == -1 {
			c.shutdown(statusPolicy, truncateReason(err.Error()))
		}
		return false
	}
	if !c.allow() {
		c.shutdown(statusPolicy, "too many frames")
		return false
	}
	if typ != websocket.MessageText {
		c.shutdown(statusUnsupported, "frames must be JSON text")
		return false
	}
	var f inFrame
	if err := json.Unmarshal(data, &f); err != nil {
		c.shutdown(statusInvalidPayload, "frames must be JSON objects")
		return false
	}
	switch {
	case f.Action == "ping":
		c.enqueue(pong)
	case f.Type == "typing_indicator" || f.Type == "transient_message":
		c.relay(ctx, f)
	case f.Type == "receipts":
		c.receipt(ctx, f)
	}
	// Other frames (the SDK's own presence announcements among them) are ignored: the
	// server decides presence from the socket itself.
	return true
}

// allow spends one frame of the socket's budget (a token bucket).
func (c *socket) allow() bool {
	now := time.Now()
	c.tokens = min(float64(c.h.opt.FrameBurst), c.tokens+now.Sub(c.last).Seconds()*c.h.opt.FramesPerSecond)
	c.last = now
	if c.tokens < 1 {
		return false
	}
	c.tokens--
	return true
}

// relay passes a typing indicator or transient message on to the receiver: a user, or a
// group the sender belongs to. The sender and its user object are the server's, whatever
// the frame said.
func (c *socket) relay(ctx context.Context, f inFrame) {
	var body map[string]json.RawMessage
	if json.Unmarshal(f.Body, &body) != nil || body == nil {
		body = map[string]json.RawMessage{}
	}
	receiver := strings.ToLower(f.Receiver)
	if _, ok := chat.NormalizeID(receiver); !ok {
		return
	}
	e := chat.Event{App: c.app, Except: c.uid}
	switch f.ReceiverType {
	case chat.ReceiverUser:
		if !c.reach(ctx, receiver) {
			return
		}
		e.Users = []string{receiver}
	case chat.ReceiverGroup:
		if !c.member(ctx, receiver) {
			return
		}
		e.Group = receiver
	default:
		return
	}
	body["user"] = c.user
	if f.Type == "typing_indicator" {
		if a := string(body["action"]); a != `"started"` && a != `"ended"` {
			return
		}
	}
	e.Frame = c.h.frame(c.app, receiver, f.ReceiverType, c.deviceID, f.Type, c.uid, body)
	c.h.Publish(ctx, e)
}

// reach reports whether the socket's user may type to uid: no block between them, as
// messages need. A yes is remembered for 10 s, so a new block silences a typing user
// within that.
func (c *socket) reach(ctx context.Context, uid string) bool {
	return remember(&c.reaches, uid, 10*time.Second, func() (bool, error) { return c.h.svc.MayReach(ctx, c.app, c.uid, uid) })
}

// member reports whether the socket's user is a member of guid, remembered for a minute.
func (c *socket) member(ctx context.Context, guid string) bool {
	return remember(&c.memberOf, guid, time.Minute, func() (bool, error) { return c.h.svc.IsMember(ctx, c.app, guid, c.uid) })
}

// remember answers check for key, keeping a yes in seen for ttl (at most 1000 keys, made at
// the first yes; a socket's frames are handled one at a time). A no or an error is asked
// again next time.
func remember(seen *map[string]time.Time, key string, ttl time.Duration, check func() (bool, error)) bool {
	if until, ok := (*seen)[key]; ok && time.Now().Before(until) {
		return true
	}
	if ok, err := check(); err != nil || !ok {
		return false
	}
	if *seen == nil {
		*seen = map[string]time.Time{}
	}
	if len(*seen) > 1000 {
		clear(*seen)
	}
	(*seen)[key] = time.Now().Add(ttl)
	return true
}

// receipt records a read or delivery receipt the client sent and passes it on: to the other
// user of a one-to-one conversation, or to the sender of a group message.
func (c *socket) receipt(ctx context.Context, f inFrame) {
	var body struct {
		Action    string          `json:"action"`
		MessageID json.RawMessage `json:"messageId"`
	}
	if json.Unmarshal(f.Body, &body) != nil {
		return
	}
	var what chat.MarkKind
	switch body.Action {
	case "read":
		what = chat.MarkRead
	case "delivered":
		what = chat.MarkDelivered
	default:
		return
	}
	mid, err := chat.ParseMessageID(strings.Trim(string(body.MessageID), `"`))
	if err != nil {
		return
	}
	receiver := strings.ToLower(f.Receiver)
	var to string
	kind := chat.ConversationUser
	switch f.ReceiverType {
	case chat.ReceiverUser:
		to = receiver
	case chat.ReceiverGroup:
		kind, to = chat.ConversationGroup, strings.ToLower(f.MessageSender)
	default:
		return
	}
	if err := c.h.svc.Mark(ctx, c.p, kind, receiver, what, mid); err != nil {
		c.h.log.Debug("socket receipt refused", "app", c.app, "uid", c.uid, "err", err)
		return
	}
	if to == "" || to == c.uid {
		return
	}
	out := map[string]any{"action": body.Action, "messageId": strconv.FormatInt(mid, 10), "user": c.user, "timestamp": c.h.svc.Now()}
	rcv := c.uid // a one-to-one receipt is about a message the reader received
	if kind == chat.ConversationGroup {
		rcv = receiver
	}
	c.h.Publish(ctx, chat.Event{App: c.app, Users: []string{to},
		Frame: c.h.frame(c.app, rcv, f.ReceiverType, c.deviceID, "receipts", c.uid, out)})
}
