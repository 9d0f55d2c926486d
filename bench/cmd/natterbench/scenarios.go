package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// reactions are the reaction strings add-reaction cycles through: emoji (some with a
// variation selector or a ZWJ sequence), plain words, and two that need percent-escaping
// beyond UTF-8 (a space, a percent sign).
var reactions = []string{
	"👍", "❤️", "😂", "😮", "😢", "🙏", "🎉", "🔥", "👀", "✅",
	"💯", "🚀", "👨‍💻", "🤔", "👏", "+1", "ok", "lol", "well done", "100%",
}

// bareBody is the bare handler's fixed response, about 200 bytes of JSON shaped like a
// small message.
const bareBody = `{"data":{"id":"1","conversationId":"bench-a_user_bench-b","sender":"bench-a","receiverType":"user",` +
	`"receiver":"bench-b","category":"message","type":"text","data":{"text":"hello"},"sentAt":1700000000}}` + "\n"

// startBare starts the machine-ceiling server: a standard http.Server on a loopback port
// whose one handler writes bareBody.
func startBare(host string) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, "", err
	}
	body := []byte(bareBody)
	clen := strconv.Itoa(len(body))
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", clen)
			w.WriteHeader(http.StatusOK)
			w.Write(body)
		}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String(), nil
}

func bareScenario(base string, d *seedData) *scenario {
	return &scenario{name: "bare", base: base, method: http.MethodGet, next: func(w *worker) {
		m := &d.msgs[w.rng.IntN(len(d.msgs))]
		w.path = append(append(w.path, "/v3/messages/"...), m.id...)
	}}
}

// mixedReactions are the reactions the mixed scenario adds: none of add-reaction's, so
// that each scenario adds rows of its own whichever runs first.
var mixedReactions = []string{"😀", "😅", "🥳", "🙌", "💪", "🤝", "😍", "🤯", "🙈", "⭐"}

// addReactionScenario walks the space of (message, participant, reaction) triples in a
// scattered order, so consecutive requests hit different messages and each request adds a
// new row until the space (messages × 2 × len(reactions)) is used up; after that requests
// repeat triples, which natter answers 200 without a new row. notes says how many repeated.
func addReactionScenario(base string, d *seedData) *scenario {
	return reactionScenario("add-reaction", base, d, reactions)
}

// reactionScenario is add-reaction's walk over the triples of the reactions in set.
func reactionScenario(name, base string, d *seedData, set []string) *scenario {
	escaped := make([]string, len(set))
	for i, r := range set {
		escaped[i] = url.PathEscape(r)
	}
	m := uint64(len(d.msgs))
	space := m * 2 * uint64(len(set))
	stride := scatterStride(space)
	var issued, repeats atomic.Uint64
	return &scenario{
		name: name, base: base, method: http.MethodPost,
		next: func(w *worker) {
			i := issued.Add(1) - 1
			if i >= space {
				repeats.Add(1)
			}
			j := (i % space) * stride % space
			msg := &d.msgs[j%m]
			rest := j / m
			w.behalf[0] = msg.sender
			if rest%2 == 1 {
				w.behalf[0] = msg.receiver
			}
			w.path = append(append(w.path, "/v3/messages/"...), msg.id...)
			w.path = append(append(w.path, "/reactions/"...), escaped[rest/2]...)
		},
		notes: func() string {
			n, r := issued.Load(), repeats.Load()
			return fmt.Sprintf("%s: %d requests (warmup included) over a space of %d (message, participant, reaction) triples; %d (%.1f%%) repeated a triple already added.",
				name, n, space, r, 100*float64(r)/float64(max(n, 1)))
		},
		verify: func(ctx context.Context, a *api, res result) (string, error) {
			return verifyReactions(ctx, a, d, min(issued.Load(), space), res.errors+res.warmErrs)
		},
	}
}

// verifyReactions reads every seeded message back and checks that each reaction natter
// stored is one the harness sent (so the percent-escaping round-trips) and, when no request
// failed, that natter holds exactly one row of add-reaction's reactions per distinct triple
// it sent (the mixed scenario's are other reactions).
func verifyReactions(ctx context.Context, a *api, d *seedData, distinct, errors uint64) (string, error) {
	if len(d.msgs) > 20000 {
		return "add-reaction: read-back check skipped (more than 20000 messages).", nil
	}
	known, mixed := map[string]bool{}, map[string]bool{}
	for _, r := range reactions {
		known[r] = true
	}
	for _, r := range mixedReactions {
		mixed[r] = true
	}
	counts := make([]uint64, len(d.msgs))
	seen := make([]map[string]bool, len(d.msgs))
	err := parallel(ctx, len(d.msgs), 8, func(ctx context.Context, i int) error {
		var out struct {
			Data struct { // the message
				Data struct { // its content, with the generated entities and reactions
					Reactions []struct {
						Reaction string `json:"reaction"`
						Count    uint64 `json:"count"`
					} `json:"reactions"`
				} `json:"data"`
			} `json:"data"`
		}
		if err := a.do(ctx, http.MethodGet, "/v3/messages/"+d.msgs[i].id, "", nil, &out); err != nil {
			return err
		}
		seen[i] = map[string]bool{}
		for _, r := range out.Data.Data.Reactions {
			if mixed[r.Reaction] {
				continue
			}
			if !known[r.Reaction] {
				return fmt.Errorf("message %s holds reaction %q, which the harness never sent", d.msgs[i].id, r.Reaction)
			}
			seen[i][r.Reaction] = true
			counts[i] += r.Count
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("add-reaction read-back: %w", err)
	}
	var total uint64
	kinds := map[string]bool{}
	for i := range counts {
		total += counts[i]
		for r := range seen[i] {
			kinds[r] = true
		}
	}
	if errors == 0 && total != distinct {
		return "", fmt.Errorf("add-reaction read-back: natter holds %d reaction rows on the seeded messages, the harness added %d distinct ones", total, distinct)
	}
	return fmt.Sprintf("add-reaction read-back: %d reaction rows on %d messages, %d of %d distinct reaction strings, all as sent.",
		total, len(d.msgs), len(kinds), len(reactions)), nil
}

// scatterStride returns a stride near n/φ that is coprime with n, so i ↦ i·stride mod n is a
// permutation of [0, n) that jumps around.
func scatterStride(n uint64) uint64 {
	if n <= 2 {
		return 1
	}
	s := uint64(float64(n) * 0.6180339887)
	for gcd(s, n) != 1 {
		s++
	}
	return s
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func sendMessageScenario(base string, d *seedData) *scenario {
	var n atomic.Uint64
	return &scenario{name: "send-message", base: base, method: http.MethodPost, next: func(w *worker) {
		s, r := randomPair(w.rng, len(d.users))
		w.behalf[0] = d.users[s]
		w.path = append(w.path, "/v3/messages"...)
		w.body = append(w.body, `{"receiver":"`...)
		w.body = append(w.body, d.users[r]...)
		w.body = append(w.body, `","receiverType":"user","category":"message","type":"text","data":{"text":"bench message `...)
		w.body = strconv.AppendUint(w.body, n.Add(1), 10)
		w.body = append(w.body, `"}}`...)
	}}
}

func getMessageScenario(base string, d *seedData) *scenario {
	return &scenario{name: "get-message", base: base, method: http.MethodGet, next: func(w *worker) {
		m := &d.msgs[w.rng.IntN(len(d.msgs))]
		w.path = append(append(w.path, "/v3/messages/"...), m.id...)
	}}
}

// historyScenario reads the newest page of 50 of a seeded one-to-one conversation, as one
// of its two users: GET /v3/users/{other}/messages?affix=prepend&limit=50 with onBehalfOf.
func historyScenario(base string, d *seedData) *scenario {
	return &scenario{name: "history", base: base, method: http.MethodGet, next: func(w *worker) {
		m := &d.msgs[w.rng.IntN(len(d.msgs))]
		me, other := m.sender, m.receiver
		if w.rng.IntN(2) == 1 {
			me, other = other, me
		}
		w.behalf[0] = me
		w.path = append(append(w.path, "/v3/users/"...), other...)
		w.path = append(w.path, "/messages?affix=prepend&limit=50"...)
	}}
}

// conversationsScenario reads the first page of 50 of a random seeded user's conversation
// list: GET /v3/conversations?perPage=50 with onBehalfOf.
func conversationsScenario(base string, d *seedData) *scenario {
	return &scenario{name: "conversations", base: base, method: http.MethodGet, next: func(w *worker) {
		w.behalf[0] = d.users[w.rng.IntN(len(d.users))]
		w.path = append(w.path, "/v3/conversations?perPage=50"...)
	}}
}
