// The page's own files, kept by the browser so that a reload while the server cannot be reached still shows
// the page (which then says so, and shows the last board it saw). Network first: while the server answers,
// every file comes from it as before, and the copy kept here is refreshed; only when it cannot be reached is
// the copy used. Nothing else is kept here: not the API (/v1/, /openapi.json), not the server's other pages.
const CACHE = "parlour-page-7";
const FILES = [
  "./", "index.html", "style.css", "app.js", "api.js", "board.js", "lobby.js", "newtable.js", "play.js", "replay.js",
  "signals.js", "store.js", "tips.js", "ladders.js", "games/common.js", "games/oldmen.js", "games/verraeter.js", "games/libertalia.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("parlour-page-") && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const scope = new URL(self.registration.scope);
  const page = event.request.mode === "navigate" || /\.(js|css|html)$/.test(url.pathname);
  const api = url.pathname.startsWith(`${scope.pathname}v1/`);
  if (event.request.method !== "GET" || url.origin !== scope.origin || api || !page) return; // the network, as without this file
  event.respondWith((async () => {
    try {
      const reply = await fetch(event.request);
      if (reply.ok) {
        const copy = reply.clone();
        caches.open(CACHE).then((cache) => cache.put(event.request, copy));
      }
      return reply;
    } catch (failure) {
      const kept = await caches.match(event.request, { ignoreSearch: true })
        || (event.request.mode === "navigate" ? await caches.match("index.html") : undefined);
      if (kept) return kept;
      throw failure;
    }
  })());
});
