// Mesa's service worker: an offline page when the network is gone, and the
// "Es tu turno" notifications the server pushes (games/mail/push.py).
// Rendered by games.web.push.service_worker; nothing else is cached: the
// board always asks the server.
const CACHE = "mesa-offline-v1";
const OFFLINE_URL = "{{ offline_url }}";  // reversed URLs: no quote or backslash in them
const CSS_URL = "{{ css_url }}";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([OFFLINE_URL, CSS_URL])));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

// Pages come from the network; only when it fails does the offline page answer.
self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return;
  event.respondWith(fetch(event.request).catch(() => caches.match(OFFLINE_URL)));
});

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { title: event.data ? event.data.text() : "Mesa" };
  }
  event.waitUntil(self.registration.showNotification(message.title || "Mesa", {
    body: message.body || "",
    tag: message.tag,
    renotify: Boolean(message.tag),
    data: { url: message.url || "/" },
  }));
});

// A tap on the notification opens the board (or brings its tab forward).
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data && event.notification.data.url ? event.notification.data.url : "/";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((client) => client.url === url);
    return open ? open.focus() : self.clients.openWindow(url);
  }));
});
