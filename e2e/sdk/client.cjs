// One CometChat JavaScript SDK session under Node, driven by the Go test (e2e/sdk_test.go).
// The SDK is a browser bundle with one global session, so each user runs in a process of
// its own. It prints one JSON object per line on stdout: {"ev": ...} for what happened.
//
//   node client.cjs <sdkDir> <role> where role is "listen", "send", "call" (calls.md:
//   call NATTER_TO, hang up once answered; a listener answers the calls it gets) or
//   "builders" (builders.cjs: every request builder to its end, per NATTER_BUILDERS) or
//   "sdkcalls" (sdkcalls.cjs: the calls whose answers the SDK parses, per NATTER_CALLS) or
//   "sdkfiles" (sdkfiles.cjs: files sent both ways the SDK sends them, per NATTER_CALLS)
//
// Settings come from the environment: NATTER_HOST (host:port of the natter node this user
// talks to), NATTER_APP, NATTER_KEY (an authOnly or fullAccess key), NATTER_UID, and for
// "send": NATTER_TO (a uid) and NATTER_GROUP (a guid).
"use strict";
const path = require("path");
const [sdkDir, role] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// The browser globals the bundle reads (shims.cjs); Node's fetch refuses the referrer
// option the SDK passes (below).
require("./shims.cjs").installBrowserGlobals();

// The SDK reports itself connected when the socket opens, before the server has read its
// auth frame: events published in between are not the socket's yet (its user is not known).
// This wrapper notes the auth ack, which "connected" waits for, so the tests act once the
// socket is registered. NATTER_WS_TRACE=1 logs every frame received on stderr.
const WS = require(path.join(sdkDir, "node_modules", "ws"));
let authed = Promise.resolve();
globalThis.WebSocket = class extends WS {
  constructor(...a) {
    super(...a);
    let ack;
    authed = new Promise((resolve) => { ack = resolve; });
    this.on("message", (d) => {
      const s = d.toString();
      if (process.env.NATTER_WS_TRACE) process.stderr.write("ws< " + s.slice(0, 300) + "\n");
      try { if (JSON.parse(s).type === "auth") ack(); } catch (e) { /* not JSON: the SDK's to judge */ }
    });
  }
};
// Every answer's status is reported ({"ev":"http"}), so a test can tell a request the SDK
// swallowed (its lists turn errors into an empty page or a rejection) from a real end.
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, opts = {}) => {
  const o = { ...opts };
  delete o.referrer;
  delete o.referrerPolicy;
  const res = await realFetch(url, o);
  const u = new URL(String(url));
  out({ ev: "http", method: o.method || "GET", path: u.pathname + u.search, status: res.status });
  return res;
};

const { CometChat } = require(path.join(sdkDir, "node_modules", "@cometchat", "chat-sdk-javascript", "CometChat.js"));

const env = (k) => {
  const v = process.env[k];
  if (!v) { out({ ev: "error", error: "missing " + k }); process.exit(2); }
  return v;
};
const host = env("NATTER_HOST"), app = env("NATTER_APP"), key = env("NATTER_KEY"), uid = env("NATTER_UID");
const fail = (where, e) => { out({ ev: "error", where, error: e && (e.code || e.message || String(e)) }); process.exit(1); };

async function main() {
  const settings = new CometChat.AppSettingsBuilder()
    .setRegion("us")
    .subscribePresenceForAllUsers()
    .overrideAdminHost(host + "/v3.0")
    .overrideClientHost(host + "/v3.0")
    .autoEstablishSocketConnection(role !== "builders" && role !== "sdkcalls" && role !== "sdkfiles")
    .build();
  await CometChat.init(app, settings).catch((e) => fail("init", e));
  let onSocket;
  const socketUp = new Promise((resolve) => { onSocket = resolve; });
  CometChat.addConnectionListener("conn", new CometChat.ConnectionListener({
    onConnected: () => authed.then(() => { out({ ev: "connected" }); onSocket(); }),
    onDisconnected: () => out({ ev: "disconnected" }),
  }));
  CometChat.addMessageListener("msgs", new CometChat.MessageListener({
    onTextMessageReceived: (m) => out({ ev: "text", id: String(m.getId()), text: m.getText(), sender: m.getSender().getUid(), receiverType: m.getReceiverType(), receiver: m.getReceiverId() }),
    onMessageReactionAdded: (r) => { const x = r.getReaction(); out({ ev: "reactionAdded", messageId: String(x.getMessageId()), reaction: x.getReaction(), uid: x.getUid(), id: String(x.getReactionId ? x.getReactionId() : x.id) }); },
    onMessageReactionRemoved: (r) => { const x = r.getReaction(); out({ ev: "reactionRemoved", messageId: String(x.getMessageId()), reaction: x.getReaction(), uid: x.getUid() }); },
    onTypingStarted: (t) => out({ ev: "typing", sender: t.getSender().getUid(), receiver: t.getReceiverId() }),
    onMessagesRead: (r) => out({ ev: "read", messageId: String(r.getMessageId()), sender: r.getSender().getUid() }),
  }));
  CometChat.addUserListener("users", new CometChat.UserListener({
    onUserOnline: (u) => out({ ev: "online", uid: u.getUid() }),
    onUserOffline: (u) => out({ ev: "offline", uid: u.getUid() }),
  }));
  let markInitiated;
  const initiated = new Promise((resolve) => { markInitiated = resolve; });
  CometChat.addCallListener("calls", new CometChat.CallListener({
    onIncomingCallReceived: (c) => {
      out({ ev: "incomingCall", sessionId: c.getSessionId(), initiator: c.getCallInitiator().getUid(), type: c.getType() });
      if (role === "listen") {
        CometChat.acceptCall(c.getSessionId()).then((m) => out({ ev: "accepted", sessionId: m.getSessionId(), status: m.getStatus() }))
          .catch((e) => fail("accept", e));
      }
    },
    onOutgoingCallAccepted: (c) => {
      out({ ev: "outgoingAccepted", sessionId: c.getSessionId(), status: c.getStatus() });
      if (role === "call") {
        // The answer can reach the socket before initiateCall's own response does; the SDK
        // only knows its active call once that resolves, and endCall without one ends nothing.
        initiated.then(() => CometChat.endCall(c.getSessionId())).then((m) => out({ ev: "ended", sessionId: m && m.getSessionId(), status: m && m.getStatus() }))
          .catch((e) => fail("endCall", e));
      }
    },
    onCallEndedMessageReceived: (c) => out({ ev: "callEnded", sessionId: c.getSessionId() }),
  }));
  const user = await CometChat.login(uid, key).catch((e) => fail("login", e));
  out({ ev: "loggedIn", uid: user.getUid() });

  if (role === "listen") {
    // Runs until the test ends it; reports what arrives. It marks what it receives as read
    // so the sender sees the receipt.
    process.stdin.on("data", () => {});
    return;
  }
  if (role === "builders") {
    await require("./builders.cjs")(CometChat, JSON.parse(env("NATTER_BUILDERS")), out);
    out({ ev: "done" });
    process.exit(0);
  }
  if (role === "sdkcalls" || role === "sdkfiles") {
    await require("./" + role + ".cjs")(CometChat, JSON.parse(env("NATTER_CALLS")), out);
    out({ ev: "done" });
    process.exit(0);
  }
  if (role === "call") {
    await socketUp; // to hear the answer
    const call = await CometChat.initiateCall(new CometChat.Call(env("NATTER_TO"), CometChat.CALL_TYPE.AUDIO, CometChat.RECEIVER_TYPE.USER))
      .catch((e) => fail("initiateCall", e));
    out({ ev: "initiated", sessionId: call.getSessionId(), status: call.getStatus() });
    markInitiated();
    return;
  }
  const to = env("NATTER_TO"), group = env("NATTER_GROUP");
  const sent = await CometChat.sendMessage(new CometChat.TextMessage(to, "hello from the sdk", CometChat.RECEIVER_TYPE.USER)).catch((e) => fail("send", e));
  out({ ev: "sent", id: String(sent.getId()), text: sent.getText() });
  const reacted = await CometChat.addReaction(sent.getId(), "👍").catch((e) => fail("react", e));
  out({ ev: "reacted", id: String(reacted.getId()) });
  const gsent = await CometChat.sendMessage(new CometChat.TextMessage(group, "hello group", CometChat.RECEIVER_TYPE.GROUP)).catch((e) => fail("group send", e));
  out({ ev: "groupSent", id: String(gsent.getId()), text: gsent.getText() });
  // Reaction lists page by meta.next; fetchNext must end with an empty page rather than
  // read the same page forever.
  const req = new CometChat.ReactionsRequestBuilder().setMessageId(sent.getId()).setLimit(10).build();
  let total = 0, pages = 0;
  for (;;) {
    const page = await req.fetchNext().catch((e) => fail("reactions", e));
    pages++;
    if (!page || page.length === 0 || pages > 5) break;
    total += page.length;
  }
  out({ ev: "reactionList", total, pages });
  CometChat.startTyping(new CometChat.TypingIndicator(to, CometChat.RECEIVER_TYPE.USER));
  out({ ev: "done" });
}
main().catch((e) => fail("main", e));
