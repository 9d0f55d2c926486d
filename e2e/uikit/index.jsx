// A small chat app made of CometChat's official React UI Kit, as its v7 sample app composes
// it, pointed at natter. e2e/uikit_test.go bundles it with esbuild against the Kit installed
// from npm at test time, serves it over TLS and drives it in headless Chromium.
//
// The page reads its settings from the query string: host (natter's host:port), app (the
// app id) and token (an auth token of the user to log in as). #status says "ready <uid>" once
// logged in, or "error: …" when init or login fails.
//
// The Kit 7.2.1 has no join button, user details, or add-members screen: its sample app makes
// those of the SDK's calls and the Kit's parts, and so does this page (#join, #details,
// #add-members), with ids the test finds them by.
//
// window.__sdkCalls counts the promises of every static method of the SDK's CometChat (and of
// CometChatHelper's, and of its requests' fetchNext and fetchPrevious): pending, settled,
// rejected, with the names of those pending (open) and settled (done) and the reasons of
// those rejected (failures), so that the test can tell an action that completed from one the
// SDK left hanging.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { CometChat } from "@cometchat/chat-sdk-javascript";
import {
  CometChatUIKit,
  UIKitSettingsBuilder,
  CometChatProvider,
  CometChatConversations,
  CometChatGroups,
  CometChatUsers,
  CometChatGroupMembers,
  CometChatSearch,
  CometChatMessageHeader,
  CometChatMessageList,
  CometChatMessageComposer,
  CometChatThreadHeader,
  usePublishEvent,
} from "@cometchat/chat-uikit-react";

const query = new URLSearchParams(location.search);
const host = query.get("host");
const status = document.getElementById("status");

// The SDK's promises, counted. Installed before the Kit makes its first call.
const sdkCalls = { seq: 0, pending: 0, settled: 0, rejected: 0, open: {}, done: [], failures: [] };
window.__sdkCalls = sdkCalls;
function describe(err) {
  if (!err) return String(err);
  if (err.code || err.message) return (err.code || "") + " " + (err.message || "");
  try {
    return JSON.stringify(err);
  } catch (e) {
    return String(err);
  }
}
function counted(name, fn) {
  return function (...args) {
    const r = fn.apply(this, args);
    if (r && typeof r.then === "function") {
      const id = ++sdkCalls.seq; // open's keys: the calls in the order made
      sdkCalls.pending++;
      sdkCalls.open[id] = name;
      r.then(
        () => {
          sdkCalls.pending--;
          sdkCalls.settled++;
          delete sdkCalls.open[id];
          sdkCalls.done.push(name);
        },
        (err) => {
          sdkCalls.pending--;
          sdkCalls.rejected++;
          delete sdkCalls.open[id];
          sdkCalls.failures.push(name + ": " + describe(err));
        },
      );
    }
    return r;
  };
}
for (const name of Object.getOwnPropertyNames(CometChat)) {
  const d = Object.getOwnPropertyDescriptor(CometChat, name);
  if (!d || typeof d.value !== "function" || !d.writable) continue;
  if (/^[a-z]/.test(name)) {
    CometChat[name] = counted("CometChat." + name, d.value);
  } else if (/Helper$/.test(name)) {
    // CometChat.CometChatHelper: the Kit makes a conversation of each message through it.
    for (const m of Object.getOwnPropertyNames(d.value)) {
      const h = Object.getOwnPropertyDescriptor(d.value, m);
      if (/^[a-z]/.test(m) && h && typeof h.value === "function" && h.writable) {
        d.value[m] = counted(name + "." + m, h.value);
      }
    }
  } else if (/Request$/.test(name) && d.value.prototype) {
    // The list requests the Kit's lists page through.
    for (const m of ["fetchNext", "fetchPrevious"]) {
      const p = Object.getOwnPropertyDescriptor(d.value.prototype, m);
      if (p && typeof p.value === "function" && p.writable) {
        d.value.prototype[m] = counted(name + "." + m, p.value);
      }
    }
  }
}

const keyOf = (open) => (open ? (open.group ? "group_" + open.group.getGuid() : "user_" + open.user.getUid()) : "");

// The join screen of a public group the user is not in, in place of its messages.
function Join({ group, onJoined }) {
  const publish = usePublishEvent();
  const [error, setError] = useState("");
  const join = () => {
    CometChat.joinGroup(group.getGuid(), group.getType(), "")
      .then((joined) => {
        CometChat.getLoggedinUser().then((user) => publish({ type: "ui:group/member-joined", joinedUser: user, joinedGroup: joined }));
        onJoined(joined);
      })
      .catch((err) => setError(describe(err)));
  };
  return (
    <div id="join">
      <p>You are not a member of {group.getName()}.</p>
      <button type="button" onClick={join}>
        Join
      </button>
      {error && <p className="error">{error}</p>}
    </div>
  );
}

// A user's details: block and unblock.
function UserDetails({ user, onChange }) {
  const publish = usePublishEvent();
  const [blocked, setBlocked] = useState(user.getBlockedByMe());
  const toggle = () => {
    const call = blocked ? CometChat.unblockUsers([user.getUid()]) : CometChat.blockUsers([user.getUid()]);
    call.then(() => {
      user.setBlockedByMe(!blocked);
      publish({ type: blocked ? "ui:user/unblocked" : "ui:user/blocked", user });
      setBlocked(!blocked);
      onChange(user);
    });
  };
  return (
    <div id="details" data-uid={user.getUid()}>
      <h2>{user.getName()}</h2>
      <button type="button" id="block" onClick={toggle}>
        {blocked ? "Unblock" : "Block"}
      </button>
    </div>
  );
}

// Users to add to a group: the Kit's user list with multiple selection, and a button.
function AddMembers({ group, onDone }) {
  const [chosen, setChosen] = useState(new Map());
  const select = (user, selected) => {
    const next = new Map(chosen);
    if (selected) next.set(user.getUid(), user);
    else next.delete(user.getUid());
    setChosen(next);
  };
  const add = () => {
    const members = [...chosen.values()].map((u) => {
      const m = new CometChat.GroupMember(u.getUid(), CometChat.GROUP_MEMBER_SCOPE.PARTICIPANT);
      m.setName(u.getName());
      m.setGuid(group.getGuid());
      return m;
    });
    CometChat.addMembersToGroup(group.getGuid(), members, []).then(() => onDone());
  };
  return (
    <div id="add-members">
      <CometChatUsers selectionMode="multiple" onSelect={select} />
      <button type="button" id="add" disabled={chosen.size === 0} onClick={add}>
        Add {chosen.size} member{chosen.size === 1 ? "" : "s"}
      </button>
    </div>
  );
}

function GroupDetails({ group }) {
  const [view, setView] = useState("members");
  return (
    <div id="details" data-guid={group.getGuid()}>
      <h2>{group.getName()}</h2>
      <button type="button" id="view-members" onClick={() => setView("members")}>
        Members
      </button>
      <button type="button" id="add-members-button" onClick={() => setView("add")}>
        Add members
      </button>
      {view === "members" ? (
        <div id="members">
          <CometChatGroupMembers group={group} />
        </div>
      ) : (
        <AddMembers group={group} onDone={() => setView("members")} />
      )}
    </div>
  );
}

function App() {
  const [tab, setTab] = useState("chats");
  const [open, setOpen] = useState(null); // { user } or { group }
  const [side, setSide] = useState(null); // { thread: message } or { details: true }
  const [, setBlocks] = useState(0);
  // Whether the open group came from the groups list, where, as in the sample app, a group
  // the user has not joined opens on its join screen.
  const [fromGroups, setFromGroups] = useState(false);
  const show = (o, groups = false) => {
    setOpen(o);
    setFromGroups(groups);
    setSide(null);
  };
  const select = (conversation) => {
    const withWhom = conversation.getConversationWith();
    show(conversation.getConversationType() === "group" ? { group: withWhom } : { user: withWhom });
  };
  // A key per conversation: the Kit's components are given a fresh instance when the
  // conversation changes, as the sample app does.
  const key = keyOf(open);
  const joined = !open || !open.group || !fromGroups || open.group.getHasJoined();
  const blocked = open && open.user && open.user.getBlockedByMe();
  const tabs = ["chats", "groups", "search"];
  return (
    <CometChatProvider>
      <div id="app">
        <div id="sidebar">
          <div id="tabs" role="tablist">
            {tabs.map((t) => (
              <button key={t} type="button" role="tab" id={"tab-" + t} aria-selected={tab === t} onClick={() => setTab(t)}>
                {t}
              </button>
            ))}
          </div>
          <div id="conversations">
            {tab === "chats" && <CometChatConversations onItemClick={select} />}
            {tab === "groups" && <CometChatGroups onItemClick={(group) => show({ group }, true)} />}
            {tab === "search" && (
              <div id="search">
                <CometChatSearch
                  hideBackButton
                  onConversationClicked={(e) => e && e.conversation && select(e.conversation)}
                />
              </div>
            )}
          </div>
        </div>
        {open && (
          <div id="chat" key={key} data-conversation={key} data-joined={String(joined)}>
            <CometChatMessageHeader {...open} onItemClick={() => setSide({ details: true })} />
            {joined ? (
              <>
                <div className="list">
                  <CometChatMessageList {...open} onThreadRepliesClick={(message) => setSide({ thread: message })} />
                </div>
                {blocked ? (
                  <p id="blocked">You blocked {open.user.getName()}.</p>
                ) : (
                  <CometChatMessageComposer {...open} />
                )}
              </>
            ) : (
              <Join group={open.group} onJoined={(group) => show({ group }, true)} />
            )}
          </div>
        )}
        {open && side && side.thread && (
          <div id="thread" key={"thread_" + side.thread.getId()} data-parent={String(side.thread.getId())}>
            <CometChatThreadHeader parentMessage={side.thread} onClose={() => setSide(null)} />
            <div className="list">
              <CometChatMessageList {...open} parentMessageId={side.thread.getId()} />
            </div>
            <CometChatMessageComposer {...open} parentMessageId={side.thread.getId()} />
          </div>
        )}
        {open && side && side.details && (
          <div id="side" key={"details_" + key}>
            {open.user ? (
              <UserDetails user={open.user} onChange={() => setBlocks((n) => n + 1)} />
            ) : (
              <GroupDetails group={open.group} />
            )}
          </div>
        )}
      </div>
    </CometChatProvider>
  );
}

const settings = new UIKitSettingsBuilder()
  .setAppId(query.get("app"))
  .setRegion("us")
  .setAdminHost(host + "/v3.0") // the SDK adds no API version to an overridden host
  .setClientHost(host + "/v3.0")
  .subscribePresenceForAllUsers()
  .build();

CometChatUIKit.init(settings)
  .then(() => CometChatUIKit.loginWithAuthToken(query.get("token")))
  .then((user) => {
    createRoot(document.getElementById("root")).render(<App />);
    status.textContent = "ready " + user.getUid();
  })
  .catch((err) => {
    status.textContent = "error: " + (err && (err.message || err.code) ? err.message || err.code : JSON.stringify(err));
  });
