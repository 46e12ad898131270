// The lobby (#/): the tables this browser plays ("My tables", from the seat tokens it holds), the games in
// progress with whose move it is, and the finished ones with their results. It refreshes by itself.
import { getGame, getView, listGames, sentence, unreachable } from "./api.js";
import { FINISHED, resultText } from "./board.js";
import { el, listed, seatName } from "./games/common.js";
import * as store from "./store.js";

const time = (stamp) => (stamp ? new Date(stamp).toLocaleString() : "");

// Whose move it is in each running game: its summary says so (`pendingSeats`). A game stored by a server
// that did not keep it yet says nothing until its next command: its spectator's view is read instead, again
// only when the game's version changed.
const pendingByGame = new Map();
async function pendingOf(summary) {
  if (summary.pendingSeats?.length) {
    pendingByGame.set(summary.gameId, { version: String(summary.version), pending: summary.pendingSeats });
    return summary.pendingSeats;
  }
  const known = pendingByGame.get(summary.gameId);
  if (known && known.version === String(summary.version)) return known.pending;
  const view = await getView(summary.gameId);
  pendingByGame.set(summary.gameId, { version: String(view.version), pending: view.pendingSeats || [] });
  return view.pendingSeats || [];
}
// Reads the pending seats of `games` a few at a time; a game whose view cannot be read shows none.
async function readPending(games, limit = 40) {
  const list = games.slice(0, limit);
  for (let i = 0; i < list.length; i += 6) {
    await Promise.all(list.slice(i, i + 6).map((g) => pendingOf(g).catch(() => null)));
  }
}

// "Ben (seat 1)", "you", "Ben and Carl (at the same time)"; "—" when unknown.
function toMove(summary, mySeat) {
  if (summary.status === FINISHED) return "game over";
  const pending = pendingByGame.get(summary.gameId);
  if (!pending || pending.version !== String(summary.version)) return "…";
  const seats = summary.seats || [];
  const names = pending.pending.map((s) => (s === mySeat ? "you" : seats[s]?.claimed ? seatName({ names: seats.map((x) => x.playerName) }, s) : `open seat ${s}`));
  if (!names.length) return "—";
  return `${listed(names)}${names.length > 1 ? " (at the same time)" : ""}`;
}

function lobbyRow(g, titles) {
  const players = (g.seats || []).map((s) => (s.claimed ? s.playerName : el("em", {}, "open seat")));
  const score = (g.results || []).map(resultText).join(" · ");
  const finished = g.status === FINISHED;
  return el(
    "tr",
    { "data-game-id": g.gameId, "data-status": finished ? "finished" : "running" },
    el("td", {}, titles[g.game] || g.game),
    el("td", { class: "mono" }, g.gameId),
    el("td", {}, time(g.createdAt)),
    el("td", {}, time(g.updatedAt)),
    el("td", {}, players.flatMap((p, i) => (i ? [", ", p] : [p]))),
    el("td", { class: "to-move" }, toMove(g, store.heldSeats().find((h) => h.id === g.gameId)?.seat)),
    el("td", {}, score || "—"),
    el("td", {}, el("a", { href: `#/watch/${g.gameId}`, class: "watch-link" }, "watch"), " ",
      finished ? el("a", { href: `#/replay/${g.gameId}`, class: "replay-link" }, "replay") : null)
  );
}

function lobbyTable(caption, games, id, titles) {
  const head = ["game", "id", "started", "last move", "players", "to move", "scores", "links"].map((h) => el("th", { scope: "col" }, h));
  return el(
    "table",
    { class: "lobby", id },
    el("caption", {}, `${caption} (${games.length})`),
    el("thead", {}, el("tr", {}, head)),
    el("tbody", {}, games.length ? games.map((g) => lobbyRow(g, titles)) : el("tr", {}, el("td", { colspan: 8 }, el("em", {}, "none"))))
  );
}

// --- my tables -------------------------------------------------------------------------------------

const gone = new Set(); // games this server no longer has

async function myTables(titles) {
  const held = store.heldSeats();
  const rows = await Promise.all(held.map(async ({ id, seat }) => {
    if (gone.has(id)) return { id, seat, summary: null };
    try {
      const summary = await getGame(id);
      if (summary.status !== FINISHED) await pendingOf(summary).catch(() => null);
      return { id, seat, summary };
    } catch (error) {
      if (unreachable(error)) throw error;
      if (error.status === 404) gone.add(id);
      return { id, seat, summary: null, problem: sentence(error) };
    }
  }));
  const order = (r) => [r.summary ? (r.summary.status === FINISHED ? 2 : 0) : 3, -Date.parse(r.summary?.updatedAt || 0)];
  rows.sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
  const forget = (id, seat) => el("button", { type: "button", class: "forget", "aria-label": `forget seat ${seat} of game ${id}`,
    onclick: () => { store.forgetSeat(id, seat); refreshSoon(); } }, "forget");
  const row = ({ id, seat, summary, problem }) => {
    if (!summary) {
      return el("tr", { "data-game-id": id, "data-seat": seat }, el("td", {}, "—"), el("td", { class: "mono" }, id), el("td", {}, `seat ${seat}`),
        el("td", {}, problem || "this server no longer has this game"), el("td", {}, forget(id, seat)));
    }
    const finished = summary.status === FINISHED;
    const turn = toMove(summary, seat);
    const mine = turn === "you";
    const me = summary.seats?.[seat]?.playerName;
    return el("tr", { "data-game-id": id, "data-seat": seat, class: mine ? "my-move" : "" },
      el("td", {}, titles[summary.game] || summary.game),
      el("td", { class: "mono" }, id),
      el("td", {}, `seat ${seat}${me ? ` (${me})` : ""}`),
      el("td", { class: "to-move" }, finished ? (summary.results || []).map(resultText).join(" · ") : mine ? el("b", {}, "your move") : turn),
      el("td", {}, el("a", { href: `#/play/${id}/${seat}`, class: "my-table-link" }, finished ? "see the end" : mine ? "play" : "back to the table"),
        " ", finished ? forget(id, seat) : null));
  };
  const head = ["game", "id", "your seat", "to move", "links"].map((h) => el("th", { scope: "col" }, h));
  return el("table", { class: "lobby", id: "my-tables" },
    el("caption", {}, `My tables (${rows.length}): the seats this browser holds`),
    el("thead", {}, el("tr", {}, head)),
    el("tbody", {}, rows.length ? rows.map(row) : el("tr", {}, el("td", { colspan: 5 }, el("em", {}, "none yet: create a table or open an invitation link")))));
}

let refreshSoon = () => {};

export async function lobbyPage(main, titles, setLeave) {
  const filter = el("select", { id: "game-filter" }, el("option", { value: "" }, "all games"),
    Object.entries(titles).map(([name, title]) => el("option", { value: name }, title)));
  const tables = el("div", { id: "lobby-tables" }, el("p", {}, "loading…"));
  const problem = el("p", { id: "lobby-problem", class: "error", role: "status" });
  main.replaceChildren(el("h1", {}, "Games"), el("p", {}, el("a", { href: "#/new", id: "new-table", class: "button" }, "New table"), " — play against bots or friends."),
    el("p", {}, el("label", { for: "game-filter" }, "Show "), filter, " — the list refreshes by itself."), problem, tables);
  let timer;
  let round = 0; // a refresh started later (a new filter) makes an earlier one drop its result
  const refresh = async () => {
    clearTimeout(timer);
    const mine = ++round;
    try {
      const { games } = await listGames({ game: filter.value, pageSize: 200 });
      const byTime = (a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt));
      const running = games.filter((g) => g.status !== FINISHED).sort(byTime);
      const finished = games.filter((g) => g.status === FINISHED).sort(byTime);
      await readPending(running);
      const drawn = el("div", {}, await myTables(titles), lobbyTable("In progress", running, "running", titles), lobbyTable("Finished", finished, "finished", titles));
      if (mine !== round) return;
      // Drawn again only when something changed, so the keyboard's place in the lists is kept meanwhile.
      if (drawn.innerHTML !== tables.innerHTML) tables.replaceChildren(...drawn.childNodes);
      problem.textContent = "";
    } catch (error) {
      if (mine !== round) return;
      problem.textContent = unreachable(error) ? "The server cannot be reached; retrying…" : sentence(error);
    }
    timer = setTimeout(refresh, 2000);
  };
  refreshSoon = refresh;
  filter.addEventListener("change", refresh);
  setLeave(() => { clearTimeout(timer); refreshSoon = () => {}; });
  await refresh();
}
