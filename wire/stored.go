package wire

import (
	"bytes"
	"encoding/json"

	"github.com/natter-chat/natter/chat"
)

// Stored JSON (user metadata, message data) is written into responses as stored. natter
// refuses invalid UTF-8 and stores escaped lone surrogates as \ufffd (chat/utf8.go), but rows
// written before it did, or edited by hand, may hold either, or not be JSON at all. One such
// row must not make a whole page unreadable, so every stored object is checked on its way
// out, and repaired or left out.

// StoredObject returns b, a JSON object natter stored, fit to write: b itself when it is
// valid UTF-8 JSON without escaped lone surrogates, else its repair (chat.RepairJSONText),
// else nil when even that is not a JSON object.
func StoredObject(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	fixed, _ := chat.RepairJSONText(b)
	if !json.Valid(fixed) {
		return nil
	}
	fixed = bytes.TrimSpace(fixed)
	if fixed[0] != '{' {
		return nil
	}
	return fixed
}
