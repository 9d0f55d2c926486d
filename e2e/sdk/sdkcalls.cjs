// The SDK calls whose answers the SDK parses rather than passes through, for e2e's
// TestClientSDKAnswers (issue 36): joinGroup, the unread counts and addMembersToGroup. A
// shape the SDK does not expect makes it throw inside its own callback, and the promise
// never settles; so each call is raced against a bound, and reported as
// {"ev":"call","name","ok":true,"value":…} or {"ev":"call","name","ok":false,"error":…}
// (error "timeout" when it did not settle within the bound).
//
// The spec (NATTER_CALLS) names the group to join (join), the user and group whose unread
// counts are read (user, group), and the group to add a participant to (addTo, addUid).
"use strict";

const bound = 10000;

module.exports = async function run(CometChat, spec, out) {
  const call = require("./shims.cjs").boundedCall(out, bound);
  await call("joinGroup", CometChat.joinGroup(spec.join, CometChat.GROUP_TYPE.PUBLIC, "")
    .then((g) => ({ guid: g.getGuid(), hasJoined: g.getHasJoined(), membersCount: g.getMembersCount() })));
  await call("getUnreadMessageCountForUser", CometChat.getUnreadMessageCountForUser(spec.user));
  await call("getUnreadMessageCountForGroup", CometChat.getUnreadMessageCountForGroup(spec.group));
  await call("getUnreadMessageCount", CometChat.getUnreadMessageCount());
  await call("getUnreadMessageCountForAllUsers", CometChat.getUnreadMessageCountForAllUsers());
  await call("getUnreadMessageCountForAllGroups", CometChat.getUnreadMessageCountForAllGroups());
  await call("addMembersToGroup", CometChat.addMembersToGroup(spec.addTo,
    [new CometChat.GroupMember(spec.addUid, CometChat.GROUP_MEMBER_SCOPE.PARTICIPANT)], []));
};
