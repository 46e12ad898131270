// Helpers shared by the game renderers: element building, readable names, and a generic tree view that
// shows any message (so a field no renderer knows yet is still visible).

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "style" && typeof value === "object") Object.assign(node.style, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// --- the rules' own words ------------------------------------------------------------------------------
// Names, one-sentence effects and descriptions of the game's components, and a line per phase, from the
// server (GetGameRules, for the game's own rules version), so a corrected card changes the page with no code.
const TEXTS = { entries: new Map(), phases: new Map() };

export function useRules(reply) {
  TEXTS.entries = new Map((reply?.entries || []).map((e) => [`${e.kind}:${e.id}`, e]));
  TEXTS.phases = new Map((reply?.phases || []).map((p) => [p.phase, p.hint]));
}

// The entry of a component, or undefined (the page then falls back to what the view says of it).
export const textOf = (kind, id) => TEXTS.entries.get(`${kind}:${id}`);
// "What to do now" in a phase (its enum name), or undefined.
export const phaseHint = (phase) => TEXTS.phases.get(phase);
// A tooltip: the name, what it does, and the rule in full.
export const tipOf = (entry, extra = "") => (entry ? `${entry.name}: ${entry.effect}${extra}\n\n${entry.description}` : extra);

// "OLDMEN_COLOUR_RED" -> "red"; "VERRAETER_BUILDING_SIDE_TRADING_POST" -> "trading post" (prefix = game+type).
export function enumName(value, prefix) {
  if (typeof value !== "string") return String(value ?? "");
  let text = value;
  if (prefix && text.startsWith(prefix)) text = text.slice(prefix.length);
  else text = text.replace(/^[A-Z]+_[A-Z]+_/, "");
  return text.toLowerCase().replace(/_/g, " ");
}

// Player names by seat; a name that several seats share (two "greedy bot"s) gets its seat: "greedy bot
// (seat 2)", so no name is ever read as another seat's or as a number.
export function distinctNames(list) {
  return list.map((name, seat) => (name && list.filter((n) => n === name).length > 1 ? `${name} (seat ${seat})` : name));
}

export const isUnset = (value) => typeof value === "string" && value.endsWith("_UNSPECIFIED");

export function seatName(context, seat) {
  if (seat === undefined || seat === null || seat < 0) return "—";
  const name = context.names?.[seat];
  if (!name) return `seat ${seat}`;
  return name.endsWith(`(seat ${seat})`) ? name : `${name} (seat ${seat})`;
}

// The player's name, or "seat N" when the seat has none.
export function playerName(context, seat) {
  if (seat === undefined || seat === null || seat < 0) return "—";
  return context.names?.[seat] || `seat ${seat}`;
}

export function seatBadge(context, seat) {
  return el("span", { class: `seat-badge seat-${seat}` }, seatName(context, seat));
}

// "cardPlayed" -> "card played"
export const words = (camel) => camel.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();

// Any JSON value as nested lists.
export function tree(value, label) {
  if (value === null || typeof value !== "object") {
    return el("span", { class: "tree-leaf" }, label ? `${words(label)}: ` : "", formatLeaf(value));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (!entries.length) return el("span", { class: "tree-leaf" }, label ? `${words(label)}: ` : "", Array.isArray(value) ? "none" : "{}");
  return el(
    "details",
    { class: "tree", open: entries.length <= 8 },
    el("summary", {}, label ? words(label) : "details", Array.isArray(value) ? ` (${entries.length})` : ""),
    el("ul", {}, entries.map(([k, v]) => el("li", {}, tree(v, Array.isArray(value) ? `#${k}` : k))))
  );
}

function formatLeaf(value) {
  if (typeof value === "string" && /^[A-Z0-9_]+$/.test(value) && value.includes("_")) return enumName(value);
  return value === "" ? "—" : String(value);
}

// Sentences for each game's events, registered by the game modules: game -> kind -> (fields, context) -> text.
export const SENTENCES = {};

// A one-line description of any event, as a sentence a player understands when the game's module has one
// for its kind; otherwise its kind and its fields in words, seats by player name. A sentence that throws is
// a console error (a bug the tests catch), and the event still shows its fields.
export function describeEvent(event, context) {
  const game = ["oldmen", "verraeter", "libertalia"].find((g) => event[g]) || Object.keys(event).find((k) => typeof event[k] === "object" && k !== "recordedAt");
  const inner = event[game] || {};
  const kind = Object.keys(inner)[0] || "event";
  const fields = inner[kind] || {};
  const sentence = SENTENCES[game]?.[kind];
  if (sentence) {
    try {
      const text = sentence(fields, context);
      if (text) return text[0].toUpperCase() + text.slice(1);
    } catch (error) {
      console.error(`the sentence for ${game} ${kind} failed (its fields are shown instead): ${error.message}`);
    }
  }
  const parts = Object.entries(fields)
    .filter(([, v]) => !(Array.isArray(v) && !v.length) && v !== "" && !isUnset(v))
    .filter(([k]) => !/seed/i.test(k))
    .map(([k, v]) => (k === "seat" ? playerName(context, v) : `${words(k).replace(/ seat$/, "")} ${short(k, v, context)}`));
  return `${words(kind)}${parts.length ? ": " + parts.join(", ") : ""}`;
}

function short(key, value, context) {
  if (/seat$/i.test(key) && typeof value === "number") return playerName(context, value);
  if (Array.isArray(value)) return value.length > 6 ? `${value.length} items` : value.map((v) => short("", v, context)).join(" ");
  if (value && typeof value === "object") {
    if ("colour" in value && "value" in value) return `${enumName(value.colour)} ${value.value}`;
    return Object.entries(value).filter(([, v]) => v !== "" && !isUnset(v)).map(([k, v]) => `${words(k)} ${short(k, v, context)}`).join(" ");
  }
  return formatLeaf(value);
}

// The summary strip above a board.
export function header(view, context, items) {
  return el(
    "div",
    { class: "board-header" },
    items.filter(Boolean).map(([label, value]) => el("span", { class: "fact" }, el("b", {}, label), " ", value)),
    view.pendingSeats?.length
      ? el("span", { class: "fact" }, el("b", {}, "to act"), " ", view.pendingSeats.flatMap((s, i) => [i ? ", " : "", seatBadge(context, s)]))
      : null
  );
}

// Fields of a board that its renderer does not draw, as a closed tree (nothing is ever lost from sight).
export function remaining(board, shown) {
  const rest = Object.fromEntries(Object.entries(board).filter(([k]) => !shown.includes(k)));
  if (!Object.keys(rest).length) return null;
  const node = tree(rest, "more details");
  node.open = false;
  return node;
}

// --- playing: legal commands on the board ---------------------------------------------------------
//
// A board renderer calls `actOn(node, key, context)` on each thing a player may click (a card in the hand,
// a land, a character). When the view's legal commands include some whose target is `key` (a game's
// `commandTarget`), the node becomes a control: with one command it is a button carrying
// `data-legal-command="<index in view.legalCommands>"`; with several it opens a small menu of them. The
// commands no board element took are listed beside the board by the play page (passes, choices).

export function actOn(node, key, context) {
  node.dataset.thing = key; // the page marks the things the last move touched by this key
  const play = context.play;
  const entries = play?.byTarget.get(key);
  if (!entries?.length) return node;
  for (const entry of entries) play.placed.add(entry.index);
  node.classList.add("legal");
  if (entries.length === 1) return commandControl(node, entries[0], play);
  const menu = el("span", { class: "choice-menu", hidden: true, role: "group", "aria-label": "choose" },
    entries.map((entry) => commandButton(entry, play)));
  node.setAttribute("role", "button");
  node.setAttribute("tabindex", "0");
  node.setAttribute("aria-expanded", "false");
  node.setAttribute("aria-label", `${node.textContent.trim()}: ${entries.length} choices`);
  const toggle = (event) => {
    if (event.target.closest(".choice-menu")) return;
    menu.hidden = !menu.hidden;
    node.setAttribute("aria-expanded", String(!menu.hidden));
    if (!menu.hidden) menu.querySelector("button")?.focus();
  };
  node.addEventListener("click", toggle);
  node.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && event.target === node) { event.preventDefault(); toggle(event); }
  });
  node.append(menu);
  return node;
}

function commandControl(node, entry, play) {
  node.dataset.legalCommand = entry.index;
  node.setAttribute("role", "button");
  node.setAttribute("tabindex", "0");
  // Its name is what it shows ("5 red", "3. Village …"), as seen and as read out (a name that differs from
  // the visible text confuses voice control); what it does is its description (the tooltip), followed by
  // what the thing's own tooltip says when that adds something ("play the red 7"; "build an estate on the
  // river (3): river, base 5, eagle").
  node.title = node.title && !entry.label.includes(node.title) ? `${entry.label}: ${node.title}` : entry.label;
  node.addEventListener("click", () => play.submit(entry.index));
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); play.submit(entry.index); }
  });
  return node;
}

// A button for one legal command, labelled in words.
export function commandButton(entry, play) {
  return el("button", { type: "button", class: "command", "data-legal-command": entry.index, onclick: () => play.submit(entry.index) }, entry.label);
}

// The inner command of a game's Command envelope: [kind, fields].
export function commandKind(command, game) {
  const inner = command[game] || {};
  const kind = Object.keys(inner)[0] || "";
  return [kind, inner[kind] || {}];
}

// A generic label for a command no game module names: its kind and fields in words.
export function genericLabel(kind, fields, context) {
  const parts = Object.entries(fields).filter(([, v]) => v !== "" && !isUnset(v) && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${words(k)} ${short(k, v, context)}`);
  return `${words(kind)}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

// "Anna" for another seat, "you" for the seat playing.
export function who(context, seat) {
  return context.seat !== undefined && seat === context.seat ? "you" : playerName(context, seat);
}

// The seats `seats` as a subject: "you", "Ben", "Ben and Carl".
export function whoever(context, seats) {
  const list = (seats || []).map((s) => who(context, s));
  return list.length ? listed(list).replace(/^./, (c) => c.toUpperCase()) : "Nobody";
}

// A list of names read as a sentence: "Anna, Ben and Carl".
export function listed(items) {
  const list = items.filter((x) => x !== undefined && x !== null && x !== "");
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
}
