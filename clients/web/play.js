// Playing at the table: #/play/<game id>/<seat>?token=<seat token>. The token is kept in this browser and
// removed from the address at once (everything after `#` stays in the browser, so it never reaches a log).
// The page follows the seat's event stream; while the server cannot be reached it says so and nothing can
// be clicked, and a move that could not be sent is sent again (with the same command id) once it is back.
import { UNREACHABLE, allEvents, getGame, getSeatView, newCommandId, sentence, submitCommand, unreachable, watchSeat } from "./api.js";
import { FINISHED, RENDERERS, lastMove, lastMoveText, loadRules, markLastMove, namesOf, renderBoard } from "./board.js";
import { commandButton, commandKind, describeEvent, el, genericLabel, playerName, whoever } from "./games/common.js";
import { chime, soundToggle, tabTitle } from "./signals.js";
import * as store from "./store.js";

function takeToken(id, seat, params) {
  const given = params.get("token");
  if (given) {
    store.keepSeatToken(id, seat, given);
    history.replaceState(null, "", `#/play/${id}/${seat}`); // the token leaves the address bar
    return given;
  }
  return store.seatToken(id, seat);
}

function labelled(view, context, game, index) {
  const command = view.legalCommands[index];
  const [kind, fields] = commandKind(command, view.game);
  return {
    index,
    kind,
    target: game?.commandTarget?.(kind, fields, view) ?? null,
    label: game?.commandLabel?.(kind, fields, view, context) || genericLabel(kind, fields, context),
  };
}

function statusText(view, context) {
  const seat = context.seat;
  if (view.status === FINISHED) return "The game is over.";
  const pending = view.pendingSeats || [];
  if (pending.includes(seat) && view.legalCommands?.length) return pending.length > 1 ? "Your move (the others choose at the same time; choices stay sealed until all have chosen)." : "Your move.";
  const others = pending.filter((s) => s !== seat).map((s) => playerName(context, s));
  if (pending.length > 1) return `Waiting for the others (${others.join(", ")}).`;
  return others.length ? `Waiting for ${others[0]}.` : "Waiting…";
}

// The clock: counted down to the deadline the server gives in the view (when each pending seat's time runs
// out, its bank included); for a server that gives none, estimated in the browser from when the turn began
// and the seat's earlier think times.
function clockText(tc, view, context, mine, since, events, seat) {
  const perMove = Number(tc.moveMs || 0) / 1000;
  const deadlines = view?.deadlines || [];
  if (deadlines.length) {
    const left = (d) => Math.max(0, Math.ceil((Date.parse(d.deadline) - Date.now()) / 1000));
    const own = deadlines.find((d) => d.seat === seat);
    if (mine && own) {
      const bank = Number(own.bankMs || 0) / 1000;
      return `your clock: ${left(own)} s left${bank ? ` (bank ${Math.round(bank)} s included)` : ""}`;
    }
    return `clock: ${deadlines.map((d) => `${playerName(context, d.seat)} ${left(d)} s`).join(", ")}`;
  }
  if (!mine) return `clock: ${perMove} s a move`;
  const moves = new Map(events.filter((e) => e.seat === seat && e.commandId).map((e) => [e.commandId, Number(e.thinkTimeMs || 0) / 1000]));
  let bank = Number(tc.bankMs || 0) / 1000;
  for (const took of moves.values()) bank = Math.max(0, bank - Math.max(0, took - perMove)) + Number(tc.incrementMs || 0) / 1000;
  const used = (Date.now() - since) / 1000;
  const left = Math.max(0, Math.round(perMove - used));
  const bankLeft = Math.max(0, Math.round(bank - Math.max(0, used - perMove)));
  const banked = Number(tc.bankMs || 0) || Number(tc.incrementMs || 0);
  return `your clock: about ${left} s of ${perMove} s for this move${banked ? ` (+ bank about ${bankLeft} s)` : ""}`;
}

// Loads the table; while the server cannot be reached, the board this tab saw last (greyed out), if any.
// The seat's events so far come with it, so the log and the last move are there from the first drawing.
async function load(id, seat, token) {
  try {
    const [summary, view, past] = await Promise.all([getGame(id), getSeatView(id, seat, token), allEvents(id, seat, token)]);
    await loadRules(summary);
    return { summary, view, past, offline: false };
  } catch (failure) {
    const last = unreachable(failure) && store.lastBoard(id, seat);
    if (!last) throw failure;
    return { ...last, past: last.events || [], offline: true };
  }
}

export async function playPage(main, id, seat, params, { titles, setLeave, connection }) {
  const token = takeToken(id, seat, params);
  if (!token) {
    main.replaceChildren(el("p", { class: "error", role: "alert" }, `This browser holds no token for seat ${seat} of this game: open the seat's invitation link.`),
      el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
    return;
  }
  let { summary, view, past, offline } = await load(id, seat, token);
  let stale = offline; // the summary is this tab's copy, to read again once the server answers
  const game = RENDERERS[summary.game];
  const title = titles[summary.game] || summary.game;
  const context = { names: namesOf(summary), seat };
  const status = el("p", { id: "turn", class: "turn", role: "status", "aria-live": "polite" });
  const hint = el("p", { id: "hint", class: "hint" });
  const error = el("p", { id: "command-error", class: "error", role: "alert" });
  const recent = el("p", { id: "last-move", class: "last-move-line" });
  const boardSlot = el("div", { class: "board-slot", tabindex: "-1", "aria-label": "the board" });
  const actions = el("section", { id: "actions", class: "actions", "aria-label": "your choices" });
  const log = el("ol", { id: "event-log", class: "event-log", reversed: true, tabindex: "0", "aria-label": "what happened, newest first" });
  const stream = el("span", { id: "stream-state" }, "connecting…");
  const clock = summary.timeControl ? el("span", { id: "clock", class: "clock" }) : null;
  main.replaceChildren(
    el("h1", {}, `${title}: playing as ${playerName(context, seat)} (seat ${seat})`),
    el("p", { class: "meta" }, "Your seat's own view · stream: ", stream, clock ? [" · ", clock] : null, " · ",
      el("a", { href: `#/watch/${id}` }, "spectator's view"), " · ", soundToggle()),
    status, hint, error,
    el("div", { class: "split" }, el("div", {}, recent, actions, boardSlot),
      el("aside", {}, el("h2", { id: "log-title" }, "What happened"), log))
  );

  const events = [...past];
  let busy = false;
  let live = false; // the event stream is open (or over, with the game)
  let myTurn = false;
  let turnSince = Date.now();
  let unsent = null; // a move the server could not be reached for: sent again once it answers
  let focused = null; // the thing on the board (or the choice) that had the keyboard's focus

  // --- the connection --------------------------------------------------------------------------------
  const setOffline = (now) => {
    offline = now;
    main.classList.toggle("offline", offline);
    for (const button of main.querySelectorAll("button.command")) button.disabled = offline;
    for (const node of main.querySelectorAll(".legal")) {
      if (offline) node.setAttribute("aria-disabled", "true");
      else node.removeAttribute("aria-disabled");
    }
    connection.textContent = offline ? "reconnecting…" : live ? "● live" : stream.textContent;
    writeStatus();
  };
  const writeStatus = () => {
    if (offline && view.status !== FINISHED) {
      status.textContent = `The server cannot be reached; reconnecting… (${unsent ? "your move is sent once it answers" : "nothing can be played until it answers"}).`;
      status.dataset.offline = "true";
    } else {
      status.textContent = statusText(view, context);
      delete status.dataset.offline;
    }
    status.classList.toggle("my-turn", myTurn && !offline);
    hint.hidden = offline;
  };

  // --- moves -----------------------------------------------------------------------------------------
  const send = async (move) => {
    busy = true;
    main.classList.add("busy");
    error.textContent = "";
    try {
      await submitCommand(id, seat, token, move.command, move.commandId);
      unsent = null;
    } catch (failure) {
      if (unreachable(failure)) {
        unsent = move;
        error.textContent = `Your move was not sent: ${UNREACHABLE}; retrying, and it is sent once the server answers.`;
        setOffline(true);
      } else {
        unsent = null;
        error.textContent = `Not accepted: ${sentence(failure)}`;
      }
    }
    try {
      if (!offline) await refresh(); // the board on screen is out of date until the new view is drawn: no clicks meanwhile
    } finally {
      busy = false;
      main.classList.remove("busy");
    }
  };
  const submit = (index) => {
    if (busy || offline || !view.legalCommands?.[index]) return;
    send({ command: view.legalCommands[index], commandId: newCommandId() });
  };

  // --- drawing ---------------------------------------------------------------------------------------
  const inPlay = (node) => node && (boardSlot.contains(node) || actions.contains(node));
  main.addEventListener("focusin", (event) => {
    const target = event.target;
    focused = inPlay(target) ? { thing: target.closest("[data-thing]")?.dataset.thing, label: target.textContent } : null;
  });
  // After a redraw the keyboard stays on the board: on the same thing if it is still there, else on the first
  // thing to choose, else on the board itself (never the top of the page).
  const keepFocus = () => {
    if (!focused || (document.activeElement && document.activeElement !== document.body && !inPlay(document.activeElement))) return;
    const controls = [...boardSlot.querySelectorAll("[data-legal-command], .legal[aria-expanded]"), ...actions.querySelectorAll("button")];
    const same = focused.thing && controls.find((c) => c.closest("[data-thing]")?.dataset.thing === focused.thing);
    const target = same || controls.find((c) => c.textContent === focused.label) || controls[0] || boardSlot;
    target.focus({ preventScroll: true });
  };

  const draw = () => {
    game?.learn?.(context, view);
    const entries = (view.legalCommands || []).map((_, i) => labelled(view, context, game, i));
    const byTarget = new Map();
    for (const entry of entries) if (entry.target) byTarget.set(entry.target, [...(byTarget.get(entry.target) || []), entry]);
    const play = { byTarget, placed: new Set(), submit };
    const board = renderBoard(view, { ...context, play });
    const move = lastMove(events, view.version);
    moveKnown = events.some((e) => Number(e.version) === Number(view.version));
    markLastMove(board, move, view.game);
    recent.replaceChildren(...(move.length ? [el("b", {}, "Last move: "), lastMoveText(move, (e) => describeEvent(e, context))] : []));
    boardSlot.replaceChildren(board);
    const rest = entries.filter((e) => !play.placed.has(e.index));
    const ordering = rest.length > 1 && rest.every((e) => e.kind === "chooseAbility");
    actions.replaceChildren(...[
      rest.length ? el("h2", {}, ordering ? "Which resolves first? (the order of the list is yours to choose)" : entries.length > rest.length ? "Or choose:" : "Your choices") : null,
      rest.length ? el(ordering ? "ol" : "div", { class: ordering ? "ordering" : "choices" },
        rest.map((entry) => (ordering ? el("li", {}, commandButton(entry, play)) : commandButton(entry, play)))) : null,
      entries.length && !rest.length ? el("p", { class: "note" }, "Click or press Enter on a highlighted card, land or character on the board.") : null,
    ].filter(Boolean));
    const wasMyTurn = myTurn;
    myTurn = Boolean(view.legalCommands?.length);
    status.dataset.myTurn = String(myTurn);
    if (myTurn && !wasMyTurn) {
      const stamp = Date.parse(events.find((e) => Number(e.version) === Number(view.version))?.recordedAt);
      turnSince = Number.isFinite(stamp) ? Math.min(stamp, Date.now()) : Date.now();
      if (drawn) chime();
    }
    const pending = view.pendingSeats || [];
    const fallback = myTurn ? "Choose one of the highlighted things, or a choice above the board." : pending.length ? `${whoever(context, pending)} ${pending.length === 1 ? "must choose" : "must each choose"}.` : "";
    hint.textContent = view.status === FINISHED ? "" : game?.whatNow?.(view, context, myTurn) || fallback;
    if (view.status === FINISHED) status.dataset.finished = "true";
    tabTitle(title, myTurn && view.status !== FINISHED);
    setOffline(offline);
    keepFocus();
    drawn = true;
  };
  let drawn = false;
  let moveKnown = false;

  let fetching = false;
  let again = false;
  let settled = Promise.resolve();
  const refresh = () => {
    if (fetching) { again = true; return settled; }
    settled = fetchAndDraw();
    return settled;
  };
  const fetchAndDraw = async () => {
    fetching = true;
    try {
      do {
        again = false;
        view = await getSeatView(id, seat, token);
        if (stale) { // drawn from this tab's copy: the whole log, as the server has it
          const all = await allEvents(id, seat, token);
          const known = new Set(all.map((e) => String(e.version)));
          const merged = [...all, ...events.filter((e) => !known.has(String(e.version)))].sort((a, b) => a.version - b.version);
          events.splice(0, events.length, ...merged);
          log.replaceChildren(...merged.map(item).reverse());
        }
        if (stale || view.status === FINISHED) {
          summary = await getGame(id);
          context.names = namesOf(summary);
          stale = false;
        }
        draw();
        store.keepLastBoard(id, seat, summary, view, events.slice(-200));
      } while (again);
      if (offline && live) {
        if (!unsent && error.textContent.includes(UNREACHABLE)) error.textContent = "";
        setOffline(false);
      }
    } catch (failure) {
      if (unreachable(failure)) setOffline(true);
      else error.textContent = sentence(failure);
    } finally {
      fetching = false;
    }
  };
  // Once the stream is back: the move that could not be sent, then the board as it is now.
  const back = async () => {
    if (unsent && !busy) {
      setOffline(false);
      await send(unsent);
    } else await refresh();
  };

  game?.learn?.(context, view, past);
  draw();
  if (!offline) store.keepLastBoard(id, seat, summary, view, events.slice(-200));
  const item = (event) => el("li", { "data-version": event.version }, describeEvent(event, context));
  log.replaceChildren(...past.map(item).reverse());
  let timer = null;
  if (clock) {
    const tick = () => { clock.textContent = clockText(summary.timeControl, view, context, myTurn && !offline, turnSince, events, seat); };
    tick();
    timer = setInterval(tick, 500);
  }
  const from = Number(past.at(-1)?.version ?? 0) + 1; // the log has every event once: none skipped, none twice
  if (from - 1 > Number(view.version)) refresh(); // events came after the view was read
  const stop = watchSeat(id, seat, token, from, {
    onEvent: (event) => {
      events.push(event);
      if (event.oldmen?.gameStarted || event.verraeter?.landsLaid) game?.learn?.(context, view, [event]);
      log.prepend(item(event));
      if (Number(event.version) > Number(view.version)) refresh();
      else if (Number(event.version) === Number(view.version) && !moveKnown) draw(); // the last move is known now
    },
    onEnd: refresh,
    onState: (state) => {
      stream.textContent = state === "reconnecting" ? "reconnecting…" : state;
      connection.textContent = state === "live" ? "● live" : stream.textContent;
      const wasLive = live;
      live = state === "live" || state === "ended";
      if (state === "reconnecting") setOffline(true);
      else if (live && !wasLive && (offline || unsent)) back();
    },
  });
  // A move that failed while the stream stayed up (a request lost on its way) is tried again too.
  const retry = setInterval(() => { if (offline && live && !busy) back(); }, 3000);
  setLeave(() => { stop(); clearInterval(timer); clearInterval(retry); connection.textContent = ""; tabTitle(); });
}
