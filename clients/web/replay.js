// The replay of a game (#/replay/<game id>?seat=<n>&version=<v>): step through it, jump to a move. Once a
// game is over everything is public (unless the game keeps it hidden), so the replay shows every hand and
// there is no seat to choose; while a game runs, or when it keeps hidden information after its end, it can
// be seen as the spectator or as a seat this browser holds (with that seat's token).
import { allEvents, getGame, getView, viewAtVersionSupported } from "./api.js";
import { FINISHED, learn, loadRules, namesOf, renderBoard } from "./board.js";
import { describeEvent, el } from "./games/common.js";
import * as store from "./store.js";

function eventItem(event, context) {
  return el("li", { "data-version": event.version }, el("span", { class: "version" }, event.version), " ", describeEvent(event, context));
}

// Whether every seat's view of a finished game is public (a seat's view answers without its token).
// Whether everything about a finished game is public: its policy does not keep hidden information after the
// end, and it is not a withheld table of a tournament deal.
const publicAfterEnd = (id, summary) => summary.status === FINISHED && !summary.keepHiddenAfterEnd && !summary.withheld;

export async function replayPage(main, id, params, titles) {
  const summary = await getGame(id);
  await loadRules(summary);
  const open = publicAfterEnd(id, summary);
  const held = (summary.seats || []).filter((s) => store.seatToken(id, s.seat));
  const asked = params.get("seat") === null || params.get("seat") === "" ? undefined : Number(params.get("seat"));
  const seat = open || !held.some((s) => s.seat === asked) ? undefined : asked;
  const token = seat === undefined ? undefined : store.seatToken(id, seat);
  const context = { names: namesOf(summary), seat };
  const [events, finalView, atVersion] = await Promise.all([allEvents(id, seat, token), getView(id, seat, undefined, token), viewAtVersionSupported()]);
  learn(context, finalView, events);
  const last = events.length;
  let version = Math.min(Math.max(Number(params.get("version") ?? last), 0), last);

  const perspective = el("select", { id: "perspective" },
    el("option", { value: "" }, "spectator"),
    held.map((s) => el("option", { value: s.seat, selected: s.seat === seat }, `seat ${s.seat}${s.playerName ? ` (${s.playerName})` : ""}: yours`)));
  perspective.addEventListener("change", () => go({ seat: perspective.value, version }));
  const slider = el("input", { id: "step", type: "range", min: 0, max: last, value: version, "aria-label": "version" });
  const moves = events.filter((e, i) => e.commandId && events[i + 1]?.commandId !== e.commandId);
  const moveSelect = el("select", { id: "move", "aria-label": "jump to a move" }, el("option", { value: "" }, "jump to move…"),
    moves.map((e, i) => el("option", { value: e.version }, `move ${i + 1}: ${describeEvent(e, context).slice(0, 70)}`)));
  const position = el("span", { id: "position" });
  const note = el("p", { class: "note", id: "board-note" });
  const boardSlot = el("div", { class: "board-slot" });
  const log = el("ol", { id: "event-log", class: "event-log replay", tabindex: "0", "aria-label": "the game's events: choose one to see the board after it" },
    events.map((e) => {
      const item = eventItem(e, context);
      item.addEventListener("click", () => show(Number(e.version)));
      return item;
    }));
  log.addEventListener("keydown", (event) => {
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, Home: -version, End: last - version }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    show(version + step);
  });
  const button = (label, buttonId, to) => el("button", { id: buttonId, type: "button", onclick: () => show(to()) }, label);

  const explained = open
    ? "The game is over, so everything is public now: every hand and every sealed choice is shown at every step, to everyone (there is no seat's view to choose)."
    : summary.status === FINISHED
      ? "This game keeps its hidden information after the end: you see it as the spectator, or as a seat this browser holds."
      : "This game is still running: the replay ends at its latest move, and hidden information stays hidden (see it as the spectator, or as a seat this browser holds).";
  main.replaceChildren(
    el("h1", {}, `Replay of ${titles[summary.game] || summary.game} `, el("span", { class: "mono" }, id)),
    el("p", { class: "note", id: "replay-note" }, "Step through the game or jump to a move. ", explained),
    el("div", { class: "controls" },
      open ? null : el("label", {}, "Perspective ", perspective),
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
    return atVersion ? getView(id, seat, Math.max(v, 1), token) : null;
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
