package chat

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func i64(n int64) *int64 { return &n }

// fields is the sorted names an error's details name; nil for no error.
func fields(err error) []string {
	if err == nil {
		return nil
	}
	e, ok := err.(*Error)
	if !ok {
		return []string{"not a chat.Error: " + err.Error()}
	}
	var out []string
	for f := range e.Details {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

func TestTimeRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Range
		want []string
	}{
		{"open", Range{}, nil},
		{"from only", Range{From: i64(0)}, nil},
		{"to only", Range{To: i64(MaxUnixSeconds)}, nil},
		{"one second", Range{From: i64(5), To: i64(5)}, nil},
		{"from after to", Range{From: i64(6), To: i64(5)}, []string{"createdAt[from]"}},
		{"negative from", Range{From: i64(-1)}, []string{"createdAt[from]"}},
		{"to past the year 9999", Range{To: i64(MaxUnixSeconds + 1)}, []string{"createdAt[to]"}},
		{"both out of bounds", Range{From: i64(-1), To: i64(MaxUnixSeconds + 1)}, []string{"createdAt[from]", "createdAt[to]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fieldErrors{}
			fe.timeRange("createdAt", tc.r)
			if diff := cmp.Diff(tc.want, fields(fe.err())); diff != "" {
				t.Errorf("fields named (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCountFilter(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    CountFilter
		want []string
	}{
		{"none", CountFilter{}, nil},
		{"a range", CountFilter{GTE: i64(2), LTE: i64(10)}, nil},
		{"one count", CountFilter{GTE: i64(3), LTE: i64(3), EQ: i64(3)}, nil},
		{"gt and lt pass as given", CountFilter{GT: i64(5), LT: i64(6)}, nil},
		{"gte above lte", CountFilter{GTE: i64(11), LTE: i64(10)}, []string{"membersCount[gte]"}},
		{"negative eq", CountFilter{EQ: i64(-1)}, []string{"membersCount[eq]"}},
		{"negative gt and lt", CountFilter{GT: i64(-1), LT: i64(-2)}, []string{"membersCount[gt]", "membersCount[lt]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fieldErrors{}
			fe.countFilter("membersCount", tc.c)
			if diff := cmp.Diff(tc.want, fields(fe.err())); diff != "" {
				t.Errorf("fields named (-want +got):\n%s", diff)
			}
			if got := tc.c.Set(); got != (tc.name != "none") {
				t.Errorf("Set() = %v", got)
			}
		})
	}
}

// TestMessagePageNewFilters: the newer filters of GET /messages become the query as sent,
// senders lower-cased, and their mistakes name the parameter.
func TestMessagePageNewFilters(t *testing.T) {
	q, err := MessagePage{Senders: []string{"Ann", "bob"}, SentRange: Range{From: i64(1), To: i64(2)},
		UpdatedRange: Range{From: i64(3)}, EditedRange: Range{To: i64(4)}, HideQuoted: true}.query()
	if err != nil {
		t.Fatal(err)
	}
	want := MessageQuery{Limit: DefaultMessageLimit, Senders: []string{"ann", "bob"}, Sent: Range{From: i64(1), To: i64(2)},
		Updated: Range{From: i64(3)}, Edited: Range{To: i64(4)}, Tags: []string{}, HideQuoted: true}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	many := make([]string, maxFilterValues+1)
	for i := range many {
		many[i] = "u"
	}
	for _, tc := range []struct {
		name string
		p    MessagePage
		want []string
	}{
		{"malformed sender", MessagePage{Senders: []string{"a b"}}, []string{"senders"}},
		{"101 senders", MessagePage{Senders: many}, []string{"senders"}},
		{"sentAt from after to", MessagePage{SentRange: Range{From: i64(2), To: i64(1)}}, []string{"sentAt[from]"}},
		{"updatedAt negative", MessagePage{UpdatedRange: Range{To: i64(-1)}}, []string{"updatedAt[to]"}},
		{"editedAt from after to", MessagePage{EditedRange: Range{From: i64(9), To: i64(8)}}, []string{"editedAt[from]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.p.query()
			if diff := cmp.Diff(tc.want, fields(err)); diff != "" {
				t.Errorf("fields named (-want +got):\n%s", diff)
			}
		})
	}
}
