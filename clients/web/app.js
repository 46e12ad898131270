// Parlour's page: a lobby, a new table, playing a seat, a live view of a game, and a replay of a finished one.
// Routes (in the URL's hash): #/  ·  #/new  ·  #/play/<game id>/<seat>?token=<seat token>  ·  #/watch/<game id>
// ·  #/replay/<game id>?seat=<n>&version=<v>
import { ApiError, allEvents, gameTypes, getGame, getView, listGames, viewAtVersionSupported, watch } from "./api.js";
import { describeEvent, distinctNames, el, tree } from "./games/common.js";
import * as libertalia from "./games/libertalia.js";
import * as oldmen from "./games/oldmen.js";
import * as verraeter from "./games/verraeter.js";
import { newGamePage, playPage } from "./play.js";

const RENDERERS = { oldmen, verraeter, libertalia };
const main = document.getElementById("main");
const connection = document.getElementById("connection");
let leave = () => {}; // stops what the current page started (timers, event streams)
let titles = {};

const FINISHED = "GAME_STATUS_FINISHED";
const time = (stamp) => (stamp ? new Date(stamp).toLocaleString() : "");
const names = (summary) => distinctNames((summary.seats || []).map((s) => s.playerName || ""));
const contextOf = (summary, seat) => ({ names: names(summary), seat });
const learn = (context, view, events) => RENDERERS[view?.game]?.learn?.(context, view, events);

function renderBoard(view, context) {
  const game = view.game;
  const board = el("div", { id: "board", "data-version": view.version, "data-game": game, "data-seat": view.seat ?? "" });
  try {
    board.append(RENDERERS[game] && view[game] ? RENDERERS[game].render(view, context) : tree(view, `${game} view`));
  } catch (error) {
    console.error(error);
    board.append(el("p", { class: "error" }, `cannot draw this board (${error.message}); its data:`), tree(view, "view"));
  }
  if (view.results?.length) board.prepend(results(view.results, context));
  return board;
}

function results(list, context) {
  return el(
    "div",
    { class: "results" },
    el("b", {}, "Result: "),
    list.map((r) => el("span", { class: `result seat-${r.seat}` }, `${r.rank}. ${r.playerName || context.names?.[r.seat] || `seat ${r.seat}`} ${r.score}`))
  );
}

function showError(error) {
  const text = error instanceof ApiError ? `${error.message} (${error.reason || error.status})` : String(error);
  main.replaceChildren(el("p", { class: "error", role: "alert" }, text), el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
}

// --- lobby ------------------------------------------------------------------------------------------

function lobbyRow(g) {
  const players = (g.seats || []).map((s) => (s.claimed ? s.playerName : el("em", {}, "open seat")));
  const score = (g.results || []).map((r) => `${r.rank}. ${r.playerName || `seat ${r.seat}`} ${r.score}`).join(" · ");
  const finished = g.status === FINISHED;
  return el(
    "tr",
    { "data-game-id": g.gameId, "data-status": finished ? "finished" : "running" },
    el("td", {}, titles[g.game] || g.game),
    el("td", { class: "mono" }, g.gameId),
    el("td", {}, time(g.createdAt)),
    el("td", {}, time(g.updatedAt)),
    el("td", {}, players.flatMap((p, i) => (i ? [", ", p] : [p]))),
    el("td", { class: "num" }, g.version),
    el("td", {}, score || "—"),
    el("td", {}, el("a", { href: `#/watch/${g.gameId}`, class: "watch-link" }, "watch"), " ",
      finished ? el("a", { href: `#/replay/${g.gameId}`, class: "replay-link" }, "replay") : null)
  );
}

function lobbyTable(caption, games, id) {
  const head = ["game", "id", "started", "last move", "players", "version", "scores", ""].map((h) => el("th", {}, h));
  return el(
    "table",
    { class: "lobby", id },
    el("caption", {}, `${caption} (${games.length})`),
    el("thead", {}, el("tr", {}, head)),
    el("tbody", {}, games.length ? games.map(lobbyRow) : el("tr", {}, el("td", { colspan: 8 }, el("em", {}, "none"))))
  );
}

async function lobby() {
  const filter = el("select", { id: "game-filter", "aria-label": "game" }, el("option", { value: "" }, "all games"),
    Object.entries(titles).map(([name, title]) => el("option", { value: name }, title)));
  const tables = el("div", { id: "lobby-tables" }, el("p", {}, "loading…"));
  main.replaceChildren(el("h1", {}, "Games"), el("p", {}, el("a", { href: "#/new", id: "new-table", class: "button" }, "New table"), " — play against bots or friends."),
    el("p", {}, "Show ", filter, " — the list refreshes by itself."), tables);
  let timer;
  const refresh = async () => {
    try {
      const { games } = await listGames({ game: filter.value, pageSize: 200 });
      const byTime = (a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt));
      const running = games.filter((g) => g.status !== FINISHED).sort(byTime);
      const finished = games.filter((g) => g.status === FINISHED).sort(byTime);
      tables.replaceChildren(lobbyTable("In progress", running, "running"), lobbyTable("Finished", finished, "finished"));
    } catch (error) {
      tables.replaceChildren(el("p", { class: "error" }, String(error.message || error)));
    }
    timer = setTimeout(refresh, 2000);
  };
  filter.addEventListener("change", () => { clearTimeout(timer); refresh(); });
  leave = () => clearTimeout(timer);
  await refresh();
}

// --- watch ------------------------------------------------------------------------------------------

function eventItem(event, context) {
  return el("li", { "data-version": event.version }, el("span", { class: "version" }, event.version), " ", describeEvent(event, context));
}

async function watchPage(id) {
  let summary = await getGame(id);
  const context = contextOf(summary);
  let view = await getView(id);
  learn(context, view);
  const boardSlot = el("div", { class: "board-slot" }, renderBoard(view, context));
  const log = el("ol", { id: "event-log", class: "event-log", reversed: true });
  const state = el("span", { id: "watch-state" }, "connecting…");
  main.replaceChildren(
    el("h1", {}, `Watching ${titles[summary.game] || summary.game} `, el("span", { class: "mono" }, id)),
    el("p", {}, "Spectator's view (public information only) · stream: ", state, " · ",
      el("a", { href: `#/replay/${id}` }, "replay")),
    el("div", { class: "split" }, boardSlot, el("aside", {}, el("h2", {}, "Events"), log))
  );
  let fetching = false;
  let again = false;
  const refresh = async () => {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      do {
        again = false;
        view = await getView(id);
        if (view.status === FINISHED) summary = await getGame(id);
        boardSlot.replaceChildren(renderBoard(view, contextOf(summary)));
      } while (again);
    } finally {
      fetching = false;
    }
  };
  const history = await allEvents(id);
  learn(context, view, history);
  log.replaceChildren(...history.slice(-200).reverse().map((e) => eventItem(e, context)));
  const seen = Math.max(Number(view.version), Number(history.at(-1)?.version ?? 0));
  const stop = watch(id, seen + 1, {
    onEvent: (event) => {
      log.prepend(eventItem(event, context));
      refresh();
    },
    onEnd: refresh,
    onState: (text) => {
      state.textContent = text;
      connection.textContent = text === "live" ? "● live" : text;
    },
  });
  leave = () => { stop(); connection.textContent = ""; };
}

// --- replay -----------------------------------------------------------------------------------------

async function replayPage(id, params) {
  const summary = await getGame(id);
  const seat = params.get("seat") === null || params.get("seat") === "" ? undefined : Number(params.get("seat"));
  const context = contextOf(summary, seat);
  const [events, finalView, atVersion] = await Promise.all([allEvents(id, seat), getView(id, seat), viewAtVersionSupported()]);
  learn(context, finalView, events);
  const last = events.length;
  let version = Math.min(Math.max(Number(params.get("version") ?? last), 0), last);

  const perspective = el("select", { id: "perspective", "aria-label": "perspective" },
    el("option", { value: "" }, "spectator"),
    (summary.seats || []).map((s) => el("option", { value: s.seat, selected: s.seat === seat }, `seat ${s.seat}${s.playerName ? ` (${s.playerName})` : ""}`)));
  perspective.addEventListener("change", () => go({ seat: perspective.value, version }));
  const slider = el("input", { id: "step", type: "range", min: 0, max: last, value: version, "aria-label": "version" });
  const moves = events.filter((e, i) => e.commandId && events[i + 1]?.commandId !== e.commandId);
  const moveSelect = el("select", { id: "move", "aria-label": "move" }, el("option", { value: "" }, "jump to move…"),
    moves.map((e, i) => el("option", { value: e.version }, `move ${i + 1}: ${describeEvent(e, context).slice(0, 70)}`)));
  const position = el("span", { id: "position" });
  const note = el("p", { class: "note", id: "board-note" });
  const boardSlot = el("div", { class: "board-slot" });
  const log = el("ol", { id: "event-log", class: "event-log replay" }, events.map((e) => {
    const item = eventItem(e, context);
    item.addEventListener("click", () => show(Number(e.version)));
    return item;
  }));
  const button = (label, id, to) => el("button", { id, type: "button", onclick: () => show(to()) }, label);

  main.replaceChildren(
    el("h1", {}, `Replay of ${titles[summary.game] || summary.game} `, el("span", { class: "mono" }, id)),
    el("p", { class: "note" }, summary.status === FINISHED
      ? "Step through the game, jump to a move, or see it as one seat saw it."
      : "This game is still running: the replay ends at its latest move, and hidden information stays hidden."),
    el("div", { class: "controls" },
      el("label", {}, "Perspective ", perspective),
      button("« first", "first", () => 0), button("‹ back", "prev", () => version - 1),
      button("forward ›", "next", () => version + 1), button("last »", "last", () => last),
      slider, position, moveSelect),
    note,
    el("div", { class: "split" }, boardSlot, el("aside", {}, el("h2", {}, "Events"), log))
  );
  slider.addEventListener("input", () => show(Number(slider.value)));
  moveSelect.addEventListener("change", () => moveSelect.value && show(Number(moveSelect.value)));

  async function boardAt(v) {
    if (v === last) return finalView;
    return atVersion ? getView(id, seat, Math.max(v, 1)) : null;
  }

  async function show(v) {
    version = Math.min(Math.max(v, 0), last);
    slider.value = version;
    position.textContent = `version ${version} of ${last}`;
    history.replaceState(null, "", `#/replay/${id}?${new URLSearchParams({ ...(seat === undefined ? {} : { seat }), version })}`);
    for (const item of log.children) item.classList.toggle("current", Number(item.dataset.version) === version);
    log.querySelector(".current")?.scrollIntoView({ block: "nearest" });
    const view = await boardAt(version);
    if (view) {
      note.textContent = "";
      boardSlot.replaceChildren(renderBoard(view, context));
    } else {
      const event = events[version - 1];
      note.textContent = "This server cannot yet show the board at an earlier version: the final board is shown, and the event at this step is highlighted.";
      boardSlot.replaceChildren(
        event ? el("div", { class: "step-event", "data-version": version }, el("b", {}, `Step ${version}: `), describeEvent(event, context)) : el("div", {}, "Before the first event."),
        renderBoard(finalView, context)
      );
    }
  }

  function go({ seat: s, version: v }) {
    const query = new URLSearchParams({ ...(s === "" || s === undefined ? {} : { seat: s }), version: v });
    location.hash = `#/replay/${id}?${query}`;
  }

  await show(version);
}

// --- routing ----------------------------------------------------------------------------------------

async function route() {
  leave();
  leave = () => {};
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  try {
    if (!Object.keys(titles).length) {
      titles = Object.fromEntries((await gameTypes()).gameTypes.map((t) => [t.name, t.title]));
    }
    if (parts[0] === "new") await newGamePage(main);
    else if (parts[0] === "play" && parts[1] && /^\d+$/.test(parts[2] || "")) {
      await playPage(main, parts[1], Number(parts[2]), new URLSearchParams(query),
        { titles, renderBoard, connection, renderers: RENDERERS, setLeave: (stop) => { leave = stop; } });
    } else if (parts[0] === "watch" && parts[1]) await watchPage(parts[1]);
    else if (parts[0] === "replay" && parts[1]) await replayPage(parts[1], new URLSearchParams(query));
    else await lobby();
  } catch (error) {
    console.error(error);
    showError(error);
  }
}

window.addEventListener("hashchange", route);
route();
