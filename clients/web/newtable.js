// Making a new table (#/new) and its invitations (#/invitations/<game id>). The invitation links carry
// their seats' tokens: they are kept in this tab's session storage, listed with copy buttons until the tab is
// closed (or the person forgets them), so Back from "take this seat" shows them again.
import { claimSeat, createGame, gameTypes, sentence } from "./api.js";
import { el } from "./games/common.js";
import * as store from "./store.js";

const SEAT_KINDS = [
  ["person", "a person (gets an invitation link)"],
  ["house:greedy", "greedy bot, played by the server"],
  ["house:random", "random bot, played by the server"],
  ["open", "a bot you run (`parlour bot --join`) or any program that claims the seat"],
];

// The name a seat gets when its player's name is left empty: "Player 1" for seat 0.
const defaultName = (seat) => `Player ${seat + 1}`;

function seatRow(n) {
  const kind = el("select", { name: `seat-${n}-kind`, id: `seat-${n}-kind`, "aria-label": `seat ${n}: who plays` },
    SEAT_KINDS.map(([value, label]) => el("option", { value, selected: n > 0 && value === "house:greedy" }, label)));
  const name = el("input", { name: `seat-${n}-name`, id: `seat-${n}-name`, value: "", placeholder: defaultName(n), maxlength: 64, autocomplete: "off" });
  const sync = () => { name.disabled = kind.value !== "person"; };
  kind.addEventListener("change", sync);
  sync();
  return el("li", { class: "seat-choice", "data-seat": n }, el("span", { class: "label" }, `seat ${n}`), kind, " ",
    el("label", { for: `seat-${n}-name` }, `player's name`), " ", name);
}

export async function newGamePage(main) {
  const { gameTypes: types } = await gameTypes();
  const game = el("select", { id: "new-game", name: "game" }, types.map((t) => el("option", { value: t.name }, t.title)));
  const seats = el("input", { id: "new-seats", name: "seats", type: "number" });
  const options = el("fieldset", { id: "new-options" });
  const seatList = el("ol", { id: "new-seat-list", class: "seat-list" });
  const error = el("p", { class: "error", role: "alert", id: "new-error" });
  const typeOf = () => types.find((t) => t.name === game.value);
  // The seats' rows follow the count as it is typed; every row keeps what was chosen and typed in it, also
  // while it is hidden by a smaller count (a count being typed, such as an empty field, changes nothing).
  const rows = [];
  const drawSeats = () => {
    const t = typeOf();
    const count = Number(seats.value);
    if (seats.value === "" || !Number.isInteger(count) || count < t.minSeats || count > t.maxSeats) return;
    while (rows.length < count) rows.push(seatRow(rows.length));
    seatList.replaceChildren(...rows.slice(0, count));
  };
  const drawType = () => {
    const t = typeOf();
    Object.assign(seats, { min: t.minSeats, max: t.maxSeats });
    seats.value = Math.min(Math.max(Number(seats.value) || 3, t.minSeats), t.maxSeats);
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
  seats.addEventListener("input", drawSeats);
  seats.addEventListener("change", () => { drawSeats(); seats.value = seatList.children.length; });
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
      const id = await createTable(typeOf(), seatList.children.length, form);
      location.hash = `#/invitations/${id}`;
    } catch (failure) {
      error.textContent = sentence(failure);
    } finally {
      create.disabled = false;
    }
  });
  main.replaceChildren(el("h1", {}, "New table"), form);
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
    const name = value(`seat-${seat}-name`)?.trim() || defaultName(seat);
    const claimed = await claimSeat(id, seat, name, apiKey);
    links.push({ seat, name, href: `${location.origin}${location.pathname}#/play/${id}/${seat}?token=${encodeURIComponent(claimed.seatToken)}` });
  }
  const open = kinds.flatMap((k, seat) => (k === "open" ? [seat] : []));
  store.keepInvitations({ id, title: type.title, links, open, host: location.hostname });
  return id;
}

// Copies `text`; says so in `said` (the clipboard API needs a secure page: else the link is selected).
async function copy(text, input, said) {
  try {
    await navigator.clipboard.writeText(text);
    said.textContent = "copied";
  } catch {
    input.focus();
    input.select();
    said.textContent = document.execCommand?.("copy") ? "copied" : "selected: copy it with Ctrl+C";
  }
  setTimeout(() => { said.textContent = ""; }, 4000);
}

function invitation(link) {
  const input = el("input", { readonly: true, value: link.href, class: "mono link-copy", id: `link-${link.seat}`, onfocus: (e) => e.target.select() });
  const said = el("span", { class: "copied", role: "status" });
  const button = el("button", { type: "button", class: "copy", "data-seat": link.seat, "aria-label": `copy link of seat ${link.seat} (${link.name})` }, "copy link");
  button.addEventListener("click", () => copy(link.href, input, said));
  return el("li", { "data-seat": link.seat },
    el("b", {}, `seat ${link.seat} (${link.name})`), ": ",
    el("a", { href: link.href, class: "invitation", "data-seat": link.seat }, "take this seat"), " ", button, " ", said,
    el("label", { class: "visually-hidden", for: `link-${link.seat}` }, `invitation link of seat ${link.seat}`), input);
}

export function invitationsPage(main, id) {
  const table = store.invitations(id);
  if (!table) {
    main.replaceChildren(el("h1", {}, "Invitations"),
      el("p", {}, "This tab holds no invitation links for this table: they stay only in the tab that made it, until that tab is closed or they are forgotten."),
      el("p", {}, el("a", { href: `#/watch/${id}` }, "watch as a spectator"), " · ", el("a", { href: "#/" }, "the lobby")));
    return;
  }
  const { links, open } = table;
  const forget = el("button", { type: "button", id: "forget-links" }, "forget these links");
  forget.addEventListener("click", () => { store.forgetInvitations(id); location.hash = "#/"; });
  main.replaceChildren(...[
    el("h1", {}, `Table ${table.title} created`),
    el("p", { class: "warning", role: "note" }, "⚠ Each link below carries its seat's secret: whoever has a link plays that seat. ",
      "Give each only to its player; open your own here (“take this seat”): Back brings you to this list again. ",
      "The links stay listed in this tab until you close it or forget them."),
    el("ol", { class: "links" }, links.map(invitation)),
    open.length ? el("div", { class: "open-seats" }, el("p", {}, `Seat${open.length > 1 ? "s" : ""} ${open.join(", ")} ${open.length > 1 ? "are" : "is"} open: run a bot for ${open.length > 1 ? "each" : "it"} (or let any program claim ${open.length > 1 ? "them" : "it"} with ClaimSeat; 50051 is the default gRPC port):`),
      open.map((seat) => el("pre", { class: "mono", "data-seat": seat }, `parlour bot --server ${table.host}:50051 --name bot-${seat} --strategy greedy --join ${id} --seat ${seat}`))) : null,
    el("p", {}, el("a", { href: `#/watch/${id}` }, "watch as a spectator"), " · ", forget),
  ].filter(Boolean));
}
