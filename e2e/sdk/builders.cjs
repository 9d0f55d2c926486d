// Every request builder of the official SDK, run to its end with the options real apps set
// (CometChat's UI Kits), for e2e/sdk_test.go's TestClientSDKBuilders. Each list is reported
// as {"ev":"list","name","pages":[[id…]…]} (an "error" besides when a page was refused or the
// list did not end), the receipts as {"ev":"receipts","items":["uid:type"…]}.
//
// The spec (NATTER_BUILDERS) names the user and group whose conversations are listed, the
// thread's parent message, and the messages whose reactions and receipts are read.
"use strict";

// A list that has not ended after this many pages is reported as an error rather than read
// forever: a server whose cursor does not advance makes the SDK re-read a page.
const maxPages = 25;

module.exports = async function run(CometChat, spec, out) {
  const drain = async (name, req, next, idOf) => {
    const pages = [];
    for (;;) {
      if (pages.length >= maxPages) {
        out({ ev: "list", name, pages, error: "no end after " + maxPages + " pages" });
        return;
      }
      let page;
      try {
        page = await req[next]();
      } catch (e) {
        out({ ev: "list", name, pages, error: (e && (e.code || e.message)) || String(e) });
        return;
      }
      if (!page || page.length === 0) break;
      pages.push(page.map(idOf));
    }
    out({ ev: "list", name, pages });
  };
  const msgID = (m) => String(m.getId());
  const uid = (u) => u.getUid();
  const B = CometChat;

  // The message lists as the UI Kit 7 message list builds them: every category it knows
  // (card and agentic among them), its types, replies and deleted messages hidden.
  const allCategories = ["message", "custom", "action", "call", "interactive", "card", "agentic"];
  const kitTypes = ["text", "image", "video", "audio", "file", "groupMember", "extension_poll", "meeting", "card"];
  await drain("messagesUser", new B.MessagesRequestBuilder().setUID(spec.user).setLimit(3)
    .setCategories(allCategories).setTypes(kitTypes).hideReplies(true).hideDeletedMessages(true).build(),
  "fetchPrevious", msgID);
  // Forward from a message, as the Kit reads on past where a conversation was left.
  await drain("messagesUserNext", new B.MessagesRequestBuilder().setUID(spec.user).setLimit(3)
    .setMessageId(Number(spec.parent)).setCategories(allCategories).setTypes(kitTypes).hideReplies(true)
    .hideDeletedMessages(true).build(), "fetchNext", msgID);
  await drain("messagesGroup", new B.MessagesRequestBuilder().setGUID(spec.group).setLimit(3)
    .setCategories(["message", "custom", "card", "agentic"]).setTypes(["text", "extension_poll"])
    .hideDeletedMessages(true).withTags(true).mentionsWithTagInfo(true).mentionsWithBlockedInfo(true)
    .withParent(true).hideQuotedMessages(true).build(), "fetchPrevious", msgID);
  await drain("messagesGroupUnread", new B.MessagesRequestBuilder().setGUID(spec.group).setLimit(2)
    .setUnread(true).hideMessagesFromBlockedUsers(true).build(), "fetchPrevious", msgID);
  await drain("messagesThread", new B.MessagesRequestBuilder().setParentMessageId(Number(spec.parent)).setLimit(2)
    .setCategories(allCategories).setTypes(kitTypes).hideReplies(true).hideDeletedMessages(true).build(),
  "fetchPrevious", msgID);

  const convID = (c) => c.getConversationId();
  await drain("conversations", new B.ConversationsRequestBuilder().setLimit(3).build(), "fetchNext", convID);
  await drain("conversationsUser", new B.ConversationsRequestBuilder().setLimit(4).setConversationType("user")
    .withTags(true).withUserAndGroupTags(true).setIncludeBlockedUsers(true).setWithBlockedInfo(true)
    .setHideAgentic(true).build(), "fetchNext", convID);

  await drain("users", new B.UsersRequestBuilder().setLimit(4).sortBy("name").sortByOrder("asc")
    .searchIn(["name", "uid"]).withTags(true).build(), "fetchNext", uid);
  await drain("usersNamed", new B.UsersRequestBuilder().setLimit(2).hideBlockedUsers(true)
    .setUIDs(["bob", "carol", "dave", "u01", "u08", "u09"]).build(), "fetchNext", uid);
  await drain("groups", new B.GroupsRequestBuilder().setLimit(4).withTags(true).build(), "fetchNext", (g) => g.getGuid());
  await drain("groupsJoined", new B.GroupsRequestBuilder().setLimit(2).joinedOnly(true).build(), "fetchNext", (g) => g.getGuid());
  await drain("members", new B.GroupMembersRequestBuilder(spec.group).setLimit(3).build(), "fetchNext", uid);
  await drain("membersParticipants", new B.GroupMembersRequestBuilder(spec.group).setLimit(3)
    .setScopes(["participant"]).build(), "fetchNext", uid);
  await drain("membersSearch", new B.GroupMembersRequestBuilder(spec.group).setLimit(2)
    .setSearchKeyword("user").build(), "fetchNext", uid);
  await drain("banned", new B.BannedMembersRequestBuilder(spec.group).setLimit(3).build(), "fetchNext", uid);
  await drain("bannedSearch", new B.BannedMembersRequestBuilder(spec.group).setLimit(2)
    .setSearchKeyword("User").build(), "fetchNext", uid);
  await drain("blocked", new B.BlockedUsersRequestBuilder().setLimit(2).blockedByMe().build(), "fetchNext", uid);

  const reactionID = (r) => String(r.getReactionId());
  await drain("reactions", new B.ReactionsRequestBuilder().setMessageId(Number(spec.reactionMessage)).setLimit(2).build(),
    "fetchNext", reactionID);
  await drain("reactionsOne", new B.ReactionsRequestBuilder().setMessageId(Number(spec.reactionMessage)).setLimit(2)
    .setReaction(spec.reaction).build(), "fetchNext", reactionID);

  // The thread inbox: alice follows one thread more and leaves another she joined, through
  // the SDK's own calls, then reads hers one a page (the SDK pages by updatedAt and id).
  for (const [call, id] of [["subscribeToThread", spec.subscribe], ["subscribeToThread", spec.unsubscribe],
    ["unsubscribeFromThread", spec.unsubscribe]]) {
    try {
      await CometChat[call](Number(id));
    } catch (e) {
      out({ ev: "list", name: call, pages: [], error: (e && (e.code || e.message)) || String(e) });
    }
  }
  await drain("threads", new B.ThreadsRequestBuilder().setLimit(1).build(), "fetchNext", (t) => String(t.getParentMessageId()));

  try {
    const rs = await CometChat.getMessageReceipts(Number(spec.receiptMessage));
    out({ ev: "receipts", items: rs.map((r) => r.getSender().getUid() + ":" + r.getReceiptType()) });
  } catch (e) {
    out({ ev: "receipts", error: (e && (e.code || e.message)) || String(e) });
  }
};
