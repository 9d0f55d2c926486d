package chat_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chattest"
)

// TestAuthTokenRules: which auth tokens authenticate, for which app, decided by the service
// against a real store on both databases. httpapi's TestAuthTokenAuthentication keeps what
// HTTP decides: the headers (names, spellings, repeats), hosts and the envelope.
func TestAuthTokenRules(t *testing.T) {
	t.Parallel()
	chattest.Each(t, chat.Config{}, func(t *testing.T, r *chattest.Rig) {
		ctx := context.Background()
		r.Users(t, "alice", "gone")
		app := r.Principal(t, "")
		token := func(p chat.Principal, uid string) string {
			t.Helper()
			tok, err := r.Svc.CreateAuthToken(ctx, p, uid, chat.AuthTokenCreate{})
			if err != nil {
				t.Fatal(err)
			}
			return tok.Value
		}
		tok, goneTok := token(app, "alice"), token(app, "gone")
		if _, err := r.Svc.SetUsersDeactivated(ctx, app, "uidsToDeactivate", []string{"gone"}, true); err != nil {
			t.Fatal(err)
		}
		_, keys, err := r.Svc.CreateApp(ctx, chat.AppCreate{ID: "other", Region: "eu"})
		if err != nil {
			t.Fatal(err)
		}
		other, err := r.Svc.Authenticate(ctx, chat.Credentials{APIKey: keys[0].Value})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Svc.CreateUser(ctx, other, chat.UserCreate{UID: "alice", Name: "Other Alice"}); err != nil {
			t.Fatal(err)
		}
		otherTok := token(other, "alice")

		for _, tc := range []struct {
			name string
			c    chat.Credentials
			want chat.Code // "" authenticates as alice of demo
		}{
			{"the token's own app", chat.Credentials{ByToken: true, AuthToken: tok}, ""},
			{"the app named", chat.Credentials{ByToken: true, AuthToken: tok, AppID: "demo"}, ""},
			{"the app and its region named", chat.Credentials{ByToken: true, AuthToken: tok, AppID: "demo", Region: "us"}, ""},
			{"an empty token", chat.Credentials{ByToken: true}, chat.CodeEmptyAuthToken},
			{"an unknown token", chat.Credentials{ByToken: true, AuthToken: "alice_" + strings.Repeat("0", 40)}, chat.CodeAuthTokenUnknown},
			{"not a token", chat.Credentials{ByToken: true, AuthToken: "hello"}, chat.CodeAuthTokenUnknown},
			{"a huge token", chat.Credentials{ByToken: true, AuthToken: strings.Repeat("t", 4000)}, chat.CodeAuthTokenUnknown},
			{"an API key as a token", chat.Credentials{ByToken: true, AuthToken: r.FullKey}, chat.CodeAuthTokenUnknown},
			{"a token as an API key", chat.Credentials{APIKey: tok}, chat.CodeAPIKeyNotFound},
			{"the token in upper case", chat.Credentials{ByToken: true, AuthToken: strings.ToUpper(tok)}, chat.CodeAuthTokenUnknown},
			{"the token of a deactivated user", chat.Credentials{ByToken: true, AuthToken: goneTok}, chat.CodeAuthTokenUnknown},
			{"another app named", chat.Credentials{ByToken: true, AuthToken: tok, AppID: "other"}, chat.CodeAuthTokenUnknown},
			{"another app's token with this app named", chat.Credentials{ByToken: true, AuthToken: otherTok, AppID: "demo"}, chat.CodeAuthTokenUnknown},
			{"no app of that name", chat.Credentials{ByToken: true, AuthToken: tok, AppID: "nope"}, chat.CodeInvalidAppID},
			{"the app in the wrong region", chat.Credentials{ByToken: true, AuthToken: tok, AppID: "demo", Region: "eu"}, chat.CodeInvalidAppID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p, err := r.Svc.Authenticate(ctx, tc.c)
				if tc.want == "" {
					if err != nil || p.App.ID != "demo" || p.Actor != "alice" || !p.ByToken() {
						t.Fatalf("principal %+v, %v; want alice of demo by token", p, err)
					}
					return
				}
				var ce *chat.Error
				if !errors.As(err, &ce) || ce.Code != tc.want {
					t.Fatalf("error %v, want %s", err, tc.want)
				}
			})
		}
	})
}
