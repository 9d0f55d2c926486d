// The official JavaScript SDK's whole surface against natter (issue 36; docs/sdk-surface.md),
// for e2e/sdksurface_test.go. Every static method of CometChat that its TypeScript
// declarations list is in the table below: driven (its promise raced against a bound, its
// result checked for the class and fields the declaration promises, the socket event it
// causes waited for on the other user), or marked local (no request, no socket) or not
// served (it needs a service natter does not run), with the reason.
//
//   node surface.cjs <sdkDir> <4|3>          alice: runs the table, forks bob
//   node surface.cjs <sdkDir> <4|3> peer     bob: listens and acts when alice asks (IPC)
//
// Settings: NATTER_HOST, NATTER_APP, NATTER_KEY (fullAccess), NATTER_SPEC (JSON: alice's
// auth token, for login(authToken)), NATTER_SURFACE_BOUND_MS (the bound, 10 s by default);
// NATTER_WS_TRACE=1 logs both users' frames, events and the SDK's uncaught exceptions on
// stderr. The users and groups are the Go test's.
//
// Output, one JSON object a line: {"ev":"declared","methods":[…]}, then per table entry
// {"ev":"result","method","case","outcome":"pass|fail|hang|local|unsupported","detail",
// "known"?, "reason"?, "http":[…]}, and {"ev":"missing","method"} for a declared method the
// table does not list; {"ev":"done"} at the end.
"use strict";
const fs = require("fs");
const path = require("path");
const { fork } = require("child_process");

const [sdkDir, sdkVersion, role = "alice"] = process.argv.slice(2);
const v3 = sdkVersion === "3";
const pkgDir = path.join(sdkDir, "node_modules", ...(v3 ? ["@cometchat-pro", "chat"] : ["@cometchat", "chat-sdk-javascript"]));
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
// ms: a call, or the event it causes, that takes longer is a hang (an event waited for is
// given half a second less, so that what was missing is what is reported)
const BOUND = Number(process.env.NATTER_SURFACE_BOUND_MS) || 10000;

// The browser globals the bundle reads (shims.cjs); Node's fetch refuses the referrer
// option the SDK passes (below).
require("./shims.cjs").installBrowserGlobals();
const WS = require(path.join(sdkDir, "node_modules", "ws"));
let authed = Promise.resolve();
let socketClosed = Promise.resolve(); // the newest socket's closing, client side
globalThis.WebSocket = class extends WS {
  constructor(...a) {
    super(...a);
    socketClosed = new Promise((resolve) => this.on("close", resolve));
    let ack;
    authed = new Promise((resolve) => { ack = resolve; });
    this.on("message", (d) => {
      if (process.env.NATTER_WS_TRACE) process.stderr.write(role + " ws< " + d.toString().slice(0, 400) + "\n");
      try { if (JSON.parse(d.toString()).type === "auth") ack(); } catch (e) { /* not JSON */ }
    });
  }
};
// Every request and its answer's status, for the entry being run. A URL on port 443 of the
// chat host goes to natter's port (shims.cjs: chatHostRoute).
let httpLog = [];
const realFetch = globalThis.fetch;
const toNatter = require("./shims.cjs").chatHostRoute(process.env.NATTER_HOST);
globalThis.fetch = async (url, opts = {}) => {
  const o = { ...opts };
  delete o.referrer;
  delete o.referrerPolicy;
  url = toNatter(url);
  const u = new URL(String(url));
  const line = (o.method || "GET") + " " + u.pathname + u.search;
  try {
    const res = await realFetch(url, o);
    httpLog.push(line + " " + res.status);
    return res;
  } catch (e) {
    httpLog.push(line + " " + (e.cause ? e.cause.code || e.cause.message : e.message));
    throw e;
  }
};

// An exception the SDK throws inside its own callback: in a browser it is logged and the
// app's promise never settles; here it is noted for the entry being run, which then hangs.
let uncaught = [];
const noteUncaught = (e) => {
  uncaught.push(String((e && e.message) || e).slice(0, 200));
  if (process.env.NATTER_WS_TRACE) process.stderr.write(role + " uncaught: " + ((e && e.stack) || e) + "\n");
};
process.on("uncaughtException", noteUncaught);
process.on("unhandledRejection", noteUncaught);

const { CometChat, CometChatNotifications } = require(path.join(pkgDir, "CometChat.js"));
const env = (k) => {
  const v = process.env[k];
  if (!v) { out({ ev: "error", error: "missing " + k }); process.exit(2); }
  return v;
};
const host = env("NATTER_HOST"), app = env("NATTER_APP"), key = env("NATTER_KEY");

// brief is what a listener's argument says, for the events compared across processes.
function brief(x) {
  if (x === null || x === undefined || typeof x !== "object") return x;
  if (Array.isArray(x)) return x.map(brief);
  const C = CometChat;
  const o = {};
  if (C.TypingIndicator && x instanceof C.TypingIndicator) {
    Object.assign(o, { cls: "TypingIndicator", sender: x.getSender() && x.getSender().getUid(), receiverId: x.getReceiverId() });
  } else if (typeof x.getReceiptType === "function") { // a MessageReceipt (SDK 3 does not export the class)
    Object.assign(o, { cls: "MessageReceipt", messageId: String(x.getMessageId()), receiptType: x.getReceiptType(), sender: x.getSender() && x.getSender().getUid() });
  } else if (C.TransientMessage && x instanceof C.TransientMessage) {
    Object.assign(o, { cls: "TransientMessage", sender: x.getSender() && x.getSender().getUid(), receiverId: x.getReceiverId(), data: x.getData() });
  } else if (C.ReactionEvent && x instanceof C.ReactionEvent) {
    const r = x.getReaction();
    Object.assign(o, { cls: "ReactionEvent", messageId: String(r.getMessageId()), reaction: r.getReaction(), uid: r.getUid() });
  } else if (C.Call && x instanceof C.Call) {
    Object.assign(o, { cls: "Call", sessionId: x.getSessionId(), status: x.getStatus(), id: String(x.getId()) });
  } else if (isMessage(x)) {
    Object.assign(o, { cls: clsOf(x), id: String(x.getId()), category: x.getCategory(), type: x.getType(), sender: x.getSender() && x.getSender().getUid(), receiverId: x.getReceiverId(), receiverType: x.getReceiverType() });
    if (x.getText) o.text = x.getText();
  } else if (C.Group && x instanceof C.Group) {
    Object.assign(o, { cls: "Group", guid: x.getGuid() });
  } else if (C.User && x instanceof C.User) {
    Object.assign(o, { cls: "User", uid: x.getUid() });
  } else {
    o.cls = "object";
  }
  return o;
}
// isMessage: SDK 3 exports no BaseMessage to test instanceof against.
function isMessage(x) {
  if (CometChat.BaseMessage) return x instanceof CometChat.BaseMessage;
  return !!x && typeof x.getId === "function" && typeof x.getCategory === "function" && typeof x.getReceiverType === "function";
}
function clsOf(m) {
  const C = CometChat;
  for (const n of ["Call", "Action", "TextMessage", "MediaMessage", "InteractiveMessage", "CustomMessage"]) {
    if (C[n] && m instanceof C[n]) return n;
  }
  return "BaseMessage";
}

// events: what this process's listeners heard; waitFor resolves with the first that matches.
function eventLog() {
  const evs = [];
  const waiters = [];
  return {
    push(e) {
      evs.push(e);
      for (const w of waiters.slice()) if (w.pred(e)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(e); }
    },
    waitFor(pred, what) {
      const hit = evs.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve };
        waiters.push(w);
        setTimeout(() => { const i = waiters.indexOf(w); if (i >= 0) { waiters.splice(i, 1); reject(new Hang("no " + what + " within " + (BOUND - 500) + " ms")); } }, BOUND - 500);
      });
    },
    all: evs,
  };
}
class Hang extends Error {}

const listenerNames = {
  MessageListener: ["onTextMessageReceived", "onMediaMessageReceived", "onCustomMessageReceived", "onTypingStarted", "onTypingEnded",
    "onMessagesDelivered", "onMessagesRead", "onMessageEdited", "onMessageDeleted", "onTransientMessageReceived",
    "onInteractiveMessageReceived", "onMessagesDeliveredToAll", "onMessagesReadByAll", "onMessageReactionAdded",
    "onMessageReactionRemoved", "onMessagePinned", "onMessageUnpinned", "onMessageModerated"],
  UserListener: ["onUserOnline", "onUserOffline"],
  GroupListener: ["onGroupMemberJoined", "onGroupMemberLeft", "onGroupMemberKicked", "onGroupMemberBanned", "onGroupMemberUnbanned",
    "onGroupMemberScopeChanged", "onMemberAddedToGroup"],
  CallListener: ["onIncomingCallReceived", "onOutgoingCallAccepted", "onOutgoingCallRejected", "onIncomingCallCancelled", "onCallEndedMessageReceived"],
  LoginListener: ["loginSuccess", "loginFailure", "logoutSuccess", "logoutFailure"],
  ConnectionListener: ["onConnected", "inConnecting", "onDisconnected"],
};
const received = new Map(); // id → message heard, for receipts
function listenAll(log) {
  const add = { MessageListener: "addMessageListener", UserListener: "addUserListener", GroupListener: "addGroupListener",
    CallListener: "addCallListener", LoginListener: "addLoginListener", ConnectionListener: "addConnectionListener" };
  for (const [cls, names] of Object.entries(listenerNames)) {
    if (!CometChat[cls]) continue;
    const handlers = {};
    for (const n of names) {
      handlers[n] = (...args) => {
        if (process.env.NATTER_WS_TRACE) process.stderr.write(role + " event " + n + "\n");
        for (const a of args) if (isMessage(a)) received.set(String(a.getId()), a);
        log.push({ ev: n, args: args.map(brief) });
      };
    }
    CometChat[add[cls]]("surface", new CometChat[cls](handlers));
  }
}

async function init() {
  let b = new CometChat.AppSettingsBuilder().setRegion("us").subscribePresenceForAllUsers()
    .overrideAdminHost(host + "/v3.0").overrideClientHost(host + "/v3.0");
  if (b.autoEstablishSocketConnection) b = b.autoEstablishSocketConnection(true);
  return CometChat.init(app, b.build());
}

// ---- bob ----
async function peer() {
  const log = eventLog();
  const send = (m) => { if (process.connected) process.send(m); };
  log.push = ((push) => (e) => { push(e); send({ event: e }); })(log.push);
  await init();
  listenAll(log);
  const connected = log.waitFor((e) => e.ev === "onConnected", "connection");
  await CometChat.login("bob", key);
  await connected;
  await authed;
  const C = CometChat;
  const actions = {
    sendText: async (to, rt, text) => brief(await C.sendMessage(new C.TextMessage(to, text, rt))),
    markAsRead: async (id) => { await C.markAsRead(received.get(id)); return true; },
    markAsDelivered: async (id) => { await C.markAsDelivered(received.get(id)); return true; },
    acceptCall: async (sid) => brief(await C.acceptCall(sid)),
    rejectCall: async (sid, status) => brief(await C.rejectCall(sid, status)),
    joinGroup: async (guid) => brief(await C.joinGroup(guid, "public", "")),
  };
  process.on("message", async (m) => {
    try {
      send({ reply: m.id, value: await actions[m.action](...m.args) });
    } catch (e) {
      send({ reply: m.id, error: (e && (e.code || e.message)) || String(e) });
    }
  });
  process.on("disconnect", () => process.exit(0));
  send({ ready: true });
}

// ---- alice ----
async function main() {
  const declared = declaredMethods();
  out({ ev: "declared", methods: declared });
  const self = eventLog();
  const bob = eventLog();
  const child = fork(__filename, [sdkDir, sdkVersion, "peer"], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  let nextReply = 0;
  const replies = new Map();
  let peerReady;
  const peerUp = new Promise((resolve) => { peerReady = resolve; });
  child.on("message", (m) => {
    if (m.ready) peerReady();
    if (m.event) bob.push(m.event);
    if (m.reply !== undefined) { const r = replies.get(m.reply); replies.delete(m.reply); m.error ? r.reject(new Error("bob: " + m.error)) : r.resolve(m.value); }
  });
  const ask = (action, ...args) => new Promise((resolve, reject) => { const id = nextReply++; replies.set(id, { resolve, reject }); child.send({ id, action, args }); });
  const peerTimer = setTimeout(() => { out({ ev: "error", error: "bob did not log in within 30 s" }); process.exit(1); }, 30000);
  await peerUp;
  clearTimeout(peerTimer);

  // alice logs in as an app does: init, listeners, login, the socket up.
  await init();
  listenAll(self);
  const connected = self.waitFor((e) => e.ev === "onConnected", "connection");
  await CometChat.login("alice", key);
  await connected;
  await authed;

  const ctx = { self, bob, ask, received: (id) => received.get(id), spec: JSON.parse(process.env.NATTER_SPEC || "{}") };
  const table = require("./surfacetable.cjs")(CometChat, ctx, { v3, N: CometChatNotifications, brief, clsOf, isMessage, init, listenAll, authed: () => authed, socketClosed: () => socketClosed, Hang, key, app });
  const listed = new Set();
  for (const e of table) {
    listed.add(e.method);
    if (e.sdk && e.sdk !== Number(sdkVersion)) continue;
    if (!declared.includes(e.method) && !e.extra) continue; // not in this SDK
    const res = { ev: "result", method: e.method, case: e.case || "" };
    if (e.known) res.known = e.known;
    if (e.local) { res.outcome = "local"; res.reason = e.local; }
    if (e.notServed) { res.outcome = "unsupported"; res.reason = e.notServed; }
    httpLog = [];
    uncaught = [];
    if (e.run) {
      let timer;
      const bound = new Promise((_, reject) => { timer = setTimeout(() => reject(new Hang("did not settle within " + BOUND + " ms")), BOUND); });
      try {
        const value = await Promise.race([e.run(), bound]);
        if (e.check) await Promise.race([e.check(value), bound]);
        if (!res.outcome) res.outcome = "pass";
        else res.detail = "settled: " + JSON.stringify(brief(value)).slice(0, 200);
      } catch (err) {
        const msg = (err && (err.code ? err.code + ": " + (err.message || "") : err.message)) || JSON.stringify(err);
        if (!res.outcome) res.outcome = err instanceof Hang ? "hang" : "fail";
        res.detail = (res.detail ? res.detail + "; " : "") + msg;
      } finally {
        clearTimeout(timer);
      }
    }
    if (uncaught.length) res.detail = (res.detail ? res.detail + "; " : "") + "the SDK threw in its callback: " + uncaught.join("; ");
    res.http = httpLog;
    out(res);
  }
  for (const m of declared) if (!listed.has(m)) out({ ev: "missing", method: m });
  child.kill();
  out({ ev: "done" });
  process.exit(0);
}

// declaredMethods: the static methods of CometChat in the package's own CometChat.d.ts, and
// of CometChatNotifications (SDK 4; named "CometChatNotifications.name"). SDK 4 declares
// `export class CometChat { … static name(…`; SDK 3 declares `export namespace CometChat {
// … export function name(…`. A class (or namespace) ends at the first line that is a lone "}".
function declaredMethods() {
  const lines = fs.readFileSync(path.join(pkgDir, "CometChat.d.ts"), "utf8").split("\n");
  const names = new Set();
  for (const [cls, prefix] of [["CometChat", ""], ["CometChatNotifications", "CometChatNotifications."]]) {
    const start = lines.findIndex((l) => new RegExp("^export (class|namespace) " + cls + " ").test(l));
    if (start < 0) continue;
    for (let i = start + 1; i < lines.length && lines[i] !== "}"; i++) {
      const m = /^\s+(?:static|export function)\s+([A-Za-z_]\w*)\s*\(/.exec(lines[i]);
      if (m) names.add(prefix + m[1]);
    }
  }
  return [...names].sort();
}

(role === "peer" ? peer() : main()).catch((e) => { out({ ev: "error", where: role, error: (e && (e.code || e.message)) || String(e) }); process.exit(1); });
