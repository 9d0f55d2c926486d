// What every SDK script under Node shares (docs/realtime.md): the browser globals the SDK's
// bundle expects, and a call raced against a bound, so that a promise the SDK never settles
// (it throws inside its own callback on a shape it does not expect) is reported, not waited
// on for ever. Each script adds its own WebSocket and fetch wrappers.
"use strict";

const memStorage = () => {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
    clear: () => m.clear(),
    key: (i) => Array.from(m.keys())[i] ?? null,
    get length() { return m.size; },
  };
};

// installBrowserGlobals gives Node the window, storage, navigator, location and document
// the bundle reads.
exports.installBrowserGlobals = () => {
  globalThis.window = globalThis;
  globalThis.localStorage = memStorage();
  globalThis.sessionStorage = memStorage();
  Object.defineProperty(globalThis, "navigator", { value: { userAgent: "node", language: "en", platform: "node", onLine: true }, configurable: true });
  globalThis.location = { origin: "https://localhost", href: "https://localhost/", protocol: "https:", host: "localhost", hostname: "localhost" };
  globalThis.screen = { width: 1280, height: 800 };
  globalThis.matchMedia = () => ({ matches: false, addListener() {}, removeListener() {}, addEventListener() {}, removeEventListener() {} });
  globalThis.document = { querySelector: () => null, hasFocus: () => true, getElementsByName: () => [], createElement: () => ({}), addEventListener() {}, removeEventListener() {} };
  globalThis.addEventListener = () => {};
  globalThis.removeEventListener = () => {};
};

// boundedCall returns call(name, promise), which reports the promise's outcome through out
// as {"ev":"call","name","ok":true,"value"} or {"ev":"call","name","ok":false,"error"}
// (error "timeout" when it did not settle within bound ms).
exports.boundedCall = (out, bound = 10000) => async (name, promise) => {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("timeout")), bound); });
  try {
    const value = await Promise.race([promise, timeout]);
    out({ ev: "call", name, ok: true, value });
  } catch (e) {
    out({ ev: "call", name, ok: false, error: (e && (e.code || e.message)) || String(e) });
  } finally {
    clearTimeout(timer);
  }
};

// chatHostRoute returns a function that sends a URL on port 443 of the test natter's host
// (hostPort, NATTER_HOST) to its real port. The SDK composes the URLs of its chat host's
// own API (its online counts: https://<CHAT_HOST>/api/<WS_API_VERSION>/online-members) with
// no port, so to 443, where a deployment serves its sockets behind its load balancer; a
// test's natter listens on a port of its own, as the settings' CHAT_WSS_PORT tells the
// socket. Any other URL is returned as it is.
exports.chatHostRoute = (hostPort) => {
  const natter = new URL("https://" + hostPort);
  return (url) => {
    const u = new URL(String(url));
    if (u.protocol !== "https:" || u.port !== "" || u.hostname !== natter.hostname) return url;
    u.port = natter.port;
    return u.toString();
  };
};
