// The ladders (#/ladders): every standing ladder of the server; a ladder's leaderboard (#/ladders/ID) with
// its live tables; a bot's page (#/ladders/ID/bots/NAME) with its rating over time and its recent games.
// Everything is read from the ladder's own event stream (WatchTournament over SSE): each message carries
// one event of the ladder's log with the standings after it, so a bot's rating history is the standings
// after each of its games, and the page stays live.
import { getJSON } from "./api.js";
import { el } from "./games/common.js";

const LADDER = "TOURNAMENT_FORMAT_LADDER";
const number = (x, digits = 2) => Number(x || 0).toFixed(digits);
const signed = (x) => `${Number(x || 0) >= 0 ? "+" : "−"}${Math.abs(Number(x || 0)).toFixed(2)}`;
const ladderLink = (id, text) => el("a", { href: `#/ladders/${id}` }, text);
const botLink = (id, name) => el("a", { href: `#/ladders/${id}/bots/${encodeURIComponent(name)}`, class: "bot-link" }, name);

// Follows the ladder's log from its start; `onUpdate(log)` after each message (log: events and standings).
function followLadder(id, onUpdate, onProblem) {
  const log = { events: [], standings: [], tournament: null };
  const source = new EventSource(`/v1/tournaments/${id}:watch`);
  source.onmessage = (message) => {
    const reply = JSON.parse(message.data);
    log.events.push({ event: reply.event, standings: reply.standings || [] });
    log.standings = reply.standings || [];
    log.tournament = reply.tournament;
    onUpdate(log);
  };
  source.addEventListener("failure", (message) => onProblem(JSON.parse(message.data).message));
  return () => source.close();
}

// The list of the server's ladders.
export async function laddersPage(main) {
  const { tournaments = [] } = await getJSON("/v1/tournaments");
  const ladders = tournaments.filter((t) => t.settings?.format === LADDER);
  const rows = ladders.map((t) => el("tr", { "data-ladder-id": t.tournamentId },
    el("td", {}, ladderLink(t.tournamentId, t.settings.name)), el("td", {}, t.settings.game), el("td", {}, t.settings.rulesVersion),
    el("td", {}, String((t.bots || []).length)), el("td", {}, String(t.gamesFinished || 0))));
  const head = ["ladder", "game", "rules", "bots", "games rated"].map((h) => el("th", { scope: "col" }, h));
  main.replaceChildren(el("h1", {}, "Ladders"),
    el("p", {}, "Bots join with ", el("code", {}, "parlour bot --ladder LADDER_ID"), " and keep getting games while connected."),
    el("table", { class: "lobby", id: "ladders" }, el("thead", {}, el("tr", {}, head)),
      el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: 5 }, el("em", {}, "no ladder yet"))))));
}

function leaderboard(id, standings) {
  const head = ["rank", "bot", "games", "wins", "rating", "μ", "σ", "batch strength [95% interval]"].map((h) => el("th", { scope: "col" }, h));
  const rows = standings.map((s) => el("tr", { "data-bot": s.botName },
    el("td", {}, String(s.rank)),
    el("td", {}, botLink(id, s.botName), s.paused && el("span", { class: "paused", title: "its clock kept running out: seated no more until it joins again" }, " (paused)")),
    el("td", {}, String(s.games || 0)), el("td", {}, String(s.wins || 0)),
    el("td", {}, number(s.rating)), el("td", {}, number(s.ratingMu)), el("td", {}, number(s.ratingSigma)),
    el("td", { class: "interval" }, `${signed(s.strength)} [${signed(s.strengthLow)}, ${signed(s.strengthHigh)}]`)));
  return el("table", { class: "lobby", id: "leaderboard" },
    el("caption", {}, "Ranked by rating (μ − 3σ); the batch strength fits every game at once, the same in any order"),
    el("thead", {}, el("tr", {}, head)),
    el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: 8 }, el("em", {}, "no bot has joined yet")))));
}

// Tables scheduled and not finished, from the log.
function liveTables(log) {
  const open = new Map();
  for (const { event } of log.events) {
    if (event.tableScheduled) open.set(event.tableScheduled.gameId, event.tableScheduled.seats || []);
    if (event.tableFinished) open.delete(event.tableFinished.gameId);
  }
  return [...open].map(([gameId, seats]) => el("li", { "data-game-id": gameId },
    el("a", { href: `#/watch/${gameId}`, class: "watch-link" }, `watch ${seats.join(", ")}`)));
}

// A ladder's leaderboard and live tables, live.
export function ladderPage(main, id, setLeave) {
  const board = el("div", { id: "ladder-board" }, el("p", {}, "loading…"));
  const live = el("ul", { id: "live-tables" });
  const title = el("h1", {}, "Ladder");
  const problem = el("p", { class: "error", role: "status" });
  main.replaceChildren(title, problem, board, el("h2", {}, "Tables being played"), live);
  let drawn = 0;
  const draw = (log) => {
    if (log.tournament) title.textContent = `${log.tournament.settings.name} (${log.tournament.settings.game})`;
    board.replaceChildren(leaderboard(id, log.standings));
    const tables = liveTables(log);
    live.replaceChildren(...(tables.length ? tables : [el("li", {}, el("em", {}, "none right now"))]));
  };
  let pending = null;
  setLeave(followLadder(id, (log) => {
    drawn += 1;
    if (!pending) pending = setTimeout(() => { pending = null; draw(log); }, drawn === 1 ? 0 : 200);
  }, (text) => { problem.textContent = text; }));
}

// The points of a bot's rating history: (its games so far, μ, μ − 3σ) after each of its rated games.
export function ratingHistory(log, name) {
  const points = [];
  for (const { event, standings } of log.events) {
    if (!event.tableFinished || !(event.tableFinished.results || []).some((r) => r.playerName === name)) continue;
    const row = standings.find((s) => s.botName === name);
    if (row) points.push({ games: row.games || 0, mu: Number(row.ratingMu), rating: Number(row.rating), gameId: event.tableFinished.gameId });
  }
  return points;
}

// An SVG line chart of μ and the rating over the bot's games.
function chart(points) {
  const width = 600;
  const height = 220;
  const pad = 32;
  const values = points.flatMap((p) => [p.mu, p.rating]);
  const low = Math.min(0, ...values);
  const high = Math.max(1, ...values);
  const x = (i) => pad + (points.length > 1 ? (i * (width - 2 * pad)) / (points.length - 1) : 0);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / (high - low);
  const line = (key, cls) => {
    const path = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    path.setAttribute("points", points.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" "));
    path.setAttribute("class", cls);
    return path;
  };
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("id", "rating-chart");
  svg.setAttribute("data-points", String(points.length));
  const label = document.createElementNS("http://www.w3.org/2000/svg", "title");
  const last = points[points.length - 1];
  label.textContent = last ? `Rating over ${points.length} games: μ ${number(last.mu)}, rating ${number(last.rating)}` : "No rated game yet";
  const scale = (value) => {
    const text = document.createElementNS("http://www.w3.org/2000/svg", "text");
    text.setAttribute("x", "4");
    text.setAttribute("y", String(y(value) + 4));
    text.setAttribute("class", "chart-scale");
    text.textContent = number(value, 0);
    return text;
  };
  svg.append(label, scale(high), scale(low), line("mu", "chart-mu"), line("rating", "chart-rating"));
  return svg;
}

// A bot's page: its rating over time and its recent games (each opens in the replay view).
export function botPage(main, id, name, setLeave) {
  const body = el("div", { id: "bot-page" }, el("p", {}, "loading…"));
  main.replaceChildren(el("h1", {}, `${name} on the ladder`), el("p", {}, ladderLink(id, "back to the leaderboard")), body);
  setLeave(followLadder(id, (log) => {
    const points = ratingHistory(log, name);
    const recent = points.slice(-10).reverse().map((p) => el("li", { "data-game-id": p.gameId },
      el("a", { href: `#/replay/${p.gameId}`, class: "replay-link" }, `game ${p.games}`), ` — rating ${number(p.rating)} after it`));
    body.replaceChildren(
      el("figure", {}, chart(points), el("figcaption", {}, el("span", { class: "chart-mu" }, "μ"), " and ",
        el("span", { class: "chart-rating" }, "rating (μ − 3σ)"), ` over ${points.length} rated games`)),
      el("h2", {}, "Recent games"),
      el("ol", { id: "recent-games" }, recent.length ? recent : el("li", {}, el("em", {}, "none yet"))));
  }, () => {}));
}
