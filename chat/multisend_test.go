package chat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanReceivers walks how a multi-send's receivers are merged, normalized, collapsed
// and bounded before anything is sent.
func TestPlanReceivers(t *testing.T) {
	many := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, prefix+strings.Repeat("x", i+1))
		}
		return out
	}
	type plan struct{ Users, Groups []string } // ids, a refused one marked "!"
	for _, tc := range []struct {
		name                   string
		receiver, receiverType string
		to                     Receivers
		want                   plan
		code                   Code // the whole request's refusal
		field                  string
	}{
		{"uids only", "", "", Receivers{UIDs: []string{"bob", "carol"}}, plan{Users: []string{"bob", "carol"}, Groups: []string{}}, "", ""},
		{"guids only", "", "", Receivers{GUIDs: []string{"team"}}, plan{Users: []string{}, Groups: []string{"team"}}, "", ""},
		{"lower-cased and collapsed, in the order first named", "", "",
			Receivers{UIDs: []string{"Bob", "carol", "BOB", "bob"}, GUIDs: []string{"Team", "team"}},
			plan{Users: []string{"bob", "carol"}, Groups: []string{"team"}}, "", ""},
		{"a uid and a guid may be the same id", "", "", Receivers{UIDs: []string{"x"}, GUIDs: []string{"x"}}, plan{Users: []string{"x"}, Groups: []string{"x"}}, "", ""},
		{"malformed ids keep their form and are refused", "", "",
			Receivers{UIDs: []string{"bad id", "", "bad id", "ok"}, GUIDs: []string{"Kelvin\u212a"}},
			plan{Users: []string{"bad id!", "!", "ok"}, Groups: []string{"Kelvin\u212a!"}}, "", ""},
		{"the receiver comes first", "Dave", "user", Receivers{UIDs: []string{"bob"}, GUIDs: []string{"team"}},
			plan{Users: []string{"dave", "bob"}, Groups: []string{"team"}}, "", ""},
		{"the receiver named again counts once", "bob", "user", Receivers{UIDs: []string{"carol", "BOB"}},
			plan{Users: []string{"bob", "carol"}, Groups: []string{}}, "", ""},
		{"a group receiver", "team", "group", Receivers{UIDs: []string{"bob"}}, plan{Users: []string{"bob"}, Groups: []string{"team"}}, "", ""},
		{"a receiverType without a receiver names nobody", "", "group", Receivers{UIDs: []string{"bob"}}, plan{Users: []string{"bob"}, Groups: []string{}}, "", ""},
		{"25 in all", "", "", Receivers{UIDs: many("u", 20), GUIDs: many("g", 5)}, plan{Users: many("u", 20), Groups: many("g", 5)}, "", ""},
		{"25 in all once collapsed", "", "", Receivers{UIDs: append(many("u", 25), many("U", 25)...)}, plan{Users: many("u", 25), Groups: []string{}}, "", ""},

		{"empty", "", "", Receivers{}, plan{}, CodeBadRequest, "multipleReceivers"},
		{"empty lists", "bob", "user", Receivers{UIDs: []string{}, GUIDs: []string{}}, plan{}, CodeBadRequest, "multipleReceivers"},
		{"26 in all", "", "", Receivers{UIDs: many("u", 20), GUIDs: many("g", 6)}, plan{}, CodeBadRequest, "multipleReceivers"},
		{"26 with the receiver", "dave", "user", Receivers{UIDs: many("u", 25)}, plan{}, CodeBadRequest, "multipleReceivers"},
		{"a receiver of no known type", "bob", "room", Receivers{UIDs: []string{"carol"}}, plan{}, CodeInvalidReceiverType, ""},
		{"a receiver without a type", "bob", "", Receivers{UIDs: []string{"carol"}}, plan{}, CodeInvalidReceiverType, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := planReceivers(tc.receiver, tc.receiverType, tc.to)
			if code := ErrorCode(err); code != tc.code {
				t.Fatalf("planReceivers: %v, want %q", err, tc.code)
			}
			if err != nil {
				if tc.field != "" && len(err.(*Error).Details[tc.field]) == 0 {
					t.Errorf("the refusal does not name %s: %+v", tc.field, err)
				}
				return
			}
			ids := func(rs []ReceiverResult, notFound Code) []string {
				out := []string{}
				for _, r := range rs {
					switch {
					case r.Err == nil:
						out = append(out, r.ID)
					case ErrorCode(r.Err) == notFound:
						out = append(out, r.ID+"!")
					default:
						t.Errorf("%s: refused with %v", r.ID, r.Err)
					}
				}
				return out
			}
			if diff := cmp.Diff(tc.want, plan{Users: ids(got.Users, CodeUIDNotFound), Groups: ids(got.Groups, CodeGUIDNotFound)}); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}
