// A game's board on any page (a seat's, the spectator's, a replay's), drawn by the game's own module, and the
// results line above it once the game is over.
import { gameRules } from "./api.js";
import { distinctNames, el, tree, useRules } from "./games/common.js";
import * as libertalia from "./games/libertalia.js";
import * as oldmen from "./games/oldmen.js";
import * as verraeter from "./games/verraeter.js";

export const RENDERERS = { oldmen, verraeter, libertalia };
export const FINISHED = "GAME_STATUS_FINISHED";

// Each seat's player name as the page writes it (two "greedy bot"s are told apart by their seats).
export const namesOf = (summary) => distinctNames((summary.seats || []).map((s) => s.playerName || ""));

// What the sentences need to know beyond an event (a game's `learn`: its lands, its orangutans).
export const learn = (context, view, events) => RENDERERS[view?.game]?.learn?.(context, view, events);

// Load the words of `summary`'s game at its own rules version before drawing its board (a page that cannot
// get them draws the board with the view's own words).
export async function loadRules(summary) {
  useRules(await gameRules(summary.game, summary.rulesVersion).catch(() => null));
}

// The board of `view`; `context` has the names, the viewer's own seat (if any) and, at a table, `play`.
export function renderBoard(view, context) {
  const game = view.game;
  const board = el("div", { id: "board", "data-version": view.version, "data-game": game, "data-seat": view.seat ?? "" },
    el("h2", { class: "visually-hidden" }, "The board"));
  try {
    board.append(RENDERERS[game] && view[game] ? RENDERERS[game].render(view, context) : tree(view, `${game} view`));
  } catch (error) {
    console.error(error);
    board.append(el("p", { class: "error" }, `cannot draw this board (${error.message}); its data:`), tree(view, "view"));
  }
  if (view.results?.length) board.prepend(results(view.results));
  return board;
}

// One seat's result in words, never ambiguous: "1. greedy bot (seat 2) 24".
export const resultText = (r) => `${r.rank}. ${r.playerName || "a player"} (seat ${r.seat ?? 0}) ${r.score}`;

export function results(list) {
  return el("div", { class: "results" }, el("b", {}, "Result: "),
    list.map((r) => el("span", { class: `result seat-${r.seat ?? 0}` }, resultText(r))));
}

// --- the last move ---------------------------------------------------------------------------------

// The events of the last move (a seat's command) among `events`, up to `version`: the latest event caused
// by a command, with every other event of that command.
export function lastMove(events, version) {
  const seen = events.filter((e) => Number(e.version) <= Number(version));
  const last = seen.findLast((e) => e.commandId);
  return last ? seen.filter((e) => e.commandId === last.commandId) : [];
}

// Marks on `board` what the last move touched: the mover's panel and the things the game names (a trick
// card, a land, a character), each outlined and marked "★ last move" in its tooltip.
export function markLastMove(board, move, game) {
  const keys = new Set(move.flatMap((e) => RENDERERS[game]?.touched?.(e) || []));
  const seats = new Set(move.map((e) => e.seat).filter((s) => s !== undefined));
  const marked = [
    ...[...seats].flatMap((s) => [...board.querySelectorAll(`.seat-panel[data-seat="${s}"]`)]),
    ...[...board.querySelectorAll("[data-thing]")].filter((node) => keys.has(node.dataset.thing)),
  ];
  for (const node of marked) {
    node.classList.add("last-move");
    if (node.matches(".seat-panel")) node.querySelector("h3")?.append(el("small", { class: "moved-last" }, " · moved last"));
    else node.title = node.title ? `${node.title} (last move)` : "last move";
  }
}

// The last move in words, for the line above the board: its first sentences, then how many more.
export function lastMoveText(move, describe) {
  if (!move.length) return "";
  const said = move.slice(0, 3).map(describe).join(" ");
  return move.length > 3 ? `${said} (and ${move.length - 3} more in the log)` : said;
}
