// The REST/JSON API of a Parlour server, as the page uses it (fetch and EventSource, nothing else).

export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message || reason || `HTTP ${status}`);
    this.status = status;
    this.reason = reason;
  }
}

// A call of the REST API: `query` as the query string, `body` as JSON, `token` as `Authorization: Bearer`.
// `apiKey`, when given, travels as `x-parlour-api-key` (servers run with --require-api-key want one to create
// games and claim seats).
async function call(method, path, { query = {}, body, token, apiKey } = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const url = params.toString() ? `${path}?${params}` : path;
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (apiKey) headers["X-Parlour-Api-Key"] = apiKey;
  const reply = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ApiError(reply.status, data.reason, data.message);
  return data;
}

export const getJSON = (path, query = {}) => call("GET", path, { query });
const game = (id) => `/v1/games/${encodeURIComponent(id)}`;

// Create a game: `houseBots` is a list of {seat, strategy} the server plays itself.
export const createGame = (body, apiKey) => call("POST", "/v1/games", { body, apiKey }).then((r) => r.game);
// Claim `seat` for `playerName`: {seat, seatToken} (the token is shown once; keep it).
export const claimSeat = (id, seat, playerName, apiKey) => call("POST", `${game(id)}/seats`, { body: { seat, playerName }, apiKey });
// The seat's own view with its legal commands.
export const getSeatView = (id, seat, token) => call("GET", `${game(id)}/view`, { query: { seat }, token }).then((r) => r.view);
// Submit one of the view's legal commands with a fresh command id. No expected version is sent: while the
// others choose at the same time the version moves under a person's pointer, and the server decides the
// command on the latest state anyway (a command that is no longer legal is refused with a sentence).
export const submitCommand = (id, seat, token, command) =>
  call("POST", `${game(id)}/commands`, {
    token,
    body: { seat, command, commandId: crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}` },
  });
// A short-lived, single-use ticket that opens the seat's event stream (an EventSource cannot send a token).
export const streamTicket = (id, seat, token) => call("POST", `${game(id)}/streamTickets`, { token, body: { seat } }).then((r) => r.streamTicket);

// The seat's own events from `fromVersion` on, live. Every (re)connection asks for a new stream ticket and
// opens the stream right after the last event seen, so a lost connection resumes by itself with no gap
// and no repeat, and the seat token never appears in a URL. Returns a function that stops watching.
export function watchSeat(id, seat, token, fromVersion, { onEvent, onEnd, onState }) {
  let next = fromVersion;
  let source = null;
  let stopped = false;
  let retry = null;
  const open = async () => {
    if (stopped) return;
    let ticket;
    try {
      ticket = await streamTicket(id, seat, token);
    } catch (error) {
      onState?.(`reconnecting (${error.message})`);
      retry = setTimeout(open, 2000);
      return;
    }
    if (stopped) return;
    const query = new URLSearchParams({ seat, fromVersion: next, streamTicket: ticket });
    source = new EventSource(`${game(id)}:watch?${query}`);
    source.onopen = () => onState?.("live");
    source.onmessage = (message) => {
      const event = JSON.parse(message.data).event;
      next = Number(event.version) + 1;
      onEvent(event);
    };
    source.onerror = () => {
      // The ticket is used up: never let the browser retry with it; reconnect with a new one.
      source.close();
      if (stopped) return;
      onState?.("reconnecting");
      retry = setTimeout(open, 1000);
    };
    source.addEventListener("end", () => {
      stopped = true;
      source.close();
      onState?.("ended");
      onEnd?.();
    });
    source.addEventListener("failure", (message) => {
      source.close();
      onState?.(`failed: ${JSON.parse(message.data).message}`);
      retry = setTimeout(open, 2000);
    });
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
  };
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
