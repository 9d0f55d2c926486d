package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The notification phase (-notify): natter pushes every one-to-one message to its receiver
// through an FCM provider whose endpoints (the OAuth2 token exchange and messages:send) are
// fcmFake, on loopback (NATTER_NOTIFY_FCM_URL, NATTER_NOTIFY_GOOGLE_TOKEN_URL). Senders send
// as fast as natter answers; the phase reports how many pushes reached the fake while they
// sent and how long the rest took, and duplicates (one message pushed twice to a token).

// fcmFake is FCM: it answers the token exchange with an access token and each send with a
// message name, and notes each message's first push per token.
type fcmFake struct {
	srv  *http.Server
	url  string
	mu   sync.Mutex
	seen map[string]bool // token/message id
	dups int
}

func newFCMFake() (*fcmFake, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &fcmFake{url: "http://" + ln.Addr().String(), seen: map[string]bool{}}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go f.srv.Serve(ln)
	return f, nil
}

func (f *fcmFake) close() { f.srv.Close() }

func (f *fcmFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/token" {
		io.WriteString(w, `{"access_token":"whbench-access","expires_in":3600,"token_type":"Bearer"}`)
		return
	}
	var req struct {
		Message struct {
			Token string
			Data  map[string]string
		}
	}
	if !strings.HasSuffix(r.URL.Path, "/messages:send") || json.Unmarshal(body, &req) != nil || r.Header.Get("Authorization") != "Bearer whbench-access" {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"status":"INVALID_ARGUMENT","message":"whbench: not a send"}}`)
		return
	}
	key := req.Message.Token + "/" + req.Message.Data["messageId"]
	f.mu.Lock()
	if f.seen[key] {
		f.dups++
	}
	f.seen[key] = true
	n := len(f.seen)
	f.mu.Unlock()
	fmt.Fprintf(w, `{"name":"projects/whbench/messages/%d"}`, n)
}

func (f *fcmFake) pushed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

func (f *fcmFake) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.seen)
	f.dups = 0
}

// fcmEnv points natter's FCM client at the fake.
func (f *fcmFake) env() []string {
	return []string{"NATTER_NOTIFY_FCM_URL=" + f.url, "NATTER_NOTIFY_GOOGLE_TOKEN_URL=" + f.url + "/token"}
}

// serviceAccount is an FCM service account with a fresh key.
func serviceAccount() (string, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]string{"type": "service_account", "project_id": "whbench", "private_key_id": "k1",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "client_email": "whbench@whbench.iam.gserviceaccount.com",
		"client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"})
	return string(b), err
}

// notifyBench runs the notification phase on a node whose users exist: an FCM provider, a
// push token per receiving user, then the senders.
func notifyBench(ctx context.Context, o options, f *fcmFake, n *node, name string) error {
	f.reset()
	sa, err := serviceAccount()
	if err != nil {
		return err
	}
	if err := n.call(ctx, "POST", "/notifications/push/v1/providers/fcm", "", map[string]any{"providerId": "whbench",
		"serviceAccountCreds": json.RawMessage(sa)}, nil); err != nil {
		return err
	}
	errs := make(chan error, o.convs)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for c := range o.convs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			u := uid(2*c + 1)
			var tok struct{ AuthToken string }
			err := n.call(ctx, "POST", "/users/"+u+"/auth_tokens", "", map[string]any{}, &tok)
			if err == nil {
				err = n.call(ctx, "POST", "/notifications/push/v1/tokens", "", map[string]any{"platform": "fcm_android",
					"providerId": "whbench", "fcmToken": "fcm-" + u, "authToken": tok.AuthToken}, nil)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	var sent atomic.Int64
	var sendErr atomic.Value
	sendCtx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()
	t0 := time.Now()
	for w := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; sendCtx.Err() == nil; i += o.conns {
				if _, _, err := n.send(sendCtx, i%o.convs); err != nil {
					if sendCtx.Err() == nil {
						sendErr.Store(err)
					}
					return
				}
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := sendErr.Load().(error); ok {
		return fmt.Errorf("%s notifications: %w", name, err)
	}
	sendTime := time.Since(t0)
	atStop, total := f.pushed(), int(sent.Load())
	tStop := time.Now()
	for f.pushed() < total {
		if time.Since(tStop) > 2*time.Minute || ctx.Err() != nil {
			return fmt.Errorf("%s notifications: %d of %d pushed within 2 minutes", name, f.pushed(), total)
		}
		time.Sleep(5 * time.Millisecond)
	}
	drain := time.Since(tStop)
	time.Sleep(200 * time.Millisecond)
	f.mu.Lock()
	dups := f.dups
	f.mu.Unlock()
	fmt.Printf("%s: notifications: %d senders sent %d one-to-one messages in %v (%.0f/s) while %d were pushed through FCM (%.0f/s, %.0f%%); the %d left in %v (%.0f/s); %d duplicates\n",
		name, o.conns, total, sendTime.Round(time.Millisecond), float64(total)/sendTime.Seconds(), atStop, float64(atStop)/sendTime.Seconds(),
		100*float64(atStop)/float64(max(total, 1)), total-atStop, drain.Round(time.Millisecond), float64(total-atStop)/max(drain.Seconds(), 1e-3), dups)
	return nil
}
