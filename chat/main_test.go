package chat_test

import (
	"errors"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chattest"
	"github.com/natter-chat/natter/internal/pgtest"
)

// The rules proven against a real store (internal/chattest) run on SQLite and PostgreSQL;
// pgtest.Main stops the PostgreSQL server they started.
func TestMain(m *testing.M) { pgtest.Main(m) }

// refusal is a call a rule must refuse: made as as (a uid; "" for the app itself), it must
// fail with want.
type refusal struct {
	name string
	as   string
	call func(p chat.Principal) error
	want chat.Code
}

// refused makes each call as a subtest on r and checks that it fails with its code and that
// the service announced no change for it (a write that committed would have).
func refused(t *testing.T, r *chattest.Rig, cases []refusal) {
	t.Helper()
	changes := chattest.Record(r.Svc)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			changes.Reset()
			err := tc.call(r.Principal(t, tc.as))
			var ce *chat.Error
			if !errors.As(err, &ce) || ce.Code != tc.want {
				t.Fatalf("error %v, want %s", err, tc.want)
			}
			if cs := changes.Changes(); len(cs) != 0 {
				t.Fatalf("a refused call announced %d changes: %+v", len(cs), cs)
			}
		})
	}
}
