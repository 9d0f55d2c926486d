package httpapi

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// writeMessage writes {"data": m}.
func writeMessage(w http.ResponseWriter, r *http.Request, m chat.Message) {
	b := bytesPool.Get().(*[]byte)
	defer bytesPool.Put(b)
	out := append((*b)[:0], `{"data":`...)
	out = wire.AppendMessage(out, m)
	out = append(out, "}\n"...)
	*b = out
	writeBody(w, r, http.StatusOK, out)
}
