package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
)

// The group scenarios share one group of groupSize seeded users (the "reaction storm" of
// issue 11: every connection on one 100-member group), with groupMsgs messages in it.
const (
	groupSize = 100
	groupMsgs = 200
)

type groupData struct {
	guid    string
	members []string
	msgs    []string // message ids
}

// seedGroup creates the group with the first groupSize seeded users (25 per call, the
// most one call may add) and its messages, each from a random member.
func seedGroup(ctx context.Context, a *api, tag string, d *seedData, conns int) (groupData, error) {
	g := groupData{guid: tag + "-storm"}
	if len(d.users) < groupSize {
		return g, fmt.Errorf("the group scenarios need at least %d users (-users)", groupSize)
	}
	g.members = d.users[:groupSize]
	owner := g.members[0]
	if err := a.do(ctx, http.MethodPost, "/v3/groups", owner, map[string]any{"guid": g.guid, "name": "Reaction storm", "type": "public"}, nil); err != nil {
		return g, fmt.Errorf("seed group: %w", err)
	}
	for i := 1; i < len(g.members); i += 25 {
		batch := g.members[i:min(i+25, len(g.members))]
		if err := a.do(ctx, http.MethodPost, "/v3/groups/"+g.guid+"/members", "", map[string]any{"participants": batch}, nil); err != nil {
			return g, fmt.Errorf("seed group members: %w", err)
		}
	}
	g.msgs = make([]string, groupMsgs)
	err := parallel(ctx, groupMsgs, conns, func(ctx context.Context, i int) error {
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		body := map[string]any{"receiver": g.guid, "receiverType": "group", "data": map[string]string{"text": "storm " + strconv.Itoa(i)}}
		if err := a.do(ctx, http.MethodPost, "/v3/messages", g.members[i%groupSize], body, &out); err != nil {
			return err
		}
		g.msgs[i] = out.Data.ID
		return nil
	})
	if err != nil {
		return g, fmt.Errorf("seed group messages: %w", err)
	}
	return g, nil
}

// groupSendScenario sends text messages to the group, each from a random member.
func groupSendScenario(base string, g *groupData) *scenario {
	var n atomic.Uint64
	return &scenario{name: "group-send", base: base, method: http.MethodPost, next: func(w *worker) {
		w.behalf[0] = g.members[w.rng.IntN(len(g.members))]
		w.path = append(w.path, "/v3/messages"...)
		w.body = append(w.body, `{"receiver":"`...)
		w.body = append(w.body, g.guid...)
		w.body = append(w.body, `","receiverType":"group","category":"message","type":"text","data":{"text":"group message `...)
		w.body = strconv.AppendUint(w.body, n.Add(1), 10)
		w.body = append(w.body, `"}}`...)
	}}
}

// groupReactionScenario is the reaction storm: every connection adds reactions to the
// group's messages as its members, walking the (message, member, reaction) triples in a
// scattered order as add-reaction does, so each request adds a row until the space is used.
func groupReactionScenario(base string, g *groupData) *scenario {
	escaped := make([]string, len(reactions))
	for i, r := range reactions {
		escaped[i] = url.PathEscape(r)
	}
	m := uint64(len(g.msgs))
	space := m * groupSize * uint64(len(reactions))
	stride := scatterStride(space)
	var issued, repeats atomic.Uint64
	return &scenario{
		name: "group-reaction", base: base, method: http.MethodPost,
		next: func(w *worker) {
			i := issued.Add(1) - 1
			if i >= space {
				repeats.Add(1)
			}
			j := (i % space) * stride % space
			rest := j / m
			w.behalf[0] = g.members[rest%groupSize]
			w.path = append(append(w.path, "/v3/messages/"...), g.msgs[j%m]...)
			w.path = append(append(w.path, "/reactions/"...), escaped[rest/groupSize]...)
		},
		notes: func() string {
			n, r := issued.Load(), repeats.Load()
			return fmt.Sprintf("group-reaction: %d requests (warmup included) on one %d-member group's %d messages, over a space of %d (message, member, reaction) triples; %d (%.1f%%) repeated a triple.",
				n, groupSize, m, space, r, 100*float64(r)/float64(max(n, 1)))
		},
		verify: func(ctx context.Context, a *api, res result) (string, error) {
			return verifyGroupReactions(ctx, a, g, min(issued.Load(), space), res.errors+res.warmErrs)
		},
	}
}

// verifyGroupReactions reads the group's messages back and checks that the counts add up to
// the distinct triples the storm sent.
func verifyGroupReactions(ctx context.Context, a *api, g *groupData, distinct, errors uint64) (string, error) {
	counts := make([]uint64, len(g.msgs))
	err := parallel(ctx, len(g.msgs), 8, func(ctx context.Context, i int) error {
		var out struct {
			Data struct {
				Data struct {
					Reactions []struct {
						Count uint64 `json:"count"`
					} `json:"reactions"`
				} `json:"data"`
			} `json:"data"`
		}
		if err := a.do(ctx, http.MethodGet, "/v3/messages/"+g.msgs[i], "", nil, &out); err != nil {
			return err
		}
		for _, r := range out.Data.Data.Reactions {
			counts[i] += r.Count
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("group-reaction read-back: %w", err)
	}
	var total uint64
	for _, c := range counts {
		total += c
	}
	if errors == 0 && total != distinct {
		return "", fmt.Errorf("group-reaction read-back: the group's messages hold %d reactions, the storm added %d distinct ones", total, distinct)
	}
	return fmt.Sprintf("group-reaction read-back: %d reactions on the group's %d messages, as many as the distinct triples sent.", total, len(g.msgs)), nil
}
