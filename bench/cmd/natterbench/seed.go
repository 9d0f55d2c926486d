package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// msgRef is a seeded message and its two participants, the only users who may react.
type msgRef struct {
	id       string
	sender   string
	receiver string
}

type seedData struct {
	users []string
	msgs  []msgRef
}

// api is a small client for seeding and checks; the load itself goes through worker.
type api struct {
	base   string
	apiKey string
	client *http.Client
}

func newAPI(base, apiKey string, conns int) *api {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}
	return &api{base: base, apiKey: apiKey, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// do sends one request with the API key and decodes a 2xx response into out (when not nil).
func (a *api) do(ctx context.Context, method, path, onBehalfOf string, body any, out any) error {
	return a.doAs(ctx, method, path, onBehalfOf, "", body, out)
}

// doAs is do as a client SDK with authToken when it is not empty (and then without the API
// key).
func (a *api) doAs(ctx context.Context, method, path, onBehalfOf, authToken string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return err
	}
	if authToken != "" {
		req.Header.Set("authToken", authToken)
	} else {
		req.Header.Set("apikey", a.apiKey)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if onBehalfOf != "" {
		req.Header.Set("onBehalfOf", onBehalfOf)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// parallel runs f(i) for i in [0, n) on conns goroutines and returns the first error.
func parallel(ctx context.Context, n, conns int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(conns, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if err := f(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}

// seed creates users and one-to-one messages between random distinct pairs through the API.
// uids carry the run's tag so a reused (PostgreSQL) database does not collide.
func seed(ctx context.Context, a *api, tag string, nUsers, nMsgs, conns int, rng *rand.Rand) (seedData, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var d seedData
	d.users = make([]string, nUsers)
	for i := range d.users {
		d.users[i] = fmt.Sprintf("%s-u%06d", tag, i)
	}
	err := parallel(ctx, nUsers, conns, func(ctx context.Context, i int) error {
		return a.do(ctx, http.MethodPost, "/v3/users", "", map[string]string{"uid": d.users[i], "name": "Bench User " + strconv.Itoa(i)}, nil)
	})
	if err != nil {
		return d, fmt.Errorf("seed users: %w", err)
	}

	d.msgs = make([]msgRef, nMsgs)
	for i := range d.msgs {
		s, r := randomPair(rng, len(d.users))
		d.msgs[i] = msgRef{sender: d.users[s], receiver: d.users[r]}
	}
	err = parallel(ctx, nMsgs, conns, func(ctx context.Context, i int) error {
		m := &d.msgs[i]
		var out struct {
			Data struct {
				ID       string `json:"id"`
				Sender   string `json:"sender"`
				Receiver string `json:"receiver"`
			} `json:"data"`
		}
		body := map[string]any{"receiver": m.receiver, "receiverType": "user", "category": "message", "type": "text",
			"data": map[string]string{"text": "seed message " + strconv.Itoa(i)}}
		if err := a.do(ctx, http.MethodPost, "/v3/messages", m.sender, body, &out); err != nil {
			return err
		}
		if out.Data.ID == "" || out.Data.Sender != m.sender || out.Data.Receiver != m.receiver {
			return fmt.Errorf("send message: unexpected answer %+v", out.Data)
		}
		m.id = out.Data.ID
		return nil
	})
	if err != nil {
		return d, fmt.Errorf("seed messages: %w", err)
	}
	return d, nil
}

func randomPair(rng *rand.Rand, n int) (int, int) {
	a := rng.IntN(n)
	b := rng.IntN(n - 1)
	if b >= a {
		b++
	}
	return a, b
}
