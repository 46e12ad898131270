// The REST/JSON API of a Parlour server, as the page uses it (fetch and EventSource, nothing else).

export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message || reason || `HTTP ${status}`);
    this.status = status;
    this.reason = reason;
  }
}

export async function getJSON(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const url = params.toString() ? `${path}?${params}` : path;
  const reply = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ApiError(reply.status, body.reason, body.message);
  return body;
}

export const gameTypes = () => getJSON("/v1/gameTypes");

// Whether GetView takes `atVersion` (the board at any version), read from the server's OpenAPI document.
export async function viewAtVersionSupported() {
  const document = await getJSON("/openapi.json").catch(() => ({}));
  const parameters = document.paths?.["/v1/games/{game_id}/view"]?.get?.parameters || [];
  return parameters.some((p) => p.name === "atVersion");
}
export const listGames = (query) => getJSON("/v1/games", query);
export const getGame = (id) => getJSON(`/v1/games/${encodeURIComponent(id)}`).then((r) => r.game);

// A view of the game; `seat` undefined for the spectator's. `atVersion` asks for the view at that version
// (only when the server offers it: it answers 400 request/invalid otherwise).
export const getView = (id, seat, atVersion) =>
  getJSON(`/v1/games/${encodeURIComponent(id)}/view`, { seat, atVersion }).then((r) => r.view);

// Every event of the game (redacted for `seat`, or for a spectator), paging through ListEvents.
export async function allEvents(id, seat) {
  const events = [];
  let from = 1;
  for (;;) {
    const page = await getJSON(`/v1/games/${encodeURIComponent(id)}/events`, { fromVersion: from, pageSize: 1000, seat });
    events.push(...page.events);
    const next = Number(page.nextVersion);
    if (!page.events.length || next > Number(page.lastVersion)) return events;
    from = next;
  }
}

// Server-Sent Events of the game from `fromVersion` on; the browser resumes after a drop by itself
// (Last-Event-ID), so the callbacks see every event once, in order.
export function watch(id, fromVersion, { onEvent, onEnd, onState }) {
  const source = new EventSource(`/v1/games/${encodeURIComponent(id)}:watch?fromVersion=${fromVersion}`);
  source.onopen = () => onState?.("live");
  source.onerror = () => onState?.(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  source.onmessage = (message) => onEvent(JSON.parse(message.data).event);
  source.addEventListener("end", () => {
    source.close();
    onState?.("ended");
    onEnd?.();
  });
  source.addEventListener("failure", (message) => {
    source.close();
    onState?.(`failed: ${JSON.parse(message.data).message}`);
  });
  return () => source.close();
}
