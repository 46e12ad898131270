// Verräter: the ring of lands (house, base strength, buildings), the battlefield, and each seat's house,
// VP, hand, buildings and action card.
import { el, enumName, header, isUnset, remaining, seatBadge } from "./common.js";

const house = (h) => enumName(h, "VERRAETER_HOUSE_");
const action = (a) => enumName(a, "VERRAETER_ACTION_");
const side = (s) => enumName(s, "VERRAETER_BUILDING_SIDE_");

function land(l, count, board, context) {
  const angle = (2 * Math.PI * l.position) / count - Math.PI / 2;
  const battle = board.battlefield !== undefined && (l.position === board.battlefield || l.position === (board.battlefield + 1) % count);
  const building =
    l.buildingOwner !== undefined
      ? el("div", { class: `building seat-${l.buildingOwner}`, title: `${side(l.buildingSide)} of seat ${l.buildingOwner}` },
          side(l.buildingSide) === "trading post" ? "⚑ trading post" : "⌂ estate", " ", seatBadge(context, l.buildingOwner))
      : null;
  return el(
    "div",
    {
      class: `land house-${house(l.house)}${battle ? " battlefield" : ""}`,
      "data-position": l.position,
      style: { left: `${50 + 40 * Math.cos(angle)}%`, top: `${50 + 40 * Math.sin(angle)}%` },
      title: `${l.cardId}: ${l.type}, base ${l.base}, ${house(l.house)}`,
    },
    el("div", { class: "land-type" }, `${l.position}. ${l.type}`),
    el("div", { class: "land-house" }, house(l.house), ` · ${l.base}`),
    building
  );
}

function seatPanel(s, board, context) {
  const hand = s.hand?.length ? s.hand.join(" ") : `${s.handCount} hidden`;
  const roles = [];
  if (board.startSeat === s.seat) roles.push("start player");
  if (board.strategistSeat === s.seat) roles.push("strategist");
  if (board.packetSeat === s.seat) roles.push(`holds packet (${board.packetCount})`);
  return el(
    "section",
    { class: `seat-panel seat-${s.seat} house-${house(s.house)}`, "data-seat": s.seat },
    el("h3", {}, seatBadge(context, s.seat), roles.length ? el("small", {}, ` ${roles.join(", ")}`) : null),
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
  const centre = el(
    "div",
    { class: "ring-centre" },
    el("div", { class: "big" }, `Round ${b.round}/${b.rounds}`),
    el("div", {}, enumName(b.phase, "VERRAETER_PHASE_")),
    b.battlefield !== undefined ? el("div", {}, `battlefield ${b.battlefield}–${(b.battlefield + 1) % lands.length}`) : null,
    el("div", {}, `supply deck ${b.deckCount} · discard ${(b.discard || []).length}`),
    b.packet?.length ? el("div", {}, `packet: ${b.packet.map(action).join(", ")}`) : null,
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
