// A small chat app made of CometChat's official React UI Kit, as its v7 sample app composes
// it, pointed at natter. e2e/uikit_test.go bundles it with esbuild against the Kit installed
// from npm at test time, serves it over TLS and drives it in headless Chromium.
//
// The page reads its settings from the query string: host (natter's host:port), app (the
// app id) and token (an auth token of the user to log in as). #status says "ready <uid>" once
// logged in, or "error: …" when init or login fails.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import {
  CometChatUIKit,
  UIKitSettingsBuilder,
  CometChatProvider,
  CometChatConversations,
  CometChatMessageHeader,
  CometChatMessageList,
  CometChatMessageComposer,
} from "@cometchat/chat-uikit-react";

const query = new URLSearchParams(location.search);
const host = query.get("host");
const status = document.getElementById("status");

function App() {
  const [open, setOpen] = useState(null); // { user } or { group }
  const select = (conversation) => {
    const withWhom = conversation.getConversationWith();
    setOpen(conversation.getConversationType() === "group" ? { group: withWhom } : { user: withWhom });
  };
  // A key per conversation: the Kit's components are given a fresh instance when the
  // conversation changes, as the sample app does.
  const key = open ? (open.group ? "group_" + open.group.getGuid() : "user_" + open.user.getUid()) : "";
  return (
    <CometChatProvider>
      <div id="app">
        <div id="conversations">
          <CometChatConversations onItemClick={select} />
        </div>
        {open && (
          <div id="chat" key={key} data-conversation={key}>
            <CometChatMessageHeader {...open} />
            <div className="list">
              <CometChatMessageList {...open} />
            </div>
            <CometChatMessageComposer {...open} />
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
