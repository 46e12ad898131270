// Verräter: the ring of lands (house, base strength, buildings), the battlefield, and each seat's house,
// VP, hand, buildings and action card; the seat's legal commands on the lands and action cards; the log
// as sentences.
import { SENTENCES, actOn, el, enumName, header, isUnset, listed, playerName, remaining, seatBadge, textOf, tipOf, who, whoever } from "./common.js";

const house = (h) => enumName(h, "VERRAETER_HOUSE_");
const House = (h) => { const n = house(h); return n ? `the ${n[0].toUpperCase()}${n.slice(1)} house` : "no house"; };
const ACTIONS = { traitor: "Traitor", diplomat2: "Diplomat (2 cards)", diplomat5: "Diplomat (5 VP)", strategist: "Strategist", builder: "Builder", farmer: "Farmer" };
const side = (s) => enumName(s, "VERRAETER_BUILDING_SIDE_");
const REASONS = { land: "for a land", traitor: "as traitor", strategist: "as strategist", "trading post": "for trading posts" };
const reason = (r) => REASONS[enumName(r, "VERRAETER_SCORE_REASON_")] || "";
const SOURCES = { farmer: "as farmer", estate: "from an estate", diplomat2: "as diplomat" };
const values = (list) => listed((list || []).map(String));
// Words for each land type id of the data (VerraeterLandType.id): an id is never shown as it is.
export const LAND_TYPES = { wild: "wild", meadow: "meadow", river: "river", forest: "forest", village: "village", city: "city", land5p: "5-player land" };
const s_ = (c, seat) => (seat === c.seat ? "" : "s");

// --- what each thing is called ------------------------------------------------------------------------
// The one place the words for a land, an action card and a supply card come from: `label`, what the board
// shows; `text`, how the commands and the log name it; `tip`, its tooltip. When the API gives the cards'
// names and effects and the lands' names, only this changes.
export const WORDS = {
  land: (l) => {
    const entry = textOf("land", l?.cardId) || textOf("land_type", l?.type);
    const type = entry?.name?.toLowerCase() || LAND_TYPES[l?.type] || "land";
    const tip = entry ? tipOf(entry, ` Now held by ${house(l.house)}.`) : `${type}, base ${l.base}, ${house(l.house)}`;
    return { label: `${l.position}. ${type}`, text: `the ${type} (${l.position})`, tip, type };
  },
  action: (a) => {
    const id = enumName(a, "VERRAETER_ACTION_").replace(/ /g, "");
    const entry = textOf("action_card", id);
    const name = entry?.name || ACTIONS[id] || id;
    return { label: name, text: name, tip: entry ? tipOf(entry) : null };
  },
  supply: (v) => {
    const entry = textOf("supply_card", String(v));
    return { label: String(v), text: String(v), tip: entry ? tipOf(entry) : null };
  },
};

const action = (a) => WORDS.action(a).text;

function landName(context, position) {
  const land = context.lands?.find((l) => l.position === position);
  return land ? WORDS.land(land).text : `land ${position}`;
}

function land(l, count, board, context) {
  const angle = (2 * Math.PI * l.position) / count - Math.PI / 2;
  const battle = board.battlefield !== undefined && (l.position === board.battlefield || l.position === (board.battlefield + 1) % count);
  const building =
    l.buildingOwner !== undefined
      ? el("div", { class: `building seat-${l.buildingOwner}`, title: `${side(l.buildingSide)} of ${playerName(context, l.buildingOwner)}` },
          side(l.buildingSide) === "trading post" ? "⚑ trading post" : "⌂ estate", " ", seatBadge(context, l.buildingOwner))
      : null;
  const words = WORDS.land(l);
  const node = el(
    "div",
    {
      class: `land house-${house(l.house)}${battle ? " battlefield" : ""}`,
      "data-position": l.position,
      style: { left: `${50 + 40 * Math.cos(angle)}%`, top: `${50 + 40 * Math.sin(angle)}%` },
      title: `${words.tip}${battle ? ", battlefield" : ""}`,
    },
    el("div", { class: "land-type" }, words.label),
    el("div", { class: "land-house" }, house(l.house), ` · ${l.base}`),
    battle ? el("div", { class: "battle-mark" }, "⚔ battlefield") : null,
    building
  );
  return actOn(node, `land:${l.position}`, context);
}

function seatPanel(s, board, context) {
  const mine = context.seat === s.seat;
  const hand = s.hand?.length ? s.hand.map((v) => el("span", { class: "supply-card", title: WORDS.supply(v).tip }, WORDS.supply(v).label)) : `${s.handCount} hidden`;
  const roles = [];
  if (board.startSeat === s.seat) roles.push("start player");
  if (board.strategistSeat === s.seat) roles.push("strategist");
  if (board.packetSeat === s.seat) roles.push(`holds packet (${board.packetCount})`);
  return el(
    "section",
    { class: `seat-panel seat-${s.seat} house-${house(s.house)}${mine ? " mine" : ""}`, "data-seat": s.seat },
    el("h3", {}, seatBadge(context, s.seat), mine ? el("small", {}, " (you)") : null, roles.length ? el("small", {}, ` ${roles.join(", ")}`) : null),
    el("div", { class: "score" }, `${s.vp} VP · house ${house(s.house)}`),
    el("div", { class: "row" }, el("span", { class: "label" }, "hand"), hand),
    el("div", { class: "row" }, el("span", { class: "label" }, "played"), s.played?.length ? s.played.join(" + ") : s.hasPlayed ? "nothing" : "not yet"),
    el("div", { class: "row" }, el("span", { class: "label" }, "action"), !isUnset(s.action) && s.action ? action(s.action) : s.hasAction ? "hidden" : "none"),
    el("div", { class: "row" }, el("span", { class: "label" }, "buildings"), `${s.reserve} in reserve`),
    !isUnset(s.mercenaryHouse) && s.mercenaryHouse ? el("div", { class: "row" }, `mercenary for ${house(s.mercenaryHouse)}`) : null
  );
}

export function render(view, context) {
  const b = view.verraeter;
  const lands = b.lands || [];
  const shown = ["phase", "round", "rounds", "startSeat", "strategistSeat", "battlefield", "lands", "seats", "deckCount", "discard", "packetSeat", "packetCount", "packet", "conflict"];
  const packet = (b.packet || []).map((a) => actOn(el("span", { class: "action-card", title: WORDS.action(a).tip }, WORDS.action(a).label), `action:${a}`, context));
  const centre = el(
    "div",
    { class: "ring-centre" },
    el("div", { class: "big" }, `Round ${b.round}/${b.rounds}`),
    el("div", {}, enumName(b.phase, "VERRAETER_PHASE_")),
    b.battlefield !== undefined ? el("div", {}, `battlefield ${b.battlefield}–${(b.battlefield + 1) % lands.length}`) : null,
    el("div", {}, `supply deck ${b.deckCount} · discard ${(b.discard || []).length}`),
    packet.length ? el("div", { class: "packet" }, "packet: ", packet) : null,
    b.conflict
      ? el("div", { class: "conflict" }, `eagle ${b.conflict.eagleStrength} vs rose ${b.conflict.roseStrength}: `,
          isUnset(b.conflict.winner) ? "a tie" : `${house(b.conflict.winner)} wins`)
      : null
  );
  return el(
    "div",
    { class: "board verraeter" },
    header(view, context, [
      ["round", `${b.round}/${b.rounds}`],
      ["phase", enumName(b.phase, "VERRAETER_PHASE_")],
      ["strategist", seatBadge(context, b.strategistSeat)],
    ]),
    el("div", { class: "ring" }, centre, lands.map((l) => land(l, lands.length, b, context))),
    el("div", { class: "seats" }, (b.seats || []).map((s) => seatPanel(s, b, context))),
    remaining(b, shown)
  );
}

// --- commands ---------------------------------------------------------------------------------------

export function commandTarget(kind, f) {
  if (kind === "chooseBattlefield" || kind === "placeBuilding" || kind === "flipBuilding") return `land:${f.position ?? 0}`;
  if (kind === "takeActionCard") return `action:${f.card}`;
  return null;
}

export function commandLabel(kind, f, view, context) {
  const count = view.verraeter?.lands?.length || 1;
  const at = (p) => landName(context, p ?? 0);
  switch (kind) {
    case "chooseBattlefield": return `fight between ${at(f.position)} and ${at(((f.position ?? 0) + 1) % count)}`;
    case "takeActionCard": return `take the ${action(f.card)}`;
    case "playSupply": return f.values?.length ? `play ${values(f.values)}` : "play no supply card";
    case "declareMercenary": return isUnset(f.house) || !f.house ? "stay out (no mercenary)" : `fight for ${House(f.house)} as mercenary`;
    case "placeBuilding": return `build ${side(f.side) === "trading post" ? "a trading post" : "an estate"} on ${at(f.position)}`;
    case "flipBuilding": return `turn your building on ${at(f.position)} over`;
    case "passBuild": return "build nothing (pass)";
    case "discardCards": return f.values?.length ? `discard ${values(f.values)}` : "discard nothing";
    default: return null;
  }
}

// --- the log ----------------------------------------------------------------------------------------

const scores = (list, c) => (list || []).map((s) => `${s.points > 0 ? "+" : ""}${s.points} to ${playerName(c, s.seat ?? 0)} ${reason(s.reason)}`.trim()).join(", ");

SENTENCES.verraeter = {
  gameStarted: (f) => `A game of ${f.seats} players over ${f.rounds} rounds begins.`,
  seatsAssigned: (f, c) => `Houses: ${(f.houses || []).map((h, i) => `${playerName(c, i)} ${house(h)}`).join(", ")}; ${playerName(c, f.startSeat ?? 0)} starts.`,
  landsLaid: (f) => `${(f.lands || []).length} lands are laid in a ring.`,
  supplyShuffled: (f) => `The ${f.count} supply cards are shuffled.`,
  handDealt: (f, c) => `${who(c, f.seat ?? 0)} ${f.seat === c.seat ? "get" : "gets"} ${f.values?.length ? values(f.values) : `${f.count} supply cards`}.`,
  buildingPlaced: (f, c) => `${who(c, f.seat ?? 0)} build${s_(c, f.seat)} ${side(f.side) === "trading post" ? "a trading post" : "an estate"} on ${landName(c, f.position ?? 0)}.`,
  battlefieldChosen: (f, c) => `Round ${f.round}: ${who(c, f.seat ?? 0)} choose${s_(c, f.seat)} the battle at ${landName(c, f.position ?? 0)}.`,
  actionCardsShuffled: (f) => `The ${f.count} action cards are shuffled.`,
  packetPassed: (f, c) => `The packet of ${f.count} action cards goes to ${who(c, f.seat ?? 0)}${f.cards?.length ? ` (${listed(f.cards.map(action))})` : ""}.`,
  actionCardTaken: (f, c) => `${who(c, f.seat ?? 0)} take${s_(c, f.seat)} ${f.card && !isUnset(f.card) ? `the ${action(f.card)}` : "an action card"}${f.forced ? " (the last one)" : ""}.`,
  supplyPlayed: (f, c) => `${who(c, f.seat ?? 0)} play${s_(c, f.seat)} ${f.values?.length ? values(f.values) : "supply cards face down"}.`,
  actionsRevealed: (f, c) => `Actions revealed: ${(f.actions || []).map((a) => `${playerName(c, a.seat ?? 0)} ${action(a.card)}`).join(", ")}.`,
  allegianceChanged: (f, c) => `${who(c, f.seat ?? 0)} change${s_(c, f.seat)} sides to ${House(f.house)}${f.because ? ` (${action(f.because)})` : ""}.`,
  mercenaryDeclared: (f, c) => `${who(c, f.seat ?? 0)} fight${s_(c, f.seat)} for ${House(f.house)} as mercenary.`,
  conflictResolved: (f) => `The battle: eagle ${f.eagleStrength} against rose ${f.roseStrength}; ${isUnset(f.winner) || !f.winner ? "a tie" : `${House(f.winner)} wins`}.`,
  pointsScored: (f, c) => `Points: ${scores(f.scores, c) || "none"}.`,
  landFlipped: (f, c) => `${landName(c, f.position ?? 0)} goes over to ${House(f.house)}.`.replace(/^t/, "T"),
  buildingFlipped: (f, c) => `${who(c, f.seat ?? 0)} turn${s_(c, f.seat)} the building on ${landName(c, f.position ?? 0)} into ${side(f.side) === "trading post" ? "a trading post" : "an estate"}.`,
  buildPassed: (f, c) => `${who(c, f.seat ?? 0)} build${s_(c, f.seat)} nothing.`,
  strategistChanged: (f, c) => `${who(c, f.seat ?? 0)} ${f.seat === c.seat ? "are" : "is"} the strategist now.`,
  playedCardsDiscarded: (f) => `The played supply cards (${values(f.values) || "none"}) are discarded.`,
  deckReshuffled: (f) => `The discard pile is shuffled into a new supply deck (${f.count} cards).`,
  cardsDrawn: (f, c) => `${who(c, f.seat ?? 0)} draw${s_(c, f.seat)} ${f.values?.length ? values(f.values) : `${f.count} card${f.count === 1 ? "" : "s"}`} ${SOURCES[enumName(f.source, "VERRAETER_DRAW_SOURCE_")] || ""}${f.lost ? ` (${f.lost} lost: the deck ran out)` : ""}.`.replace(" .", "."),
  handLimitExceeded: (f, c) => `${listed((f.seats || []).map((s) => who(c, s)))} must discard down to the hand limit.`,
  cardsDiscarded: (f, c) => `${who(c, f.seat ?? 0)} discard${s_(c, f.seat)} ${f.values?.length ? values(f.values) : "cards"}.`,
  roundEnded: (f, c) => `Round ${f.round} ends; ${playerName(c, f.startSeat ?? 0)} starts the next.`,
  gameFinished: (f, c) => `The game is ${f.early ? "over early" : "over"}: ${listed((f.winners || []).map((s) => playerName(c, s)))} win${(f.winners || []).length === 1 ? "s" : ""} (${(f.totals || []).map((t, i) => `${playerName(c, i)} ${t}`).join(", ")})${f.bonuses?.length ? `; bonuses ${scores(f.bonuses, c)}` : ""}.`,
};

export function learn(context, view) {
  if (view?.verraeter?.lands?.length) context.lands = view.verraeter.lands;
}

// --- what to do now, and what a move touched ------------------------------------------------------

// For each phase: what the viewer does when it is the viewer's move, and what the others do meanwhile.
const NOW = {
  "setup estates": ["Place one of your estates: click a land on the ring.", "place an estate"],
  battlefield: ["You are the strategist: click a land to fight over it and its clockwise neighbour.", "choose the battlefield as strategist"],
  draft: ["Take one action card from the packet in the middle of the ring.", "take an action card from the packet"],
  supply: ["Play supply cards for your house's strength in the battle (or none): choose below.", "play supply cards"],
  mercenary: ["Fight for a house as mercenary, or stay out.", "decide whether to fight as mercenary"],
  build: ["You hold the Builder: build on a land, turn one of your buildings over, or build nothing.", "build with the Builder"],
  discard: ["You hold more supply cards than the hand limit: choose which to discard.", "discard down to the hand limit"],
};

export function whatNow(view, context, mine) {
  const now = NOW[enumName(view.verraeter?.phase, "VERRAETER_PHASE_")];
  if (!now) return null;
  if (mine) return now[0];
  const seats = view.pendingSeats || [];
  return `${whoever(context, seats)} ${seats.length === 1 ? "must" : "must each"} ${now[1]}.`;
}

// The things on the board a move's event touched (keys of `actOn`): the lands built on, chosen or turned.
export function touched(event) {
  const e = event.verraeter || {};
  const f = e.buildingPlaced || e.battlefieldChosen || e.buildingFlipped || e.landFlipped;
  return f ? [`land:${f.position ?? 0}`] : [];
}
