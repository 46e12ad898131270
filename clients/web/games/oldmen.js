// Old Men of the Forest: the trick, each seat's hand, pool and saved orangutans, and the orangutan row.
import { el, enumName, header, remaining, seatBadge } from "./common.js";

const colour = (c) => enumName(c, "OLDMEN_COLOUR_");

export function card(c, extra = "") {
  return el("span", { class: `card oldmen-${colour(c.colour)} ${extra}`, title: `${colour(c.colour)} ${c.value}` }, String(c.value));
}

const back = () => el("span", { class: "card back", title: "hidden card" }, "");

function orangutan(o, needsPool) {
  return el(
    "div",
    { class: "orangutan", "data-orangutan": o.id, title: `orangutan ${o.id}` },
    el("div", { class: "orangutan-vp" }, `${o.vp} VP`),
    el("div", { class: "orangutan-id" }, o.id),
    el("div", { class: "needs" }, (o.needs || []).map((n) => el("span", { class: `dot oldmen-${colour(n)}`, title: colour(n) }))),
    needsPool
  );
}

function seatPanel(s, board, context) {
  const hand = s.hand?.length ? s.hand.map((c) => card(c)) : Array.from({ length: s.handCount || 0 }, back);
  const saved = (s.saved || []).map((o) =>
    el("span", { class: "saved", title: `${o.orangutanId}: ${o.vp} VP, ${o.tucked?.length || 0} cards under it` },
      `${o.orangutanId} (${o.vp} VP, −${(o.tucked || []).length})`)
  );
  const roles = [];
  if (board.leader === s.seat) roles.push("leader");
  if (board.firstWinner === s.seat) roles.push("1st winner");
  if (board.secondWinner === s.seat) roles.push("2nd winner");
  return el(
    "section",
    { class: `seat-panel seat-${s.seat}`, "data-seat": s.seat },
    el("h3", {}, seatBadge(context, s.seat), roles.length ? el("small", {}, ` ${roles.join(", ")}`) : null),
    el("div", { class: "score" }, `score ${s.score}`, board.matchDeals > 1 ? ` · match ${s.matchScore}` : ""),
    el("div", { class: "row" }, el("span", { class: "label" }, "hand"), el("span", { class: "hand" }, hand)),
    el("div", { class: "row" }, el("span", { class: "label" }, "pool"), el("span", { class: "pool" }, (s.pool || []).map((c) => card(c)))),
    el("div", { class: "row" }, el("span", { class: "label" }, "saved"), el("span", {}, saved.length ? saved : "none"))
  );
}

export function render(view, context) {
  const b = view.oldmen;
  const trick = (b.trick || []).map((t) =>
    el("div", { class: "trick-card" }, card(t.card, t.taken ? "taken" : ""), el("div", { class: "who" }, seatBadge(context, t.seat)))
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
      el("div", { class: "orangutan-row" }, (b.row || []).map((o) => orangutan(o)))),
    el("section", { class: "trick" }, el("h3", {}, "Trick"), el("div", { class: "trick-cards" }, trick.length ? trick : el("em", {}, "no card played yet"))),
    el("div", { class: "seats" }, (b.seats || []).map((s) => seatPanel(s, b, context))),
    el("section", { class: "discard" }, el("h3", {}, `Discard pile (${(b.discard || []).length})`), el("div", {}, (b.discard || []).map((c) => card(c, "small")))),
    remaining(b, shown)
  );
}
