// The REST/JSON API of a Parlour server, as the page uses it (fetch and EventSource, nothing else).

// What a person reads when the server cannot be reached (a refused connection, a network gone away, a proxy
// with no server behind it): never the browser's own "TypeError: Failed to fetch".
export const UNREACHABLE = "the server cannot be reached";

export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message || reason || `the server answered with an error (HTTP ${status})`);
    this.status = status;
    this.reason = reason;
  }
}

// Whether `error` says the server could not be reached (as opposed to a refusal with the server's sentence).
export const unreachable = (error) => error instanceof ApiError && error.reason === "network";

// A sentence for any failure of a call: the server's own sentence, or what went wrong in words.
export function sentence(error) {
  if (error instanceof ApiError) return error.message;
  return `something went wrong on this page (${error?.message || error})`;
}

// A call of the REST API: `query` as the query string, `body` as JSON, `token` as `Authorization: Bearer`.
// `apiKey`, when given, travels as `x-parlour-api-key` (servers run with --require-api-key want one to create
// games and claim seats). A call that reaches no server fails with an ApiError whose reason is "network".
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
  let reply;
  try {
    reply = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", UNREACHABLE);
  }
  const data = await reply.json().catch(() => null);
  if (!reply.ok && !data && [502, 503, 504].includes(reply.status)) throw new ApiError(reply.status, "network", UNREACHABLE);
  if (!reply.ok) throw new ApiError(reply.status, data?.reason, data?.message);
  return data || {};
}

export const getJSON = (path, query = {}, token) => call("GET", path, { query, token });
const game = (id) => `/v1/games/${encodeURIComponent(id)}`;

// Create a game: `houseBots` is a list of {seat, strategy} the server plays itself.
export const createGame = (body, apiKey) => call("POST", "/v1/games", { body, apiKey }).then((r) => r.game);
// Claim `seat` for `playerName`: {seat, seatToken} (the token is shown once; keep it).
export const claimSeat = (id, seat, playerName, apiKey) => call("POST", `${game(id)}/seats`, { body: { seat, playerName }, apiKey });
// The seat's own view with its legal commands.
export const getSeatView = (id, seat, token) => call("GET", `${game(id)}/view`, { query: { seat }, token }).then((r) => r.view);
// A fresh command id (a retry of the same command sends the same id, so it is never applied twice).
export const newCommandId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);
// Submit one of the view's legal commands. No expected version is sent: while the others choose at the same
// time the version moves under a person's pointer, and the server decides the command on the latest state
// anyway (a command that is no longer legal is refused with a sentence).
export const submitCommand = (id, seat, token, command, commandId = newCommandId()) =>
  call("POST", `${game(id)}/commands`, { token, body: { seat, command, commandId } });
// A short-lived, single-use ticket that opens the seat's event stream (an EventSource cannot send a token).
export const streamTicket = (id, seat, token) => call("POST", `${game(id)}/streamTickets`, { token, body: { seat } }).then((r) => r.streamTicket);

// Follows a game's events from `fromVersion` on, live: `url(next)` gives the stream's address for the next
// version wanted. A lost connection (a network gone, a server restarted) is opened again by this code, not
// by the browser, from the version after the last event seen, so every event arrives once, in order, with
// no gap. `onState(state, detail)` says where the stream is: "connecting", "live", "reconnecting" (with the
// reason in words) or "ended" (the game is over and every event was sent). Returns a function that stops.
function follow(fromVersion, url, { onEvent, onEnd, onState }) {
  let next = fromVersion;
  let source = null;
  let stopped = false;
  let retry = null;
  let failures = 0;
  const again = (detail) => {
    source?.close();
    if (stopped) return;
    onState?.("reconnecting", detail);
    failures += 1;
    retry = setTimeout(open, Math.min(1000 * failures, 5000));
  };
  const open = async () => {
    if (stopped) return;
    let address;
    try {
      address = await url(next);
    } catch (error) {
      again(sentence(error));
      return;
    }
    if (stopped) return;
    source = new EventSource(address);
    source.onopen = () => {
      failures = 0;
      onState?.("live");
    };
    // One message per command (`byCommand`): all of its events, in log order.
    source.onmessage = (message) => {
      for (const event of JSON.parse(message.data).events) {
        next = Number(event.version) + 1;
        onEvent(event);
      }
    };
    // The browser would retry by itself, but not after an error status, and a seat's ticket is used up: the
    // stream is always opened again here.
    source.onerror = () => again(UNREACHABLE);
    source.addEventListener("end", () => {
      stopped = true;
      source.close();
      onState?.("ended");
      onEnd?.();
    });
    source.addEventListener("failure", (message) => again(JSON.parse(message.data).message));
  };
  onState?.("connecting");
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
  };
}

// The seat's own events from `fromVersion` on, live. Every (re)connection asks for a new stream ticket (an
// EventSource cannot send a token), so the seat token never appears in a URL.
export function watchSeat(id, seat, token, fromVersion, callbacks) {
  return follow(fromVersion, async (next) => {
    const ticket = await streamTicket(id, seat, token);
    return `${game(id)}:watch?${new URLSearchParams({ seat, fromVersion: next, streamTicket: ticket, byCommand: true })}`;
  }, callbacks);
}

// The spectator's events of the game from `fromVersion` on, live (see `follow`).
export function watch(id, fromVersion, callbacks) {
  return follow(fromVersion, async (next) => `${game(id)}:watch?fromVersion=${next}&byCommand=true`, callbacks);
}

export const gameTypes = () => getJSON("/v1/gameTypes");

// A rules version's components named and explained (GetGameRules), fetched once per version.
const RULES = new Map();
export function gameRules(game, rulesVersion = "") {
  const key = `${game}@${rulesVersion}`;
  if (!RULES.has(key)) {
    RULES.set(key, getJSON(`/v1/gameTypes/${encodeURIComponent(game)}/rules`, rulesVersion ? { rulesVersion } : {})
      .catch((error) => { RULES.delete(key); throw error; }));
  }
  return RULES.get(key);
}

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
// `token`, when given, is the seat's (a seat's view of a running game needs it).
export const getView = (id, seat, atVersion, token) =>
  getJSON(`/v1/games/${encodeURIComponent(id)}/view`, { seat, atVersion }, token).then((r) => r.view);

// Every event of the game (redacted for `seat`, or for a spectator), paging through ListEvents.
export async function allEvents(id, seat, token) {
  const events = [];
  let from = 1;
  for (;;) {
    const page = await getJSON(`/v1/games/${encodeURIComponent(id)}/events`, { fromVersion: from, pageSize: 1000, seat }, token);
    events.push(...page.events);
    const next = Number(page.nextVersion);
    if (!page.events.length || next > Number(page.lastVersion)) return events;
    from = next;
  }
}
