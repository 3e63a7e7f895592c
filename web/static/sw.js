// The service worker: it shows the server's Web Push notifications ("your turn", "your clock runs low", "the
// match is over") while no page of the site is open, and opens or focuses the table when one is clicked.
// Served at /sw.js so that its scope is the whole site. It caches nothing: the page itself always comes from the
// server.
//
// A push's payload is the JSON the server encrypted for this browser's subscription:
// { id, kind, title, body, link, tag } (docs/protocol.md, "Notifications").

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function readPayload(event) {
  if (!event.data) return null;
  try {
    const data = event.data.json();
    return data && typeof data === "object" ? data : null;
  } catch {
    return null;
  }
}

/**
 * The code of the table a window's page shows, as the page answers (`notify.js`, `answerServiceWorker`), or null
 * without an answer within a second. A window's `url` cannot tell: it stays the address the page was loaded at,
 * while the page moves between tables by its address's `#` part.
 */
function shownTable(client) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), 1000);
    channel.port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(event.data && typeof event.data.table === "string" ? event.data.table : null);
    };
    client.postMessage({ type: "shown_table" }, [channel.port2]);
  });
}

/** Whether a visible window already shows table `code` (the page then tells itself). */
async function tableShown(code) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const visible = windows.filter((client) => client.visibilityState === "visible");
  return (await Promise.all(visible.map(shownTable))).includes(code);
}

self.addEventListener("push", (event) => {
  const data = readPayload(event);
  if (!data || typeof data.title !== "string") return;
  event.waitUntil(
    (async () => {
      // `tag` is the table's code.
      if (data.kind === "your_turn" && typeof data.tag === "string" && (await tableShown(data.tag))) return;
      const tagged = typeof data.tag === "string" && data.tag !== "";
      await self.registration.showNotification(data.title, {
        body: typeof data.body === "string" ? data.body : "",
        // One notification per table: a newer one replaces the older, and alerts again (`renotify` needs a tag:
        // without one the browser refuses the notification).
        tag: tagged ? data.tag : undefined,
        renotify: tagged,
        icon: "/favicon.svg",
        data: { link: typeof data.link === "string" ? data.link : "/", id: data.id },
      });
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const link = (event.notification.data && event.notification.data.link) || "/";
  const target = new URL(link, self.location.origin);
  // Only links into this site are opened.
  if (target.origin !== self.location.origin) return;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if (client.url === target.href && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(target.href);
    })(),
  );
});
