// Parlour's page: a lobby, a new table and its invitations, playing a seat, a live view of a game, and a
// replay of a finished one. Routes (in the URL's hash): #/  ·  #/new  ·  #/invitations/<game id>  ·
// #/play/<game id>/<seat>?token=<seat token>  ·  #/watch/<game id>  ·  #/replay/<game id>?seat=<n>&version=<v>
import { allEvents, gameTypes, getGame, getView, sentence, unreachable, watch } from "./api.js";
import { FINISHED, lastMove, lastMoveText, learn, loadRules, markLastMove, namesOf, renderBoard } from "./board.js";
import { describeEvent, el } from "./games/common.js";
import { botPage, ladderPage, laddersPage } from "./ladders.js";
import { lobbyPage } from "./lobby.js";
import { invitationsPage, newGamePage } from "./newtable.js";
import { playPage } from "./play.js";
import { replayPage } from "./replay.js";
import { tabTitle } from "./signals.js";
import { installTips } from "./tips.js";
import * as store from "./store.js";

const main = document.getElementById("main");
const connection = document.getElementById("connection");
let leave = () => {}; // stops what the current page started (timers, event streams)
let titles = {};
const setLeave = (stop) => { leave = stop; };

function showError(error) {
  main.replaceChildren(el("h1", {}, "Something went wrong"), el("p", { class: "error", role: "alert" }, sentence(error)),
    el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
}

// While the server cannot be reached, a page that could not load says so and tries again by itself.
function showUnreachable() {
  let wait = 2;
  const line = el("p", { id: "unreachable", class: "error", role: "status" });
  const say = () => { line.textContent = `The server cannot be reached; retrying in ${wait} s…`; };
  say();
  main.replaceChildren(el("h1", {}, "Cannot reach the server"), line,
    el("p", {}, "Nothing can be played until it answers: this page loads by itself as soon as it does."));
  connection.textContent = "reconnecting…";
  const timer = setInterval(() => {
    wait -= 1;
    if (wait > 0) return say();
    clearInterval(timer);
    route();
  }, 1000);
  leave = () => { clearInterval(timer); connection.textContent = ""; };
}

// --- watch ------------------------------------------------------------------------------------------

function eventItem(event, context) {
  return el("li", { "data-version": event.version }, el("span", { class: "version" }, event.version), " ", describeEvent(event, context));
}

async function watchPage(id) {
  let summary = await getGame(id);
  await loadRules(summary);
  const context = { names: namesOf(summary) };
  let view = await getView(id);
  learn(context, view);
  const title = titles[summary.game] || summary.game;
  const boardSlot = el("div", { class: "board-slot" });
  const recent = el("p", { id: "last-move", class: "last-move-line" });
  const log = el("ol", { id: "event-log", class: "event-log", reversed: true, tabindex: "0", "aria-label": "events, newest first" });
  const state = el("span", { id: "watch-state" }, "connecting…");
  const events = [];
  const draw = () => {
    const board = renderBoard(view, context);
    const move = lastMove(events, view.version);
    markLastMove(board, move, view.game);
    recent.replaceChildren(...(move.length ? [el("b", {}, "Last move: "), lastMoveText(move, (e) => describeEvent(e, context))] : []));
    boardSlot.replaceChildren(board);
  };
  main.replaceChildren(
    el("h1", {}, `Watching ${title} `, el("span", { class: "mono" }, id)),
    el("p", {}, "Spectator's view (public information only) · stream: ", state, " · ", el("a", { href: `#/replay/${id}` }, "replay")),
    el("div", { class: "split" }, el("div", {}, recent, boardSlot), el("aside", {}, el("h2", {}, "Events"), log))
  );
  tabTitle(`Watching ${title}`);
  let fetching = false;
  let again = false;
  const refresh = async () => {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      do {
        again = false;
        view = await getView(id);
        if (view.status === FINISHED) {
          summary = await getGame(id);
          context.names = namesOf(summary);
        }
        draw();
      } while (again);
    } catch (error) {
      if (!unreachable(error)) console.warn(error); // the stream says it is reconnecting; it refreshes once back
    } finally {
      fetching = false;
    }
  };
  const past = await allEvents(id);
  events.push(...past);
  learn(context, view, past);
  draw();
  log.replaceChildren(...past.slice(-200).reverse().map((e) => eventItem(e, context)));
  const seen = Math.max(Number(view.version), Number(past.at(-1)?.version ?? 0));
  const stop = watch(id, seen + 1, {
    onEvent: (event) => {
      events.push(event);
      log.prepend(eventItem(event, context));
      refresh();
    },
    onEnd: refresh,
    onState: (text) => {
      state.textContent = text === "reconnecting" ? "reconnecting… (the server cannot be reached)" : text;
      connection.textContent = text === "live" ? "● live" : text === "reconnecting" ? "reconnecting…" : text;
      if (text === "live") refresh();
    },
  });
  leave = () => { stop(); connection.textContent = ""; };
}

// --- routing ----------------------------------------------------------------------------------------

// Each game's title by name; while the server cannot be reached, the titles this browser read last (a page
// that needs no more, such as a table's last board, still shows them), read again at the next page.
async function gameTitles() {
  try {
    const read = Object.fromEntries((await gameTypes()).gameTypes.map((t) => [t.name, t.title]));
    store.keepTitles(read);
    return read;
  } catch (error) {
    if (!unreachable(error)) throw error;
    Object.assign(offlineTitles, store.titles());
    return offlineTitles;
  }
}
const offlineTitles = {};

async function route() {
  leave();
  leave = () => {};
  tabTitle();
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  try {
    if (!Object.keys(titles).length || titles === offlineTitles) titles = await gameTitles();
    if (parts[0] === "new") await newGamePage(main);
    else if (parts[0] === "invitations" && parts[1]) invitationsPage(main, parts[1]);
    else if (parts[0] === "play" && parts[1] && /^\d+$/.test(parts[2] || "")) {
      await playPage(main, parts[1], Number(parts[2]), new URLSearchParams(query), { titles, connection, setLeave });
    } else if (parts[0] === "watch" && parts[1]) await watchPage(parts[1]);
    else if (parts[0] === "replay" && parts[1]) await replayPage(main, parts[1], new URLSearchParams(query), titles);
    else if (parts[0] === "ladders" && parts[1] && parts[2] === "bots" && parts[3]) botPage(main, parts[1], decodeURIComponent(parts[3]), setLeave);
    else if (parts[0] === "ladders" && parts[1]) ladderPage(main, parts[1], setLeave);
    else if (parts[0] === "ladders") await laddersPage(main);
    else await lobbyPage(main, titles, setLeave);
  } catch (error) {
    if (unreachable(error)) showUnreachable();
    else {
      console.error(error);
      showError(error);
    }
  }
}

window.addEventListener("hashchange", route);
installTips();
route();
// The page's files are kept by the browser, so a reload while the server is away still shows the page.
navigator.serviceWorker?.register("sw.js").catch(() => { /* not offered here (a page not served over HTTPS): no copy kept */ });
