package chat

import (
	"encoding/json"
	"testing"
)

func TestValidateMessageImport(t *testing.T) {
	ok := MessageImport{Key: "m1", Sender: "Alice", ReceiverType: ReceiverUser, Receiver: "bob", Data: json.RawMessage(`{"text":"hi"}`), SentAt: 1674104348}
	for _, tc := range []struct {
		name string
		edit func(*MessageImport)
		code Code
	}{
		{"valid", func(*MessageImport) {}, ""},
		{"muid from the key", func(m *MessageImport) { m.MUID = "" }, ""},
		{"muid not the key", func(m *MessageImport) { m.MUID = "m2" }, CodeBadRequest},
		{"no sentAt", func(m *MessageImport) { m.SentAt = 0 }, CodeBadRequest},
		{"milliseconds", func(m *MessageImport) { m.SentAt = 1674104348000 }, CodeBadRequest},
		{"negative readAt", func(m *MessageImport) { m.ReadAt = -1 }, CodeBadRequest},
		{"no receiverType", func(m *MessageImport) { m.ReceiverType = "" }, CodeBadRequest},
		{"bad receiverType", func(m *MessageImport) { m.ReceiverType = "channel" }, CodeBadRequest},
		{"bad sender", func(m *MessageImport) { m.Sender = "a b" }, CodeBadRequest},
		{"to self", func(m *MessageImport) { m.Receiver = "ALICE" }, CodeBadRequest},
		{"no text", func(m *MessageImport) { m.Data = json.RawMessage(`{}`) }, CodeEmptyText},
		{"custom without customData", func(m *MessageImport) { m.Category = CategoryCustom; m.Type = "x" }, CodeEmptyCustomData},
		{"malformed", func(m *MessageImport) { m.Malformed = Errorf(CodeBadRequest, "x") }, CodeBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ok
			tc.edit(&in)
			m, err := validateMessageImport("a", in)
			if got := ErrorCode(err); got != tc.code {
				t.Fatalf("code = %q, want %q (%v)", got, tc.code, err)
			}
			if err == nil && (m.Sender != "alice" || m.ConversationID != "alice_user_bob" || m.SentAt != in.SentAt) {
				t.Errorf("message = %+v", m)
			}
		})
	}
}

func TestValidateMemberImport(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   MemberImport
		code Code
		want ImportedMember
	}{
		{"from fields", MemberImport{Key: "g1_member_u1", GUID: "G1", UID: "u1", JoinedAt: 5}, "",
			ImportedMember{AppID: "a", GUID: "g1", UID: "u1", Scope: ScopeParticipant, JoinedAt: 5}},
		{"from the key alone", MemberImport{Key: "g1_member_u1", Scope: ScopeAdmin, JoinedAt: 5}, "",
			ImportedMember{AppID: "a", GUID: "g1", UID: "u1", Scope: ScopeAdmin, JoinedAt: 5}},
		{"banned", MemberImport{Key: "g1_member_u1", GUID: "g1", UID: "u1", IsBanned: true, JoinedAt: 5}, "",
			ImportedMember{AppID: "a", GUID: "g1", UID: "u1", IsBanned: true, JoinedAt: 5}},
		{"key mismatch", MemberImport{Key: "g1_member_u2", GUID: "g1", UID: "u1"}, CodeBadRequest, ImportedMember{}},
		{"bad scope", MemberImport{Key: "g1_member_u1", GUID: "g1", UID: "u1", Scope: "owner"}, CodeBadRequest, ImportedMember{}},
		{"joinedAt defaults to now", MemberImport{Key: "g1_member_u1", GUID: "g1", UID: "u1"}, "",
			ImportedMember{AppID: "a", GUID: "g1", UID: "u1", Scope: ScopeParticipant, JoinedAt: 99}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := validateMemberImport("a", tc.in, 99)
			if ErrorCode(err) != tc.code {
				t.Fatalf("code = %q, want %q (%v)", ErrorCode(err), tc.code, err)
			}
			if err == nil && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestBatchKeys(t *testing.T) {
	keys := []string{"a", "b", "a", "", "c", "c"}
	errs := make([]error, len(keys))
	if err := batchKeys("users", len(keys), func(i int) string { return keys[i] }, errs); err != nil {
		t.Fatal(err)
	}
	for i, want := range []Code{CodeImportDuplicateKey, "", CodeImportDuplicateKey, "", CodeImportDuplicateKey, CodeImportDuplicateKey} {
		if got := ErrorCode(errs[i]); got != want {
			t.Errorf("item %d (%q): %q, want %q", i, keys[i], got, want)
		}
	}
	for _, n := range []int{0, MaxImportItems + 1} {
		if err := batchKeys("users", n, func(int) string { return "" }, make([]error, n)); ErrorCode(err) != CodeBadRequest {
			t.Errorf("%d items: %v", n, err)
		}
	}
}

func TestImportDigestIgnoresKeyCase(t *testing.T) {
	a, _ := validateUserImport("a", UserImport{Key: "Alice", Name: "A"}, 1)
	b, _ := validateUserImport("a", UserImport{Key: "alice", UID: "ALICE", Name: "A"}, 1)
	if a.UID != "alice" || b.UID != "alice" {
		t.Errorf("uids %q %q", a.UID, b.UID)
	}
}

// TestQuoteImport: an imported message quotes a message of its own conversation, written
// earlier in the batch (by pointer, its id known once written) or imported before (by id);
// not another conversation's, a deleted one or an action.
func TestQuoteImport(t *testing.T) {
	batch := map[string]*Message{"b": {ConversationID: "c", Category: CategoryMessage}, "ob": {ConversationID: "other"}}
	imported := map[string]Message{"i": {ID: 7, ConversationID: "c"}, "gone": {ID: 8, ConversationID: "c", DeletedAt: 1},
		"act": {ID: 9, ConversationID: "c", Category: CategoryAction}, "oi": {ID: 10, ConversationID: "other"}}
	for _, tc := range []struct {
		muid      string
		ok        bool
		id        int64
		byPointer bool
	}{
		{"b", true, 0, true}, {"i", true, 7, false},
		{"ob", false, 0, false}, {"oi", false, 0, false}, {"gone", false, 0, false}, {"act", false, 0, false}, {"nope", false, 0, false},
	} {
		m := Message{ConversationID: "c"}
		if ok := quoteImport(&m, tc.muid, batch, imported); ok != tc.ok || m.QuotedID != tc.id || (m.Quoted != nil) != tc.byPointer || tc.byPointer && m.Quoted != batch[tc.muid] {
			t.Errorf("%s: ok %v, QuotedID %d, Quoted %p", tc.muid, ok, m.QuotedID, m.Quoted)
		}
	}
}
