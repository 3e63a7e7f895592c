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

/** Whether a visible window already shows the table the notification is about (the page then tells itself). */
async function tableShown(link) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return windows.some((client) => client.visibilityState === "visible" && client.url === link);
}

self.addEventListener("push", (event) => {
  const data = readPayload(event);
  if (!data || typeof data.title !== "string") return;
  event.waitUntil(
    (async () => {
      if (data.kind === "your_turn" && typeof data.link === "string" && (await tableShown(data.link))) return;
      await self.registration.showNotification(data.title, {
        body: typeof data.body === "string" ? data.body : "",
        // One notification per table: a newer one replaces the older.
        tag: typeof data.tag === "string" ? data.tag : undefined,
        renotify: true,
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
