package httpapi

import (
	"context"

	"github.com/natter-chat/natter/chat"
)

// The hub hears committed changes from the service's feed (chat.Service.Subscribe) and
// turns those sockets show, messages and reactions, into frames: no handler publishes.

// feedQueue bounds the changes waiting to become frames; an announcing write waits (it
// does not drop them) only while it is full.
const feedQueue = 4096

// changed is the hub's listener. It runs on the goroutine that announces, the writer's, so
// it only queues what sockets show for the hub's relay, keeping their order.
func (h *Hub) changed(changes []chat.Change) {
	for i := range changes {
		if k := changes[i].Kind; k == chat.ChangeMessage || k == chat.ChangeReaction {
			select {
			case h.feed <- changes:
			case <-h.stop:
			}
			return
		}
	}
}

// relay renders the queued changes into frames and publishes them, in the order they were
// announced, until the hub closes.
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

// publishChange publishes the frame of one change, if sockets show it.
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
	}
	if ok {
		h.Publish(ctx, e)
	}
}
