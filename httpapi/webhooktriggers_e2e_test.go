package httpapi_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/webhook"
)

// groupEventData is the data of a group, member or block event.
type groupEventData struct {
	Group *struct {
		GUID         string
		Owner        string
		MembersCount int64
		Type         string
		Name         string
	}
	Members map[string]struct {
		UID, Name, Scope, OldScope string
	}
	Users map[string]struct{ UID, Name string }
	By    struct{ UID string }
}

// TestWebhookGroupUserAndReceiptTriggers drives every group, member, block, receipt,
// mention and presence change once, with a no-op or a refusal next to most, and checks
// that each makes exactly its event, with its data, in order.
func TestWebhookGroupUserAndReceiptTriggers(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			for _, u := range []string{"ann", "bob", "cat", "dan"} {
				e.mustUser(u, "User "+u)
			}
			wh, err := e.c.CreateWebhook(e.ctx(), client.WebhookRequest{WebhookURL: ptr(rc.srv.URL + "/hook"), Triggers: &chat.EmittedTriggers})
			if err != nil {
				t.Fatal(err)
			}
			ann, bob, cat := e.c.OnBehalfOf("ann"), e.c.OnBehalfOf("bob"), e.c.OnBehalfOf("cat")
			must := func(_ any, err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			refused := func(_ any, err error) {
				t.Helper()
				if err == nil {
					t.Fatal("a refused change went through")
				}
			}
			// Groups and members.
			must(ann.CreateGroup(e.ctx(), client.CreateGroupRequest{GUID: "g1", Name: "G1", Type: "public",
				Members: &client.MemberLists{Participants: []string{"bob"}, UsersToBan: []string{"dan"}}}))
			refused(ann.CreateGroup(e.ctx(), client.CreateGroupRequest{GUID: "g1", Name: "again", Type: "public"}))
			must(ann.UpdateGroup(e.ctx(), "g1", client.UpdateGroupRequest{Name: ptr("G one")}))
			must(ann.AddMembers(e.ctx(), "g1", client.MemberLists{Moderators: []string{"cat"}}))
			must(ann.ChangeMemberScope(e.ctx(), "g1", "cat", "admin"))
			refused(bob.KickMember(e.ctx(), "g1", "cat")) // a participant kicks no one
			must(ann.KickMember(e.ctx(), "g1", "bob"))
			must(ann.UnbanUser(e.ctx(), "g1", "dan"))
			must(ann.BanUser(e.ctx(), "g1", "cat"))
			must(e.c.OnBehalfOf("dan").JoinGroup(e.ctx(), "g1", ""))
			refused(e.c.OnBehalfOf("dan").JoinGroup(e.ctx(), "g1", "")) // already joined
			must(e.c.OnBehalfOf("dan").LeaveGroup(e.ctx(), "g1"))
			must(ann.TransferGroup(e.ctx(), "g1", "bob"))
			must(e.c.DeleteGroup(e.ctx(), "g1")) // the app acts: by is its system user
			// Blocks: a second block of the same user, and a lift of none, are no events.
			must(ann.BlockUsers(e.ctx(), "ann", []string{"bob", "cat"}))
			must(ann.BlockUsers(e.ctx(), "ann", []string{"bob"}))
			must(ann.UnblockUsers(e.ctx(), "ann", []string{"cat"}))
			must(ann.UnblockUsers(e.ctx(), "ann", []string{"cat"}))
			// A mention, then receipts: read moves delivered too; marking again is no event.
			m, err := cat.SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "dan", ReceiverType: "user", Category: "message",
				Type: "text", Data: map[string]any{"text": "hi <@uid:dan>"}})
			if err != nil {
				t.Fatal(err)
			}
			dan := e.c.OnBehalfOf("dan")
			must(dan.MarkUserConversation(e.ctx(), "cat", "delivered", m.ID))
			must(dan.MarkUserConversation(e.ctx(), "cat", "read", m.ID))
			must(dan.MarkUserConversation(e.ctx(), "cat", "read", m.ID))
			// Presence, as the socket hub moves it: online, renewed (no change), offline.
			ps := e.svc.Presence()
			now := time.Now().Unix()
			for range 2 {
				if _, err := ps.SetOnline(e.ctx(), "demo", "node-a", []string{"bob"}, now, now+60); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := ps.SetOffline(e.ctx(), "demo", "node-a", []string{"bob"}, now+1); err != nil {
				t.Fatal(err)
			}

			want := []string{
				"group_created", "group_member_banned", "group_updated", "group_member_added", "group_member_scope_changed",
				"group_member_kicked", "group_member_unbanned", "group_member_banned", "group_member_joined", "group_member_left",
				"group_member_added", "group_owner_transferred", "group_deleted",
				"user_blocked", "user_unblocked",
				"message_sent", "user_mentioned", "message_delivery_receipt", "message_delivered_to_all",
				"message_read_receipt", "message_read_by_all",
				"user_connection_status_changed", "user_connection_status_changed",
			}
			got := rc.wait(t, len(want))
			var triggers []string
			data := map[string][]json.RawMessage{}
			for _, d := range got {
				triggers = append(triggers, d.env.Trigger)
				data[d.env.Trigger] = append(data[d.env.Trigger], d.env.Data)
				if err := webhook.Verify([]byte(wh.SigningSecret), d.header.Get(webhook.HeaderTimestamp), d.header.Get(webhook.HeaderSignature), d.body, 5*time.Minute, time.Now()); err != nil {
					t.Errorf("%s: %v", d.env.Trigger, err)
				}
			}
			// Each stream (the group, ann's blocks, the conversation, bob's presence) is in
			// order; streams interleave.
			if !sameMultiset(triggers, want) {
				t.Fatalf("triggers\n got %v\nwant %v", triggers, want)
			}
			for _, stream := range [][]string{want[:13], want[13:15], want[15:21], want[21:]} {
				if got := subsequence(triggers, stream); !slices.Equal(got, stream) {
					t.Errorf("out of order: %v, want %v", got, stream)
				}
			}

			group := func(trigger string, i int) groupEventData {
				t.Helper()
				var g groupEventData
				if err := json.Unmarshal(data[trigger][i], &g); err != nil {
					t.Fatal(err)
				}
				return g
			}
			if g := group("group_created", 0); g.Group.GUID != "g1" || g.Group.MembersCount != 2 || g.By.UID != "ann" ||
				len(g.Members) != 2 || g.Members["ann"].Scope != "admin" || g.Members["bob"].Scope != "participant" || g.Members["bob"].Name != "User bob" {
				t.Errorf("group_created: %s", data["group_created"][0])
			}
			if g := group("group_member_banned", 0); len(g.Members) != 1 || g.Members["dan"].UID != "dan" || g.By.UID != "ann" {
				t.Errorf("group_member_banned at creation: %s", data["group_member_banned"][0])
			}
			if g := group("group_updated", 0); g.Group.Name != "G one" || g.Members != nil {
				t.Errorf("group_updated: %s", data["group_updated"][0])
			}
			if g := group("group_member_added", 0); g.Members["cat"].Scope != "moderator" || g.Group.MembersCount != 3 {
				t.Errorf("group_member_added: %s", data["group_member_added"][0])
			}
			if g := group("group_member_scope_changed", 0); g.Members["cat"].Scope != "admin" || g.Members["cat"].OldScope != "moderator" {
				t.Errorf("group_member_scope_changed: %s", data["group_member_scope_changed"][0])
			}
			if g := group("group_member_kicked", 0); g.Members["bob"].UID != "bob" || g.Group.MembersCount != 2 {
				t.Errorf("group_member_kicked: %s", data["group_member_kicked"][0])
			}
			if g := group("group_member_joined", 0); g.Members["dan"].Scope != "participant" || g.By.UID != "dan" {
				t.Errorf("group_member_joined: %s", data["group_member_joined"][0])
			}
			// The transfer to bob, no member then, adds him as an admin: scope_changed is
			// not it (he was not a member); added is, and the transfer.
			if g := group("group_owner_transferred", 0); g.Members["bob"].Scope != "admin" || g.Group.Owner != "bob" {
				t.Errorf("group_owner_transferred: %s", data["group_owner_transferred"][0])
			}
			if g := group("group_deleted", 0); g.Group.GUID != "g1" || g.By.UID != "app_system" {
				t.Errorf("group_deleted: %s", data["group_deleted"][0])
			}
			var blocked groupEventData
			json.Unmarshal(data["user_blocked"][0], &blocked)
			if len(blocked.Users) != 2 || blocked.Users["bob"].Name != "User bob" || blocked.Users["cat"].UID != "cat" || blocked.By.UID != "ann" {
				t.Errorf("user_blocked: %s", data["user_blocked"][0])
			}
			var unblocked groupEventData
			json.Unmarshal(data["user_unblocked"][0], &unblocked)
			if len(unblocked.Users) != 1 || unblocked.Users["cat"].UID != "cat" {
				t.Errorf("user_unblocked: %s", data["user_unblocked"][0])
			}
			var mentioned struct {
				Message struct {
					ID             string
					MentionedUsers []struct{ UID string }
				}
			}
			json.Unmarshal(data["user_mentioned"][0], &mentioned)
			if mentioned.Message.ID != m.ID || len(mentioned.Message.MentionedUsers) != 1 || mentioned.Message.MentionedUsers[0].UID != "dan" {
				t.Errorf("user_mentioned: %s", data["user_mentioned"][0])
			}
			var receipt struct {
				Receiver, ReceiverType, Type, Sender, MessageSender string
				Body                                                struct {
					Action, MessageID string
					User              struct{ UID string }
					Timestamp         int64
				}
			}
			for trigger, action := range map[string]string{"message_read_receipt": "read", "message_read_by_all": "readByAll",
				"message_delivery_receipt": "delivered", "message_delivered_to_all": "deliveredToAll"} {
				json.Unmarshal(data[trigger][0], &receipt)
				if receipt.Receiver != "dan" || receipt.ReceiverType != "user" || receipt.Type != "receipts" || receipt.Sender != "dan" ||
					receipt.MessageSender != "cat" || receipt.Body.Action != action || receipt.Body.MessageID != m.ID ||
					receipt.Body.User.UID != "dan" || receipt.Body.Timestamp == 0 {
					t.Errorf("%s: %s", trigger, data[trigger][0])
				}
			}
			for i, status := range []string{"available", "offline"} {
				var conn struct {
					Timestamp           int64
					User                struct{ UID, Status string }
					Status              string
					CurrentConnection   struct{ Action string }
					UserPresenceChanged bool
				}
				json.Unmarshal(data["user_connection_status_changed"][i], &conn)
				action := map[string]string{"available": "connected", "offline": "disconnected"}[status]
				if conn.User.UID != "bob" || conn.Status != status || conn.User.Status != status || conn.CurrentConnection.Action != action ||
					!conn.UserPresenceChanged || conn.Timestamp < time.Now().Add(-time.Minute).UnixMilli() {
					t.Errorf("user_connection_status_changed %d: %s", i, data["user_connection_status_changed"][i])
				}
			}
		})
	}
}

func sameMultiset(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// subsequence is a's elements that are in of, in a's order.
func subsequence(a, of []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(of, s) {
			out = append(out, s)
		}
	}
	return out
}
