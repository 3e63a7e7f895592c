// "Tell me when it is my turn": a seat holder's notification endpoints (docs/protocol.md, "Notifications").
// Three channels, each opt-in: this browser (Web Push through the service worker /sw.js), a webhook URL (for
// example a chat bot of the group; its signing secret is shown once) and an email address. The server tells a
// seat only while its player is not at the table, so nothing here fires while this page shows it.

import { lang, t } from "./i18n.js";
import { h } from "./ui.js";

/** The server's VAPID public key (base64url), or null when it does not offer Web Push. */
async function pushKey() {
  try {
    const response = await fetch("/api/push/key", { cache: "no-store" });
    if (!response.ok) return null;
    const body = await response.json();
    return typeof body.publicKey === "string" ? body.publicKey : null;
  } catch {
    return null;
  }
}

function base64UrlToBytes(text) {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function bytesToBase64Url(buffer) {
  let text = "";
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Whether this browser can receive Web Push at all (a secure page, a service worker, the Push API). */
export function pushSupported() {
  return window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/**
 * How long the page waits for the browser's push service to answer a subscription: without one it can reach
 * (offline, or a browser that has none, as headless Chromium) `subscribe` may never settle.
 */
const SUBSCRIBE_WAIT_MS = 15_000;

/** `promise`'s value, or null when it has not settled after `ms`. */
function within(ms, promise) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Asks the browser for a push subscription to this server's key: the `web_push` target, or an error key. */
async function subscribeThisBrowser() {
  if (!pushSupported()) return { error: "notify.push.unsupported" };
  const key = await pushKey();
  if (!key) return { error: "notify.push.off" };
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return { error: "notify.push.denied" };
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  await navigator.serviceWorker.ready;
  const subscription =
    (await registration.pushManager.getSubscription()) ||
    (await within(
      SUBSCRIBE_WAIT_MS,
      registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(key) }),
    ));
  if (!subscription) return { error: "notify.push.no_answer" };
  return {
    target: {
      channel: "web_push",
      endpoint: subscription.endpoint,
      p256dh: bytesToBase64Url(subscription.getKey("p256dh")),
      auth: bytesToBase64Url(subscription.getKey("auth")),
    },
  };
}

/**
 * Answers the service worker's question which table this page shows (`sw.js` then skips a "your turn" for it):
 * `table()` gives the code of the table shown, or null.
 */
export function answerServiceWorker(table) {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data?.type === "shown_table" && event.ports[0]) event.ports[0].postMessage({ table: table() });
  });
  navigator.serviceWorker.startMessages();
}

/**
 * The panel of one seat's notifications. `request(type, fields)` sends a request and resolves to its reply (or
 * null when refused; the caller shows the refusal). Returns `{ element, update(endpoints) }`: `update` is called
 * with the `endpoints` of a `notify_changed` push.
 */
export function notifyPanel(request) {
  const state = { endpoints: [], secret: null, message: null, loaded: false, asking: false };
  const body = h("div", { class: "notify-body" });
  const panel = h(
    "details",
    {
      class: "notify panel",
      "data-key": "notify",
      ontoggle: () => {
        if (panel.open && !state.loaded) refresh();
      },
    },
    h("summary", {}, t("notify.title")),
    body,
  );

  function take(reply) {
    if (!reply) return;
    state.loaded = true;
    state.endpoints = Array.isArray(reply.endpoints) ? reply.endpoints : [];
    if (reply.secret) state.secret = reply.secret;
    render();
  }

  async function refresh() {
    take(await request("notify_list", {}));
  }

  async function add(target) {
    state.message = null;
    state.secret = null;
    take(await request("notify_subscribe", { target, language: lang() }));
  }

  async function addThisBrowser() {
    state.asking = true;
    state.message = t("notify.push.asking");
    render();
    const result = await subscribeThisBrowser().catch(() => ({ error: "notify.push.failed" }));
    state.asking = false;
    state.message = null;
    if (result.error) {
      state.message = t(result.error);
      render();
      return;
    }
    await add(result.target);
  }

  function endpointLine(endpoint) {
    const channel = t(`notify.channel.${endpoint.channel}`);
    const status = endpoint.active
      ? t("notify.active")
      : t("notify.switched_off", { error: endpoint.last_error || t("common.none") });
    return h(
      "li",
      { "data-key": "notify-endpoint", "data-channel": endpoint.channel, "data-active": String(endpoint.active) },
      h("span", {}, `${channel}: ${endpoint.label} (${status})`),
      " ",
      h(
        "button",
        {
          type: "button",
          "data-key": "notify-remove",
          onclick: async () => take(await request("notify_unsubscribe", { endpoint: endpoint.id })),
        },
        t("notify.remove"),
      ),
    );
  }

  function textForm(key, type, channel, member) {
    const input = h("input", { type, required: true, maxlength: 2048, "data-key": `notify-${key}` });
    return h(
      "form",
      {
        class: "notify-add",
        onsubmit: (e) => {
          e.preventDefault();
          const value = input.value.trim();
          if (value) add({ channel, [member]: value }).then(() => (input.value = ""));
        },
      },
      h("label", {}, t(`notify.${key}.label`), " ", input),
      " ",
      h("button", { type: "submit", "data-key": `notify-add-${key}` }, t("notify.add")),
    );
  }

  function render() {
    const parts = [h("p", { class: "hint" }, t("notify.explain"))];
    if (state.endpoints.length) {
      parts.push(h("ul", { class: "notify-list" }, state.endpoints.map(endpointLine)));
    } else if (state.loaded) {
      parts.push(h("p", { class: "hint", "data-key": "notify-none" }, t("notify.none")));
    }
    if (state.secret) {
      parts.push(
        h(
          "p",
          { class: "notify-secret", "data-key": "notify-secret" },
          t("notify.webhook.secret"),
          " ",
          h("code", {}, state.secret),
        ),
      );
    }
    if (state.message) {
      parts.push(h("p", { class: "hint", role: "status", "data-key": "notify-message" }, state.message));
    }
    parts.push(
      h(
        "p",
        {},
        h(
          "button",
          { type: "button", "data-key": "notify-add-push", disabled: state.asking, onclick: addThisBrowser },
          t("notify.push.add"),
        ),
      ),
      textForm("email", "email", "email", "address"),
      textForm("webhook", "url", "webhook", "url"),
    );
    body.replaceChildren(...parts);
  }

  render();
  return {
    element: panel,
    update(endpoints) {
      take({ endpoints });
    },
  };
}
