package chat_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chattest"
)

// TestModerationRules: what moderation refuses — reasons, flags, reviews of flagged and held
// messages, rules — decided by the service against a real store on both databases. Each
// refusal answers its code and announces nothing. httpapi's TestModeration keeps a row per
// code with its status, and what only HTTP decides (bodies, the multipart keyword upload).
func TestModerationRules(t *testing.T) {
	t.Parallel()
	chattest.Each(t, chat.Config{}, func(t *testing.T, r *chattest.Rig) {
		ctx := context.Background()
		r.Users(t, "ann", "bob", "cat")
		app, mod := r.Principal(t, ""), r.Svc.Moderation()
		send := func(from, to, text string) chat.Message {
			t.Helper()
			m, err := r.Svc.SendMessage(ctx, r.Principal(t, from), chat.MessageSend{Receiver: to, ReceiverType: chat.ReceiverUser,
				Category: chat.CategoryMessage, Type: "text", Data: json.RawMessage(`{"text":"` + text + `"}`)})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		name := "Scam"
		_, err := mod.CreateReason(ctx, app, chat.ReasonInput{ID: "scam", Name: &name})
		must(err)
		_, err = mod.CreateRule(ctx, app, chat.RuleInput{ID: "kw", Name: "Keywords", Conditions: []chat.Condition{{Category: "word", Value: []string{"darn"}}},
			Action: []string{"blockMessage"}})
		must(err)
		toBob := strconv.FormatInt(send("ann", "bob", "hello").ID, 10)
		flagged := strconv.FormatInt(send("ann", "bob", "buy my coins").ID, 10)
		must(mod.FlagMessage(ctx, r.Principal(t, "bob"), flagged, chat.FlagInput{ReasonID: "scam"}))
		reviewed := strconv.FormatInt(send("ann", "bob", "click here").ID, 10)
		must(mod.FlagMessage(ctx, r.Principal(t, "bob"), reviewed, chat.FlagInput{ReasonID: "spam"}))
		must(mod.ReviewFlagged(ctx, app, reviewed, "approved"))
		held := send("ann", "bob", "oh darn")
		if held.Moderation != "pending" {
			t.Fatalf("the keyword did not hold the message: %+v", held)
		}
		heldID := strconv.FormatInt(held.ID, 10)
		rejected := strconv.FormatInt(send("ann", "bob", "darn again").ID, 10)
		_, err = mod.ReviewBlocked(ctx, app, rejected, "rejected")
		must(err)

		x := "x"
		refused(t, r, []refusal{
			{"a reason again", "", func(p chat.Principal) error {
				_, err := mod.CreateReason(ctx, p, chat.ReasonInput{ID: "scam", Name: &x})
				return err
			}, chat.CodeReasonExists},
			{"a default reason again", "", func(p chat.Principal) error {
				_, err := mod.CreateReason(ctx, p, chat.ReasonInput{ID: "spam", Name: &x})
				return err
			}, chat.CodeReasonExists},
			{"an unknown reason", "", func(p chat.Principal) error { _, err := mod.Reason(ctx, p, "nope"); return err }, chat.CodeReasonNotFound},
			{"update an unknown reason", "", func(p chat.Principal) error {
				_, err := mod.UpdateReason(ctx, p, chat.ReasonInput{ID: "nope", Name: &x})
				return err
			}, chat.CodeReasonNotFound},
			{"update a default reason", "", func(p chat.Principal) error {
				_, err := mod.UpdateReason(ctx, p, chat.ReasonInput{ID: "spam", Name: &x})
				return err
			}, chat.CodeReasonDefault},
			{"delete a default reason", "", func(p chat.Principal) error { return mod.DeleteReason(ctx, p, "spam") }, chat.CodeReasonDefault},
			{"delete an unknown reason", "", func(p chat.Principal) error { return mod.DeleteReason(ctx, p, "nope") }, chat.CodeReasonNotFound},
			{"flag twice", "bob", func(p chat.Principal) error {
				return mod.FlagMessage(ctx, p, flagged, chat.FlagInput{ReasonID: "spam"})
			}, chat.CodeAlreadyFlagged},
			{"flag a message one cannot see", "cat", func(p chat.Principal) error { return mod.FlagMessage(ctx, p, toBob, chat.FlagInput{ReasonID: "spam"}) }, chat.CodeMessageNoAccess},
			{"flag with an unknown reason", "bob", func(p chat.Principal) error { return mod.FlagMessage(ctx, p, toBob, chat.FlagInput{ReasonID: "nope"}) }, chat.CodeReasonNotFound},
			{"flag an unknown message", "bob", func(p chat.Principal) error {
				return mod.FlagMessage(ctx, p, "99999", chat.FlagInput{ReasonID: "spam"})
			}, chat.CodeMessageNotFound},
			{"flag as an unknown user", "zed", func(p chat.Principal) error { return mod.FlagMessage(ctx, p, toBob, chat.FlagInput{ReasonID: "spam"}) }, chat.CodeUIDNotFound},
			{"review a flagged message twice", "", func(p chat.Principal) error { return mod.ReviewFlagged(ctx, p, reviewed, "approved") }, chat.CodeAlreadyReviewed},
			{"review a message never flagged", "", func(p chat.Principal) error { return mod.ReviewFlagged(ctx, p, toBob, "approved") }, chat.CodeNotFlagged},
			{"review a rejected held message", "", func(p chat.Principal) error { _, err := mod.ReviewBlocked(ctx, p, rejected, "approved"); return err }, chat.CodeAlreadyReviewed},
			{"review a message never held", "", func(p chat.Principal) error { _, err := mod.ReviewBlocked(ctx, p, toBob, "approved"); return err }, chat.CodeBlockedNotFound},
			{"review a held message with a status that is none", "", func(p chat.Principal) error {
				_, err := mod.ReviewBlocked(ctx, p, heldID, "disapproved")
				return err
			}, chat.CodeBadRequest},
			{"a rule again", "", func(p chat.Principal) error {
				_, err := mod.CreateRule(ctx, p, chat.RuleInput{ID: "kw", Name: "x", Conditions: []chat.Condition{{Category: "word", Value: []string{"a"}}}, Action: []string{"blockMessage"}})
				return err
			}, chat.CodeRuleExists},
			{"a rule with a bad filter", "", func(p chat.Principal) error {
				_, err := mod.CreateRule(ctx, p, chat.RuleInput{ID: "f", Name: "x", Conditions: []chat.Condition{{Category: "word", Value: []string{"a"}}}, Action: []string{"blockMessage"},
					Filters: []json.RawMessage{json.RawMessage(`{"type":"sender","entity":"user","operand":"age","operator":"equals","value":"1"}`)}})
				return err
			}, chat.CodeBadRequest},
			{"revisions of an unknown rule", "", func(p chat.Principal) error { _, err := mod.RuleRevisions(ctx, p, "nope"); return err }, chat.CodeRuleNotFound},
		})
		// The held message is still held: no refusal reviewed it.
		if bs, err := mod.BlockedMessages(ctx, app, 0, 10); err != nil || len(bs) == 0 {
			t.Fatalf("blocked list: %v %v", bs, err)
		}
	})
}
