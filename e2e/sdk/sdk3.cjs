// CometChat's SDK 3 (@cometchat-pro/chat 3.0.13) under Node against natter, for e2e's
// TestClientSDK3 (issue 36): it sends every media message as multipart/form-data, even one
// whose attachment is a URL, and parses unread counts as SDK 4 does. It logs in, sends two
// media messages by URL (one as new MediaMessage(to, url), one with setAttachment, a caption
// and tags) and one with a File, and reads its unread counts, each call raced against a bound and reported as
// {"ev":"call","name","ok","value"|"error"}; then {"ev":"done"}.
//
//   node sdk3.cjs <sdkDir>
//
// Settings come from the environment as for client.cjs (NATTER_HOST, NATTER_APP, NATTER_KEY,
// NATTER_UID) and NATTER_CALLS: {"to": a uid to send to, "user": a uid whose conversation's
// unread count is read}.
"use strict";
const path = require("path");
const [sdkDir] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// The browser globals the bundle reads (shims.cjs); Node's fetch refuses the referrer
// option the SDK passes (below).
require("./shims.cjs").installBrowserGlobals();

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

const { CometChat } = require(path.join(sdkDir, "node_modules", "@cometchat-pro", "chat", "CometChat.js"));

const env = (k) => {
  const v = process.env[k];
  if (!v) { out({ ev: "error", error: "missing " + k }); process.exit(2); }
  return v;
};
const host = env("NATTER_HOST"), app = env("NATTER_APP"), key = env("NATTER_KEY"), uid = env("NATTER_UID");
const spec = JSON.parse(env("NATTER_CALLS"));
const fail = (where, e) => { out({ ev: "error", where, error: e && (e.code || e.message || String(e)) }); process.exit(1); };

const bound = 10000;
const call = require("./shims.cjs").boundedCall(out, bound);
const media = (m) => ({ id: String(m.getId()), type: m.getType(), data: m.getData() });

async function main() {
  const settings = new CometChat.AppSettingsBuilder()
    .setRegion("us")
    .overrideAdminHost(host + "/v3.0")
    .overrideClientHost(host + "/v3.0")
    .autoEstablishSocketConnection(false)
    .build();
  await CometChat.init(app, settings).catch((e) => fail("init", e));
  const user = await CometChat.login(uid, key).catch((e) => fail("login", e));
  out({ ev: "loggedIn", uid: user.getUid() });

  await call("sendMediaMessage url", CometChat.sendMediaMessage(
    new CometChat.MediaMessage(spec.to, "https://files.example.com/a.png", CometChat.MESSAGE_TYPE.IMAGE, CometChat.RECEIVER_TYPE.USER)).then(media));
  const m = new CometChat.MediaMessage(spec.to, "", CometChat.MESSAGE_TYPE.FILE, CometChat.RECEIVER_TYPE.USER);
  m.setAttachment(new CometChat.Attachment({ url: "https://files.example.com/b.pdf", name: "b.pdf", extension: "pdf", mimeType: "application/pdf", size: 12 }));
  m.setCaption("the report");
  m.setTags(["q3", "draft"]);
  await call("sendMediaMessage attachment", CometChat.sendMediaMessage(m).then((x) => ({ ...media(x), tags: x.getTags() })));
  // A File: stored by natter, answered with data.url and data.attachments (issue 37).
  const f = new CometChat.MediaMessage(spec.to, new File([Buffer.from("sdk 3 file")], "three.txt", { type: "text/plain" }),
    CometChat.MESSAGE_TYPE.FILE, CometChat.RECEIVER_TYPE.USER);
  await call("sendMediaMessage file", CometChat.sendMediaMessage(f).then(media));
  await call("getUnreadMessageCountForUser", CometChat.getUnreadMessageCountForUser(spec.user));
  await call("getUnreadMessageCount", CometChat.getUnreadMessageCount());
  await call("getUnreadMessageCountForAllGroups", CometChat.getUnreadMessageCountForAllGroups());
  out({ ev: "done" });
  process.exit(0);
}
main().catch((e) => fail("main", e));
