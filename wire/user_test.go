package wire

import (
	"encoding/json"
	"testing"

	"github.com/natter-chat/natter/chat"
)

func TestWithoutPrivate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, ``},
		{`{}`, `{}`},
		{`{"a":1,"b":{"c":[1,2]}}`, `{"a":1,"b":{"c":[1,2]}}`},
		{`{"@private":{"email":"a@b.example"}}`, `{}`},
		{`{"@private":{"email":"a@b.example"},"z":1,"a":2}`, `{"z":1,"a":2}`},
		{`{"z":1,"@private":"x","a":2}`, `{"z":1,"a":2}`},
		{`{"z":1, "a": {"@private": 3}, "@private": [1]}`, `{"z":1,"a":{"@private": 3}}`},
		{`{"\u0040private":{"phone":"+1555"},"k":"v"}`, `{"k":"v"}`},
		{`{"@private":1,"@private":2}`, `{}`},
		{`{"@Private":1}`, `{"@Private":1}`},
		{`{"k":"\"@private\""}`, `{"k":"\"@private\""}`},
	} {
		got := string(WithoutPrivate(json.RawMessage(tc.in)))
		if got != tc.want {
			t.Errorf("WithoutPrivate(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if got != "" && !json.Valid([]byte(got)) {
			t.Errorf("WithoutPrivate(%s) = %s, not JSON", tc.in, got)
		}
	}
}

func TestUserFor(t *testing.T) {
	u := chat.User{UID: "ann", Name: "Ann", Metadata: []byte(`{"team":"red","@private":{"email":"ann@example.com"}}`)}
	for _, tc := range []struct {
		name string
		p    chat.Principal
		want string
	}{
		{"the app", chat.Principal{Scope: chat.ScopeFullAccess}, `{"team":"red","@private":{"email":"ann@example.com"}}`},
		{"the user", chat.Principal{TokenHash: "h", Actor: "ann"}, `{"team":"red","@private":{"email":"ann@example.com"}}`},
		{"another user", chat.Principal{TokenHash: "h", Actor: "bob"}, `{"team":"red"}`},
		{"the app acting as another user", chat.Principal{Scope: chat.ScopeFullAccess}.ActingAs("bob"), `{"team":"red"}`},
	} {
		if got := string(UserFor(tc.p, u).Metadata); got != tc.want {
			t.Errorf("%s: metadata %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := string(PublicUser(u).Metadata); got != `{"team":"red"}` {
		t.Errorf("PublicUser: metadata %s", got)
	}
}
