// Old Men of the Forest: the trick, each seat's hand, pool and saved orangutans, and the orangutan row;
// the seat's legal commands on its cards, the trick and the orangutans; the log as sentences.
import { SENTENCES, actOn, el, enumName, header, listed, playerName, remaining, seatBadge, textOf, tipOf, who, whoever } from "./common.js";

const colour = (c) => enumName(c, "OLDMEN_COLOUR_");
const needsText = (o) => listed((o.needs || []).map(colour));

// --- what each thing is called ------------------------------------------------------------------------
// The one place the words for a card and an orangutan come from: `label`, what the board shows; `text`, how
// the commands and the log name it; `tip`, its tooltip (none where it would only repeat the label). When
// the API gives the things' names and effects, only this changes.
export const WORDS = {
  card: (c) => {
    const text = c ? `${colour(c.colour)} ${c.value}` : "a card";
    const entry = c ? textOf("colour", colour(c.colour)) : undefined;
    return { label: c ? String(c.value) : "?", text, tip: entry ? `${text}. ${tipOf(entry)}` : text };
  },
  orangutan: (o) => {
    const entry = o.id ? textOf("orangutan", o.id) : undefined;
    return { label: `${o.vp} VP`, text: `the ${o.vp ?? "?"} VP orangutan`, tip: entry ? tipOf(entry) : `${o.vp} VP orangutan, needs ${needsText(o)}` };
  },
  saved: (o) => {
    const tucked = (o.tucked || []).length;
    return { label: `${o.vp} VP (−${tucked})`, text: `the ${o.vp} VP orangutan`, tip: `${o.vp} VP, ${tucked} card${tucked === 1 ? "" : "s"} under it` };
  },
};

const cardText = (c) => WORDS.card(c).text;
const cards = (list) => listed((list || []).map(cardText));
const orangutanText = (o) => `${WORDS.orangutan(o).text} (needs ${needsText(o)})`;

export function card(c, extra = "") {
  // The colour's name is printed as well as shown, so colour is never the only carrier of information.
  const words = WORDS.card(c);
  return el("span", { class: `card oldmen-${colour(c.colour)} ${extra}`, title: words.tip },
    el("span", { class: "card-value" }, words.label), " ", el("span", { class: "card-colour" }, colour(c.colour).slice(0, 3)));
}

const back = () => el("span", { class: "card back", title: "hidden card", role: "img", "aria-label": "hidden card" }, "");

function orangutan(o, context) {
  const words = WORDS.orangutan(o);
  const node = el(
    "div",
    { class: "orangutan", title: words.tip },
    el("div", { class: "orangutan-vp" }, words.label),
    el("div", { class: "needs" }, (o.needs || []).map((n) => el("span", { class: `dot oldmen-${colour(n)}`, title: colour(n) }, colour(n)[0].toUpperCase())))
  );
  return actOn(node, `orangutan:${o.id}`, context);
}

function seatPanel(s, board, context) {
  const mine = context.seat === s.seat;
  const hand = s.hand?.length
    ? s.hand.map((c) => (mine ? actOn(card(c), `card:${c.colour}:${c.value}`, context) : card(c)))
    : Array.from({ length: s.handCount || 0 }, back);
  const saved = (s.saved || []).map((o) =>
    el("span", { class: "saved", title: WORDS.saved(o).tip }, WORDS.saved(o).label)
  );
  const roles = [];
  if (board.leader === s.seat) roles.push("leader");
  if (board.firstWinner === s.seat) roles.push("1st winner");
  if (board.secondWinner === s.seat) roles.push("2nd winner");
  return el(
    "section",
    { class: `seat-panel seat-${s.seat}${mine ? " mine" : ""}`, "data-seat": s.seat },
    el("h3", {}, seatBadge(context, s.seat), mine ? el("small", {}, " (you)") : null, roles.length ? el("small", {}, ` ${roles.join(", ")}`) : null),
    el("div", { class: "score" }, `score ${s.score}`, board.matchDeals > 1 ? ` · match ${s.matchScore}` : ""),
    el("div", { class: "row" }, el("span", { class: "label" }, "hand"), el("span", { class: "hand" }, hand)),
    el("div", { class: "row" }, el("span", { class: "label" }, "pool"), el("span", { class: "pool" }, (s.pool || []).map((c) => card(c)))),
    el("div", { class: "row" }, el("span", { class: "label" }, "saved"), el("span", {}, saved.length ? saved : "none"))
  );
}

export function render(view, context) {
  const b = view.oldmen;
  const trick = (b.trick || []).map((t) =>
    actOn(el("div", { class: "trick-card" }, card(t.card, t.taken ? "taken" : ""), el("div", { class: "who" }, seatBadge(context, t.seat)), t.taken ? el("div", { class: "who" }, "taken") : null),
      `trick:${t.seat}`, context)
  );
  const shown = ["phase", "deal", "matchDeals", "round", "leader", "seats", "trick", "firstWinner", "secondWinner", "row", "deckCount", "discard", "undealtCount", "orangutans"];
  return el(
    "div",
    { class: "board oldmen" },
    header(view, context, [
      ["deal", `${b.deal}/${b.matchDeals}`],
      ["round", `${b.round}/10`],
      ["phase", enumName(b.phase, "OLDMEN_PHASE_")],
      ["orangutan deck", b.deckCount],
    ]),
    el("section", { class: "forest" },
      el("h3", {}, "Orangutan row"),
      el("div", { class: "orangutan-row" }, (b.row || []).map((o) => orangutan(o, context)))),
    el("section", { class: "trick" }, el("h3", {}, "Trick"), el("div", { class: "trick-cards" }, trick.length ? trick : el("em", {}, "no card played yet"))),
    el("div", { class: "seats" }, (b.seats || []).map((s) => seatPanel(s, b, context))),
    el("section", { class: "discard" }, el("h3", {}, `Discard pile (${(b.discard || []).length})`), el("div", {}, (b.discard || []).map((c) => card(c, "small")))),
    remaining(b, shown)
  );
}

// --- commands ---------------------------------------------------------------------------------------

export function commandTarget(kind, f) {
  if (kind === "playCard") return `card:${f.card?.colour}:${f.card?.value}`;
  if (kind === "takeCard") return `trick:${f.fromSeat ?? 0}`;
  if (kind === "saveOrangutan") return `orangutan:${f.orangutanId}`;
  return null;
}

export function commandLabel(kind, f, view, context) {
  const row = [...(view.oldmen?.row || []), ...(view.oldmen?.orangutans || [])];
  switch (kind) {
    case "playCard": return `play the ${cardText(f.card)}`;
    case "takeCard": return `take ${playerName(context, f.fromSeat ?? 0)}'s card`;
    case "saveOrangutan": {
      const o = row.find((x) => x.id === f.orangutanId);
      return o ? `save ${orangutanText(o)}` : "save this orangutan";
    }
    case "declineSave": return "save no orangutan now";
    default: return null;
  }
}

// --- the log ----------------------------------------------------------------------------------------

const vpOf = (context, id) => context.orangutans?.[id]?.vp;

SENTENCES.oldmen = {
  gameStarted: (f) => `A game of ${f.seats} players begins${f.matchDeals > 1 ? ` (a match of ${f.matchDeals} deals)` : ""}.`,
  startPlayerDrawn: (f, c) => `Deal ${f.deal}: cards are drawn for the start; ${playerName(c, f.startSeat ?? 0)} leads.`,
  handDealt: (f, c) => `${who(c, f.seat)} ${f.seat === c.seat ? "are" : "is"} dealt ${f.cards?.length ? cards(f.cards) : `${f.count} cards`}.`,
  orangutanDeckShuffled: (f) => `The ${f.count} orangutans are shuffled.`,
  orangutansRevealed: (f, c) => {
    const vps = (f.orangutanIds || []).map((id) => vpOf(c, id)).filter((v) => v !== undefined);
    const n = (f.orangutanIds || []).length;
    return `${n === 1 ? "An orangutan joins" : `${n} orangutans join`} the row${vps.length ? ` (${vps.map((vp) => WORDS.orangutan({ vp }).label).join(", ")})` : ""}.`;
  },
  cardPlayed: (f, c) => `${who(c, f.seat ?? 0)} play${f.seat === c.seat ? "" : "s"} the ${cardText(f.card)}.`,
  trickRanked: (f, c) => `${playerName(c, f.firstSeat ?? 0)} wins the trick, ${playerName(c, f.secondSeat ?? 0)} comes second.`,
  cardTaken: (f, c) => `${who(c, f.seat ?? 0)} take${f.seat === c.seat ? "" : "s"} the ${cardText(f.card)} from ${playerName(c, f.fromSeat ?? 0)}.`,
  cardsDiscarded: (f) => `${cards(f.cards) || "No card"} ${(f.cards || []).length === 1 ? "goes" : "go"} to the discard pile.`,
  orangutanSaved: (f, c) => {
    const vp = vpOf(c, f.orangutanId);
    return `${who(c, f.seat ?? 0)} save${f.seat === c.seat ? "" : "s"} ${vp !== undefined ? WORDS.orangutan({ vp }).text : "an orangutan"} with ${cards(f.spent)}${f.tucked?.length ? `, tucking ${cards(f.tucked)} under it` : ""}.`;
  },
  saveDeclined: (f, c) => `${who(c, f.seat ?? 0)} save${f.seat === c.seat ? "" : "s"} no orangutan.`,
  dealFinished: (f, c) => `Deal ${f.deal} is over: ${(f.scores || []).map((s) => `${playerName(c, s.seat ?? 0)} ${s.score}`).join(", ")}.`,
  matchFinished: (f, c) => `The game is over: ${listed((f.winners || []).map((s) => playerName(c, s)))} win${(f.winners || []).length === 1 ? "s" : ""} (${(f.totals || []).map((s) => `${playerName(c, s.seat ?? 0)} ${s.score}`).join(", ")}).`,
};

// What the sentences need to know beyond an event: each orangutan's VP, from the board and the start.
export function learn(context, view, events) {
  const known = (context.orangutans ||= {});
  for (const o of [...(view?.oldmen?.row || []), ...(view?.oldmen?.orangutans || [])]) known[o.id] = o;
  for (const s of view?.oldmen?.seats || []) for (const o of s.saved || []) known[o.orangutanId] ||= { vp: o.vp };
  for (const e of events || []) for (const o of e.oldmen?.gameStarted?.orangutans || []) known[o.id] = o;
}

// --- what to do now, and what a move touched ------------------------------------------------------

// One line for the viewer: what to do now when it is the viewer's move, else what the others are doing.
export function whatNow(view, context, mine) {
  const phase = enumName(view.oldmen?.phase, "OLDMEN_PHASE_");
  const them = whoever(context, view.pendingSeats);
  switch (phase) {
    case "play": return mine ? "Play a card from your hand into the trick." : `${them} play${(view.pendingSeats || []).length === 1 ? "s" : ""} a card into the trick.`;
    case "take": return mine ? "You won a place in this trick: take one card of the trick that is not yours." : `${them} take${(view.pendingSeats || []).length === 1 ? "s" : ""} a card from the trick.`;
    case "save": return mine ? "Save an orangutan with cards of its colours from your pool, or save none now." : `${them} may save an orangutan.`;
    default: return null;
  }
}

// The things on the board a move's event touched (keys of `actOn`): the trick card a seat played.
export function touched(event) {
  const f = event.oldmen?.cardPlayed;
  return f ? [`trick:${f.seat ?? 0}`] : [];
}
