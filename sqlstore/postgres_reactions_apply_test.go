package sqlstore

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/natter-chat/natter/chat"
)

// TestPGBatchModel drives the PostgreSQL batch's model directly, without a server: changes
// that follow each other on one message inside a batch — a count dropping to zero and coming
// back, a row removed and added again, a row added and removed again, a repeat, the cap —
// each answered as that change left the message, and turned into the right net writes.
func TestPGBatchModel(t *testing.T) {
	m := &pgMessage{
		msg:     chat.Message{ID: 7, AppID: "a", Sender: "u0", Receiver: "u1", ReceiverType: "user"},
		initial: []reactionCount{{reaction: "x", count: 1, firstID: 10, firstAt: 1}},
	}
	m.counts = append([]reactionCount(nil), m.initial...)
	msgs := map[int64]*pgMessage{7: m}
	pairs := map[pairKey]map[string]*pgRow{
		{7, "u0"}: {"x": {initial: true, final: true}},
		{7, "u1"}: {},
	}
	ids := []int64{100, 101, 102}
	errLimit := errors.New("over the cap")
	steps := []struct {
		uid, reaction string
		add           bool
		max           int
		want          []chat.ReactionSummary
		wantErr       error
	}{
		{"u0", "x", false, 0, nil, nil}, // x drops to zero
		{"u0", "x", true, 0, []chat.ReactionSummary{{Reaction: "x", Count: 1, ReactedByMe: true}}, nil}, // and comes back: a new row, a new first id
		{"u1", "y", true, 0, []chat.ReactionSummary{{Reaction: "x", Count: 1, ReactedByMe: false}, {Reaction: "y", Count: 1, ReactedByMe: true}}, nil},
		{"u1", "y", true, 0, []chat.ReactionSummary{{Reaction: "x", Count: 1, ReactedByMe: false}, {Reaction: "y", Count: 1, ReactedByMe: true}}, nil}, // a repeat
		{"u1", "z", true, 2, nil, errLimit}, // a third kind over a cap of 2
		{"u1", "y", false, 0, []chat.ReactionSummary{{Reaction: "x", Count: 1, ReactedByMe: false}}, nil}, // added and removed in the batch
	}
	var jobs []*pgJob
	for i, s := range steps {
		j := &pgJob{ctx: context.Background(),
			c: chat.ReactionChange{AppID: "a", MessageID: 7, UID: s.uid, Reaction: s.reaction, Add: s.add, At: int64(100 + i), Max: s.max}}
		jobs = append(jobs, j)
		err := apply(j, m, nil, false, pairs[pairKey{7, s.uid}], &ids)
		if s.wantErr != nil {
			if chat.ErrorCode(err) != chat.CodeReactionLimitExceeded {
				t.Fatalf("step %d: %v, want %v", i, err, s.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(j.msg.Reactions, s.want) {
			t.Fatalf("step %d: %+v, %v; want %+v", i, j.msg.Reactions, err, s.want)
		}
	}
	var w pgx.Batch
	queueWrites(&w, jobs, msgs, pairs)
	got := map[string][]any{}
	for _, q := range w.QueuedQueries {
		got[q.SQL] = q.Arguments
	}
	want := map[string][]any{
		pgDeleteRowsQuery:   {[]int64{7}, []string{"u0"}, []string{"x"}},
		pgDeleteCountsQuery: {[]int64{7}, []int64{10}},
		pgInsertRowsQuery:   {[]int64{100}, []string{"a"}, []int64{7}, []string{"u0"}, []string{"x"}, []int64{101}},
		pgInsertCountsQuery: {[]int64{7}, []int64{100}, []string{"x"}, []int64{1}, []int64{101}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("writes:\n got %v\nwant %v", got, want)
	}
}
