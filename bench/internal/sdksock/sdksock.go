// Package sdksock opens natter's real-time sockets the way the client SDK does, for the
// load tools under bench/: a WebSocket on the server's root path whose first frame is the
// auth frame carrying the socket credential (the jwt of PUT /v3/me).
package sdksock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder/websocket"
)

// Ping is the SDK's keep-alive frame (it sends one every 15 s); natter answers a pong.
var Ping = []byte(`{"action":"ping","ack":"true"}`)

// Open dials base (http://host:port), authenticates as uid with jwt and waits for the
// ack; then a goroutine reads every frame until the socket closes, passing each to onFrame
// (which may be nil). appID may be empty: natter then takes the credential's own app.
func Open(ctx context.Context, base, appID, uid, jwt string, onFrame func([]byte)) (*websocket.Conn, error) {
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/", nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(1 << 20)
	auth, _ := json.Marshal(map[string]any{"appId": appID, "type": "auth", "sender": uid, "deviceId": "d-" + uid, "body": map[string]any{"auth": jwt}})
	if err := ws.Write(ctx, websocket.MessageText, auth); err != nil {
		ws.CloseNow()
		return nil, err
	}
	if _, ack, err := ws.Read(ctx); err != nil || !bytes.Contains(ack, []byte(`"code":"200"`)) {
		ws.CloseNow()
		return nil, fmt.Errorf("auth %s: %v %s", uid, err, ack)
	}
	go func() {
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			if onFrame != nil {
				onFrame(data)
			}
		}
	}()
	return ws, nil
}
