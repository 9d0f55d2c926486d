package realtime

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// The hub hears committed changes from the service's feed (chat.Service.Subscribe) and
// turns those sockets show, messages, reactions and agents' typing, into frames: no handler
// publishes. The
// feed brings this node's changes as they commit and, on PostgreSQL, the other nodes' from
// the change log (chat.Service.FollowChanges), so the frames go to this node's sockets only:
// every node renders the changes it hears. A node that fell behind the change log hears
// chat.ChangeResync, and closes its sockets: the client SDK reconnects and reads what it
// missed through the REST lists, as after any lost connection.

// feedQueue bounds the changes waiting to become frames; an announcing write waits (it
// does not drop them) only while it is full.
const feedQueue = 4096

// changed is the hub's listener. It runs on the goroutine that announces, the writer's, so
// it only queues what sockets show for the hub's relay, keeping their order.
func (h *Hub) changed(changes []chat.Change) {
	for i := range changes {
		if k := changes[i].Kind; k == chat.ChangeMessage || k == chat.ChangeReaction || k == chat.ChangeTyping || k == chat.ChangeResync ||
			k == chat.ChangeInteraction && changes[i].Subject == chat.InteractionGoalCompleted {
			select {
			case h.feed <- changes:
			case <-h.stop:
			}
			return
		}
	}
}

// relay renders the queued changes into frames and hands them to this node's sockets, in the
// order they were announced, until the hub closes.
func (h *Hub) relay() {
	defer h.wg.Done()
	for {
		select {
		case <-h.stop:
			return
		case changes := <-h.feed:
			for i := range changes {
				h.publishChange(&changes[i])
			}
		}
	}
}

// publishChange hands the frame of one change to this node's sockets, if they show it.
func (h *Hub) publishChange(c *chat.Change) {
	ctx, cancel := context.WithTimeout(context.Background(), h.opt.WriteTimeout)
	defer cancel()
	var e chat.Event
	var ok bool
	switch c.Kind {
	case chat.ChangeMessage:
		e, ok = h.messageEvent(c.Message, c.Device)
	case chat.ChangeReaction:
		e, ok = h.reactionEvent(ctx, c)
	case chat.ChangeTyping:
		e, ok = h.typingEvent(ctx, c)
	case chat.ChangeInteraction:
		e, ok = h.interactionEvent(ctx, c)
	case chat.ChangeResync:
		h.resync()
	}
	if ok {
		h.deliver(e)
	}
}

// resync closes every socket of this node, which missed changes: each client reconnects and
// reads what it missed (hubfeed.go's doc).
func (h *Hub) resync() {
	h.mu.RLock()
	all := h.held()
	h.mu.RUnlock()
	h.log.Warn("real time: this node fell behind the change log; its sockets reconnect", "sockets", len(all))
	for _, c := range all {
		c.shutdown(statusTryAgainLater, "missed events: reconnect")
	}
}
