// Playing at the table, and making a new table: the lobby's "new game" form and the play page.
// Routes: #/new  ·  #/play/<game id>/<seat>?token=<seat token> (the token is kept in this browser and
// removed from the address at once; everything after `#` stays in the browser, so it never reaches a log).
import { ApiError, claimSeat, createGame, gameTypes, getGame, getSeatView, submitCommand, watchSeat } from "./api.js";
import { commandButton, commandKind, describeEvent, distinctNames, el, genericLabel, playerName } from "./games/common.js";

const FINISHED = "GAME_STATUS_FINISHED";
const storageKey = (id, seat) => `parlour:seat-token:${id}:${seat}`;

// --- a new table ------------------------------------------------------------------------------------

const SEAT_KINDS = [
  ["person", "a person (gets an invitation link)"],
  ["house:greedy", "greedy bot, played by the server"],
  ["house:random", "random bot, played by the server"],
  ["open", "a bot you run (`parlour bot --join`) or any program that claims the seat"],
];

function seatRow(n) {
  const kind = el("select", { name: `seat-${n}-kind`, id: `seat-${n}-kind`, "aria-label": `seat ${n}: who plays` },
    SEAT_KINDS.map(([value, label]) => el("option", { value, selected: n > 0 && value === "house:greedy" }, label)));
  const name = el("input", { name: `seat-${n}-name`, id: `seat-${n}-name`, value: n === 0 ? "You" : `Player ${n + 1}`, maxlength: 64, "aria-label": `seat ${n}: player's name` });
  const sync = () => { name.disabled = kind.value !== "person"; };
  kind.addEventListener("change", sync);
  sync();
  return el("li", { class: "seat-choice" }, el("span", { class: "label" }, `seat ${n}`), kind, " name ", name);
}

export async function newGamePage(main) {
  const { gameTypes: types } = await gameTypes();
  const game = el("select", { id: "new-game", name: "game", "aria-label": "game" }, types.map((t) => el("option", { value: t.name }, t.title)));
  const seats = el("input", { id: "new-seats", name: "seats", type: "number", "aria-label": "number of seats" });
  const options = el("fieldset", { id: "new-options" });
  const seatList = el("ol", { id: "new-seat-list", class: "seat-list" });
  const error = el("p", { class: "error", role: "alert", id: "new-error" });
  const result = el("div", { id: "invitations" });
  const typeOf = () => types.find((t) => t.name === game.value);
  const drawSeats = () => seatList.replaceChildren(...Array.from({ length: Number(seats.value) || 0 }, (_, n) => seatRow(n)));
  const drawType = () => {
    const t = typeOf();
    Object.assign(seats, { min: t.minSeats, max: t.maxSeats, value: Math.min(Math.max(3, t.minSeats), t.maxSeats) });
    options.replaceChildren(el("legend", {}, "Options"), (t.options || []).map((o) => {
      const id = `option-${o.name}`;
      const input = o.allowedValues?.length
        ? el("select", { id, name: o.name }, o.allowedValues.map((v) => el("option", { value: v, selected: v === o.defaultValue }, v)))
        : el("input", { id, name: o.name, value: o.defaultValue });
      return el("div", { class: "option" }, el("label", { for: id }, o.name.replace(/_/g, " "), " "), input, el("small", { class: "note" }, ` ${o.description}`));
    }));
    drawSeats();
  };
  game.addEventListener("change", drawType);
  seats.addEventListener("change", drawSeats);
  const create = el("button", { type: "submit", id: "create-game" }, "Create the table");
  const form = el("form", { id: "new-game-form", class: "new-game" },
    el("p", {}, el("label", { for: "new-game" }, "Game "), game, " ", el("label", { for: "new-seats" }, "seats "), seats),
    options, el("h2", {}, "Who plays each seat"), seatList,
    el("p", {}, el("label", { for: "api-key" }, "API key "), el("input", { id: "api-key", name: "api-key", type: "password", autocomplete: "off" }),
      el("small", { class: "note" }, " only if this server asks for one (it is sent with this request, never stored)")),
    create, error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    create.disabled = true;
    try {
      result.replaceChildren(await createTable(typeOf(), Number(seats.value), form));
      form.hidden = true;
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : String(failure);
    } finally {
      create.disabled = false;
    }
  });
  main.replaceChildren(el("h1", {}, "New table"), form, result);
  drawType();
}

async function createTable(type, count, form) {
  const value = (name) => form.elements[name]?.value;
  const options = Object.fromEntries((type.options || []).map((o) => [o.name, value(o.name)]));
  const kinds = Array.from({ length: count }, (_, n) => value(`seat-${n}-kind`));
  const houseBots = kinds.flatMap((k, seat) => (k.startsWith("house:") ? [{ seat, strategy: k.slice(6) }] : []));
  const apiKey = value("api-key") || undefined;
  const summary = await createGame({ game: type.name, seats: count, options, houseBots }, apiKey);
  const id = summary.gameId;
  const links = [];
  for (const [seat, kind] of kinds.entries()) {
    if (kind !== "person") continue;
    const claimed = await claimSeat(id, seat, value(`seat-${seat}-name`) || `Player ${seat + 1}`, apiKey);
    const href = `${location.origin}${location.pathname}#/play/${id}/${seat}?token=${encodeURIComponent(claimed.seatToken)}`;
    links.push(el("li", { "data-seat": seat }, el("b", {}, `seat ${seat} (${value(`seat-${seat}-name`)})`), ": ",
      el("a", { href, class: "invitation", "data-seat": seat }, "take this seat"), " ",
      el("input", { readonly: true, value: href, class: "mono link-copy", "aria-label": `invitation link of seat ${seat}`, onfocus: (e) => e.target.select() })));
  }
  const open = kinds.flatMap((k, seat) => (k === "open" ? [seat] : []));
  return el("section", { class: "invitations" },
    el("h2", {}, `Table ${type.title} created`),
    el("p", { class: "warning", role: "note" }, "⚠ Each link below is shown only this once and carries its seat's secret: whoever has a link plays that seat. ",
      "Copy each now and give it only to its player (open your own in this browser)."),
    el("ol", { class: "links" }, links),
    open.length ? el("div", { class: "open-seats" }, el("p", {}, `Seat${open.length > 1 ? "s" : ""} ${open.join(", ")} ${open.length > 1 ? "are" : "is"} open: run a bot for ${open.length > 1 ? "each" : "it"} (or let any program claim ${open.length > 1 ? "them" : "it"} with ClaimSeat; 50051 is the default gRPC port):`),
      open.map((seat) => el("pre", { class: "mono", "data-seat": seat }, `parlour bot --server ${location.hostname}:50051 --name bot-${seat} --strategy greedy --join ${id} --seat ${seat}`))) : null,
    el("p", {}, el("a", { href: `#/watch/${id}` }, "watch as a spectator")));
}

// --- at the table -----------------------------------------------------------------------------------

function seatToken(id, seat, params) {
  const given = params.get("token");
  if (given) {
    try { localStorage.setItem(storageKey(id, seat), given); } catch { /* private mode: kept in memory only */ }
    history.replaceState(null, "", `#/play/${id}/${seat}`); // the token leaves the address bar
    return given;
  }
  try { return localStorage.getItem(storageKey(id, seat)); } catch { return null; }
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

export async function playPage(main, id, seat, params, { titles, renderBoard, setLeave, connection, renderers }) {
  const token = seatToken(id, seat, params);
  if (!token) {
    main.replaceChildren(el("p", { class: "error", role: "alert" }, `This browser holds no token for seat ${seat} of this game: open the seat's invitation link.`));
    return;
  }
  let summary = await getGame(id);
  const names = () => distinctNames((summary.seats || []).map((s) => s.playerName || ""));
  const game = renderers[summary.game];
  const context = { names: names(), seat };
  let view = await getSeatView(id, seat, token);
  const status = el("p", { id: "turn", class: "turn", role: "status", "aria-live": "polite" });
  const error = el("p", { id: "command-error", class: "error", role: "alert" });
  const boardSlot = el("div", { class: "board-slot" });
  const actions = el("section", { id: "actions", class: "actions", "aria-label": "your choices" });
  const log = el("ol", { id: "event-log", class: "event-log", reversed: true });
  const stream = el("span", { id: "stream-state" }, "connecting…");
  const clock = summary.timeControl ? el("span", { id: "clock", class: "clock" }) : null;
  const me = playerName(context, seat);
  main.replaceChildren(
    el("h1", {}, `${titles[summary.game] || summary.game}: playing as ${me} (seat ${seat})`),
    el("p", {}, "Your seat's own view · stream: ", stream, clock ? [" · ", clock] : null, " · ", el("a", { href: `#/watch/${id}` }, "spectator's view")),
    status, error,
    el("div", { class: "split" }, el("div", {}, actions, boardSlot), el("aside", {}, el("h2", {}, "What happened"), log))
  );

  let busy = false;
  let turnSince = Date.now();
  const submit = async (index) => {
    if (busy || !view.legalCommands?.[index]) return;
    busy = true;
    main.classList.add("busy");
    error.textContent = "";
    try {
      await submitCommand(id, seat, token, view.legalCommands[index]);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? `Not accepted: ${failure.message}` : String(failure);
    }
    try {
      await refresh(); // the board on screen is out of date until the new view is drawn: no clicks meanwhile
    } finally {
      busy = false;
      main.classList.remove("busy");
    }
  };

  const draw = () => {
    game?.learn?.(context, view);
    const entries = (view.legalCommands || []).map((_, i) => labelled(view, context, game, i));
    const byTarget = new Map();
    for (const entry of entries) if (entry.target) byTarget.set(entry.target, [...(byTarget.get(entry.target) || []), entry]);
    const play = { byTarget, placed: new Set(), submit };
    const wasMyTurn = status.dataset.myTurn === "true";
    boardSlot.replaceChildren(renderBoard(view, { ...context, play }));
    const rest = entries.filter((e) => !play.placed.has(e.index));
    const ordering = rest.length > 1 && rest.every((e) => e.kind === "chooseAbility");
    actions.replaceChildren(...[
      rest.length ? el("h2", {}, ordering ? "Which resolves first? (the order of the list is yours to choose)" : entries.length > rest.length ? "Or choose:" : "Your choices") : null,
      rest.length ? el(ordering ? "ol" : "div", { class: ordering ? "ordering" : "choices" },
        rest.map((entry) => (ordering ? el("li", {}, commandButton(entry, play)) : commandButton(entry, play)))) : null,
      entries.length && !rest.length ? el("p", { class: "note" }, "Click or press Enter on a highlighted card, land or character on the board.") : null,
    ].filter(Boolean));
    status.textContent = statusText(view, context);
    const myTurn = Boolean(view.legalCommands?.length);
    status.dataset.myTurn = String(myTurn);
    status.classList.toggle("my-turn", myTurn);
    if (myTurn && !wasMyTurn) turnSince = Date.now();
    if (view.status === FINISHED) status.dataset.finished = "true";
  };

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
        if (view.status === FINISHED) {
          summary = await getGame(id);
          context.names = names();
        }
        draw();
      } while (again);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : String(failure);
    } finally {
      fetching = false;
    }
  };

  draw();
  const item = (event) => el("li", { "data-version": event.version }, describeEvent(event, context));
  let timer = null;
  if (clock) {
    const tc = summary.timeControl;
    const perMove = Number(tc.moveMs || 0) / 1000;
    timer = setInterval(() => {
      const mine = status.dataset.myTurn === "true";
      const used = Math.floor((Date.now() - turnSince) / 1000);
      clock.textContent = mine ? `your clock: about ${Math.max(0, Math.round(perMove - used))} s of ${perMove} s for this move (+ bank ${Number(tc.bankMs || 0) / 1000} s)` : `clock: ${perMove} s a move`;
    }, 500);
  }
  const stop = watchSeat(id, seat, token, 1, {
    onEvent: (event) => {
      if (event.oldmen?.gameStarted || event.verraeter?.landsLaid) game?.learn?.(context, view, [event]);
      log.prepend(item(event));
      if (Number(event.version) > Number(view.version)) refresh();
    },
    onEnd: refresh,
    onState: (text) => {
      stream.textContent = text;
      connection.textContent = text === "live" ? "● live" : text;
    },
  });
  setLeave(() => { stop(); clearInterval(timer); connection.textContent = ""; });
}
