// Libertalia: the island (today's characters), the day boxes of loot, the reputation track, and each
// seat's ship, loot, doubloons and score; the seat's legal commands on its characters and the others';
// the log as sentences.
import { SENTENCES, actOn, el, enumName, header, listed, phaseHint, playerName, remaining, seatBadge, textOf, tipOf, who, whoever } from "./common.js";

const lootKind = (l) => enumName(l, "LIBERTALIA_LOOT_");

// --- what each thing is called ------------------------------------------------------------------------
// The one place the words for a character and a loot token come from: `label`, what the board shows; `text`,
// how the commands and the log name it; `tip`, its tooltip. Names and effects come from the rules' own words
// (GetGameRules, for the game's rules version); the view's numbers stand in where those are missing.
const LOOT_TYPES = ["map", "barrel", "amulet", "chest", "hook", "saber", "relic"];
// Each loot type's side of the board in the game on the page (a view's `sides`, by loot type).
let boardSides = [];

export const WORDS = {
  character: (rank, owner, context) => {
    const entry = textOf("character", String(rank));
    const name = entry?.name || (rank === 0 ? "Midshipman" : `character ${rank}`);
    const text = rank === 0 ? "the Midshipman" : entry ? `the ${name} (${rank})` : name;
    const who = owner === undefined || rank === 0 ? "" : playerName(context, owner);
    const tip = entry ? tipOf(entry, who ? ` (of ${who})` : "") : who ? `${text} of ${who}` : text;
    return { label: rank === 0 ? "Midshipman" : `#${rank} ${entry ? name : ""}`.trim(), text, tip };
  },
  loot: (l) => {
    const kind = lootKind(l);
    const side = enumName(boardSides[LOOT_TYPES.indexOf(kind)], "LIBERTALIA_SIDE_") || "calm";
    const entry = textOf("loot", `${kind}:${side}`);
    return { label: kind, text: kind, tip: entry ? tipOf(entry) : kind };
  },
  space: (index, owner) => {
    const entry = textOf("track_space", owner >= 0 ? String(index + 1) : "dummy");
    return entry ? tipOf(entry) : owner >= 0 ? `space ${index + 1}` : "dummy token: a space no player holds";
  },
};

const loot = (l) => WORDS.loot(l).text;
const token = (l) => el("span", { class: `loot loot-${lootKind(l)}`, title: WORDS.loot(l).tip }, WORDS.loot(l).label);
const place = (p) => enumName(p, "LIBERTALIA_PLACE_");
const lootPlace = (p) => enumName(p, "LIBERTALIA_LOOT_PLACE_");
const kindOf = (k) => enumName(k, "LIBERTALIA_CHOICE_KIND_");
const charText = (rank) => WORDS.character(rank).text;
const s_ = (c, seat) => (seat === c.seat ? "" : "s");
const PLACES = { hand: "hand", island: "the island", ship: "ship", graveyard: "graveyard" };

// A character card; `named` prints its owner too, where no seat's panel around it says whose it is (the
// island), so the seat's colour is never the only sign of it.
function character(rank, owner, context, extra = "", named = false) {
  const done = extra === "done";
  const words = WORDS.character(rank, owner, context);
  const node = el("span", { class: `character seat-${owner} ${extra}`, title: `${words.tip}${done ? " (has acted today)" : ""}` },
    words.label, named ? el("small", { class: "owner" }, ` ${playerName(context, owner)}`) : null,
    done ? el("small", {}, " ✓") : null);
  return actOn(node, `character:${owner}:${rank}`, context);
}

function seatPanel(s, board, context) {
  const mine = context.seat === s.seat;
  const hand = s.hand?.length ? s.hand.map((r) => character(r, s.seat, context)) : `${s.handCount} in hand`;
  const graveyard = s.graveyard?.length ? s.graveyard.map((r) => character(r, s.seat, context, "dead")) : `${s.graveyardCount}`;
  return el(
    "section",
    { class: `seat-panel seat-${s.seat}${mine ? " mine" : ""}`, "data-seat": s.seat },
    el("h3", {}, seatBadge(context, s.seat), mine ? el("small", {}, " (you)") : null),
    el("div", { class: "score" }, `score ${s.score} · ${s.doubloons} doubloons`),
    el("div", { class: "row" }, el("span", { class: "label" }, "ship"), el("span", { class: "ship" }, (s.ship || []).map((c) => character(c.rank, s.seat, context, c.kept ? "kept" : "")), !(s.ship || []).length ? "empty" : null)),
    el("div", { class: "row" }, el("span", { class: "label" }, "loot"), (s.supply || []).length ? (s.supply || []).map((l) => el("span", {}, token(l.loot), l.count > 1 ? `×${l.count} ` : " ")) : "none"),
    el("div", { class: "row" }, el("span", { class: "label" }, "hand"), hand),
    el("div", { class: "row" }, el("span", { class: "label" }, "graveyard"), graveyard),
    s.hasSelected ? el("div", { class: "row" }, "has chosen today's character", s.selected ? ` (#${s.selected})` : "") : null
  );
}

export function render(view, context) {
  const b = view.libertalia;
  boardSides = b.sides || [];
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
        ? b.island.map((c) => character(c.rank, c.seat, context, c.dayDone ? "done" : "", true))
        : el("em", {}, "no character on the island"))),
    el("section", { class: "boxes" }, el("h3", {}, "Loot of the voyage's days"),
      el("div", { class: "box-row" }, (b.boxes || []).map((box, i) =>
        el("div", { class: `day-box${i === today ? " today" : ""}`, "data-day": i + 1 }, el("b", {}, `day ${i + 1}${i === today ? " (today)" : ""}`), (box.tokens || []).map(token))))),
    el("section", { class: "reputation" }, el("h3", {}, "Reputation (left low, right high)"),
      el("ol", { class: "track" }, (b.reputation || []).map((owner, i) =>
        el("li", { class: owner >= 0 ? `seat-${owner}` : "dummy", "data-space": i, title: WORDS.space(i, owner), tabindex: 0 }, owner >= 0 ? seatBadge(context, owner) : "dummy")))),
    b.prompt ? el("div", { class: "prompt" }, "waiting for ", seatBadge(context, b.prompt.seat), ": ", promptText(b.prompt)) : null,
    el("div", { class: "seats" }, (b.seats || []).map((s) => seatPanel(s, b, context))),
    remaining(b, shown)
  );
}

const PROMPTS = {
  "scout place": "where the scout goes", "apprentice copy": "which character the apprentice copies",
  "innkeeper return": "which character the innkeeper sends back", "preacher keep": "which loot the preacher keeps",
  "smuggler take": "what the smuggler takes", "gunner discard": "whom the gunner shoots",
  "necromancer raise": "whom the necromancer raises", "brawler discard": "whom the brawler knocks out",
  "thief steal": "what the thief steals", "recruiter recruit": "whom the recruiter brings back",
  "watchman swap": "which loot the watchman swaps", "merchant sell": "what the merchant sells",
  "surgeon return": "whom the surgeon returns to hand", "dusk take": "which loot to take at dusk",
  "midshipman return": "whom the midshipman returns", "cook take": "which loot the cook takes",
  "saber island": "whom the saber strikes on the island", "saber ship": "whom the saber strikes in a ship",
  "hook steal": "what the hook steals", order: "which effect resolves first", "witch copy": "which character the witch copies",
  "hook keep": "which character the hook keeps",
};
const promptText = (p) => PROMPTS[kindOf(p.kind)] || kindOf(p.kind);

// --- commands ---------------------------------------------------------------------------------------

export function commandTarget(kind, f, view) {
  if (kind === "selectCharacter") return `character:${view.seat}:${f.rank ?? 0}`;
  if (kind === "chooseCharacter") return `character:${f.seat ?? view.seat}:${f.rank ?? 0}`;
  return null;
}

export function commandLabel(kind, f, view, context) {
  const prompt = kindOf(view.libertalia?.prompt?.kind);
  switch (kind) {
    case "selectCharacter": return `send ${charText(f.rank ?? 0)} to the island`;
    case "chooseCharacter": return `choose ${charText(f.rank ?? 0)} of ${playerName(context, f.seat ?? view.seat)}`;
    case "chooseLoot": {
      const what = `${f.count > 1 ? `${f.count} × ` : "the "}${loot(f.loot)}`;
      const from = f.seat !== undefined && f.seat !== view.seat ? ` from ${playerName(context, f.seat)}` : "";
      const verb = prompt === "merchant sell" ? "sell" : prompt === "preacher keep" ? "keep" : prompt === "thief steal" || prompt === "hook steal" ? "steal" : "take";
      return `${verb} ${what}${from}`;
    }
    case "swapLoot": return `swap today's ${loot(f.today)} for the next day's ${loot(f.nextDay)}`;
    case "chooseAbility": return f.loot && !String(f.loot).endsWith("UNSPECIFIED") ? `resolve the ${loot(f.loot)} next` : `resolve ${charText(f.rank ?? 0)} next`;
    case "chooseReward": return enumName(f.reward, "LIBERTALIA_REWARD_") === "doubloons" ? "take the doubloons" : "move up on the reputation track";
    default: return null;
  }
}

// --- the log ----------------------------------------------------------------------------------------

// Where a loot token is: a day's box (the index is the day, counted from 1), a seat's loot, or the bag.
function lootAt(where, index, c) {
  const p = lootPlace(where);
  if (p === "box") return `the box of day ${index ?? 0}`;
  if (p === "supply") return who(c, index ?? 0) === "you" ? "your loot" : `${playerName(c, index ?? 0)}'s loot`;
  return `the ${p}`;
}

const scoreList = (list, c) => (list || []).map((s) => `${playerName(c, s.seat ?? 0)} ${s.score}`).join(", ");

SENTENCES.libertalia = {
  gameStarted: (f) => `A game of ${f.seats} pirates begins on the ${f.board} board.`,
  bagFilled: (f) => `${f.count} loot tokens go into the bag.`,
  voyageStarted: (f) => `Voyage ${f.voyage} sets sail for ${f.days} days${f.ranks?.length ? `; each pirate draws characters ${listed(f.ranks.map(String))}` : ""}.`,
  phaseStarted: (f) => `${enumName(f.phase, "LIBERTALIA_PHASE_")[0]?.toUpperCase()}${enumName(f.phase, "LIBERTALIA_PHASE_").slice(1)}${f.day ? ` of day ${f.day}` : ""}.`,
  characterSelected: (f, c) => `${who(c, f.seat ?? 0)} ${f.rank ? `choose${s_(c, f.seat)} ${charText(f.rank)}` : `${f.seat === c.seat ? "have" : "has"} chosen a character`}.`,
  charactersRevealed: (f, c) => `On the island: ${(f.island || []).map((x) => `${charText(x.rank)} of ${playerName(c, x.seat ?? 0)}`).join(", ")}.`,
  characterActs: (f, c) => `${charText(f.rank ?? 0)} of ${playerName(c, f.seat ?? 0)} acts.`,
  choiceRequested: (f, c) => `${who(c, f.seat ?? 0)} must choose ${PROMPTS[kindOf(f.kind)] || kindOf(f.kind)}.`,
  choiceMade: (f, c) => `${who(c, f.seat ?? 0)} ${f.seat === c.seat ? "have" : "has"} chosen.`,
  characterMoved: (f, c) => `${charText(f.rank ?? 0)} of ${playerName(c, f.seat ?? 0)} goes from ${PLACES[place(f.fromPlace)] || place(f.fromPlace)} to ${PLACES[place(f.toPlace)] || place(f.toPlace)}.`,
  doubloonsChanged: (f, c) => `${who(c, f.seat ?? 0)} ${f.amount >= 0 ? "gain" : "lose"}${s_(c, f.seat)} ${Math.abs(f.amount)} doubloon${Math.abs(f.amount) === 1 ? "" : "s"} (now ${f.doubloons}).`,
  reputationMoved: (f, c) => `${who(c, f.seat ?? 0)} move${s_(c, f.seat)} ${f.toSpace > f.fromSpace ? "up" : "down"} on the reputation track.`,
  lootMoved: (f, c) => `${f.count > 1 ? `${f.count} × ` : /^[aeiou]/.test(loot(f.loot)) ? "An " : "A "}${loot(f.loot)} goes from ${lootAt(f.fromPlace, f.fromIndex, c)} to ${lootAt(f.toPlace, f.toIndex, c)}.`,
  duskStarted: (f, c) => `Dusk: ${charText(f.rank ?? 0)} of ${playerName(c, f.seat ?? 0)} takes loot.`,
  effectsQueued: (f, c) => `${(f.effects || []).length} effect${(f.effects || []).length === 1 ? "" : "s"} of ${playerName(c, f.seat ?? 0)} wait${(f.effects || []).length === 1 ? "s" : ""} to resolve.`,
  effectResolving: (f, c) => `The effect of ${f.effect?.loot && !String(f.effect.loot).endsWith("UNSPECIFIED") ? `the ${loot(f.effect.loot)}` : charText(f.effect?.rank ?? 0)} of ${playerName(c, f.effect?.seat ?? 0)} resolves.`,
  characterKept: (f, c) => `${playerName(c, f.seat ?? 0)} keeps ${charText(f.rank ?? 0)} in the ship.`,
  anchorReward: (f, c) => `${who(c, f.seat ?? 0)} take${s_(c, f.seat)} ${enumName(f.reward, "LIBERTALIA_REWARD_") === "doubloons" ? `${f.doubloons} doubloons` : "reputation"} for the ${loot(f.loot)}.`,
  voyageScored: (f, c) => `Voyage ${f.voyage} is scored${f.hiddenScores ? "" : `: ${scoreList(f.scores, c)}`}.`,
  voyageEnded: (f) => `Voyage ${f.voyage} ends.`,
  gameFinished: (f, c) => `The game is over: ${playerName(c, f.winner ?? 0)} wins (${scoreList(f.scores, c)}).`,
};

export function learn() {}

// --- what to do now, and what a move touched ------------------------------------------------------

export function whatNow(view, context, mine) {
  const b = view.libertalia || {};
  const phase = enumName(b.phase, "LIBERTALIA_PHASE_");
  const hint = phaseHint(b.phase);
  if (phase === "select") {
    return mine
      ? "Choose a character from your hand to send to the island: the others choose at the same time, and all are revealed together."
      : `${whoever(context, view.pendingSeats)} ${(view.pendingSeats || []).length === 1 ? "chooses" : "choose"} a character (sealed until all have chosen).`;
  }
  if (b.prompt) {
    const what = promptText(b.prompt);
    return mine ? `Choose ${what}.` : `${whoever(context, [b.prompt.seat ?? 0])} chooses ${what}.`;
  }
  return hint || null;
}

// The things on the board a move's event touched (keys of `actOn`): the characters it chose or moved.
export function touched(event) {
  const e = event.libertalia || {};
  const f = e.characterSelected || e.characterMoved || e.characterKept;
  if (f?.rank) return [`character:${f.seat ?? 0}:${f.rank}`];
  return (e.charactersRevealed?.island || []).map((c) => `character:${c.seat ?? 0}:${c.rank ?? 0}`);
}
