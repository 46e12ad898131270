// Libertalia: the island (today's characters), the day boxes of loot, the reputation track, and each
// seat's ship, loot, doubloons and score.
import { el, enumName, header, remaining, seatBadge } from "./common.js";

const loot = (l) => enumName(l, "LIBERTALIA_LOOT_");
const token = (l) => el("span", { class: `loot loot-${loot(l)}`, title: loot(l) }, loot(l));

function character(rank, owner, context, extra = "") {
  return el("span", { class: `character seat-${owner} ${extra}`, title: `rank ${rank}` }, rank === 0 ? "midshipman" : `#${rank}`);
}

function seatPanel(s, board, context) {
  const hand = s.hand?.length ? s.hand.map((r) => character(r, s.seat, context)) : `${s.handCount} in hand`;
  return el(
    "section",
    { class: `seat-panel seat-${s.seat}`, "data-seat": s.seat },
    el("h3", {}, seatBadge(context, s.seat)),
    el("div", { class: "score" }, `score ${s.score} · ${s.doubloons} doubloons`),
    el("div", { class: "row" }, el("span", { class: "label" }, "ship"), el("span", { class: "ship" }, (s.ship || []).map((c) => character(c.rank, s.seat, context, c.kept ? "kept" : "")), !(s.ship || []).length ? "empty" : null)),
    el("div", { class: "row" }, el("span", { class: "label" }, "loot"), (s.supply || []).length ? (s.supply || []).map((l) => el("span", {}, token(l.loot), l.count > 1 ? `×${l.count} ` : " ")) : "none"),
    el("div", { class: "row" }, el("span", { class: "label" }, "hand"), hand),
    el("div", { class: "row" }, el("span", { class: "label" }, "graveyard"), s.graveyard?.length ? s.graveyard.map((r) => `#${r}`).join(" ") : `${s.graveyardCount}`),
    s.hasSelected ? el("div", { class: "row" }, "has chosen today's character", s.selected ? ` (#${s.selected})` : "") : null
  );
}

export function render(view, context) {
  const b = view.libertalia;
  const today = (b.day || 1) - 1;
  const shown = ["phase", "voyage", "day", "days", "reputation", "island", "boxes", "bagCount", "seats", "prompt", "queue"];
  return el(
    "div",
    { class: "board libertalia" },
    header(view, context, [
      ["voyage", `${b.voyage}/3`],
      ["day", `${b.day}/${b.days}`],
      ["phase", enumName(b.phase, "LIBERTALIA_PHASE_")],
      ["bag", `${b.bagCount} tokens`],
    ]),
    el("section", { class: "island" }, el("h3", {}, "Island"),
      el("div", { class: "island-cards" }, (b.island || []).length
        ? b.island.map((c) => character(c.rank, c.seat, context, c.dayDone ? "done" : ""))
        : el("em", {}, "no character on the island"))),
    el("section", { class: "boxes" }, el("h3", {}, "Loot of the voyage's days"),
      el("div", { class: "box-row" }, (b.boxes || []).map((box, i) =>
        el("div", { class: `day-box${i === today ? " today" : ""}`, "data-day": i + 1 }, el("b", {}, `day ${i + 1}`), (box.tokens || []).map(token))))),
    el("section", { class: "reputation" }, el("h3", {}, "Reputation (left low, right high)"),
      el("ol", { class: "track" }, (b.reputation || []).map((owner, i) =>
        el("li", { class: owner >= 0 ? `seat-${owner}` : "dummy", "data-space": i }, owner >= 0 ? seatBadge(context, owner) : "dummy")))),
    b.prompt ? el("div", { class: "prompt" }, "waiting for ", seatBadge(context, b.prompt.seat), ": ", enumName(b.prompt.kind, "LIBERTALIA_CHOICE_KIND_")) : null,
    el("div", { class: "seats" }, (b.seats || []).map((s) => seatPanel(s, b, context))),
    remaining(b, shown)
  );
}
