// What this browser keeps: the seat tokens it holds (local storage, for "My tables" and for coming back to a
// table), the invitation links of a table it made (session storage: they stay until this tab is closed),
// the last board of each seat it plays and its latest events (session storage: shown, greyed out, after a
// reload while the server cannot be reached), and the person's choices (sound on or off). A browser in private mode that refuses
// storage still plays: it only forgets sooner.

const TOKEN = "parlour:seat-token:";
const INVITATIONS = "parlour:invitations:";
const LAST_BOARD = "parlour:last-board:";

function read(storage, key) {
  try { return storage.getItem(key); } catch { return null; }
}
function write(storage, key, value) {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch { /* storage refused (private mode, full): forgotten sooner */ }
}
function keys(storage) {
  try { return Array.from({ length: storage.length }, (_, i) => storage.key(i)); } catch { return []; }
}
const json = (text) => { try { return text ? JSON.parse(text) : null; } catch { return null; } };

// --- seats this browser plays -------------------------------------------------------------------------

export const seatToken = (id, seat) => read(localStorage, `${TOKEN}${id}:${seat}`);
export const keepSeatToken = (id, seat, token) => write(localStorage, `${TOKEN}${id}:${seat}`, token);
export function forgetSeat(id, seat) {
  write(localStorage, `${TOKEN}${id}:${seat}`, null);
  write(sessionStorage, `${LAST_BOARD}${id}:${seat}`, null);
}
// Every seat this browser holds a token for: [{id, seat}], in no particular order.
export const heldSeats = () => keys(localStorage).flatMap((key) => {
  const match = key?.startsWith(TOKEN) && key.slice(TOKEN.length).match(/^(.+):(\d+)$/);
  return match ? [{ id: match[1], seat: Number(match[2]) }] : [];
});

// --- the invitations of a table made in this tab ------------------------------------------------------

// `table`: {id, title, links: [{seat, name, href}], open: [seat], command: (seat) text}
export const keepInvitations = (table) => write(sessionStorage, `${INVITATIONS}${table.id}`, JSON.stringify(table));
export const invitations = (id) => json(read(sessionStorage, `${INVITATIONS}${id}`));
export const forgetInvitations = (id) => write(sessionStorage, `${INVITATIONS}${id}`, null);

// --- the last board a seat saw ---------------------------------------------------------------------------

export const keepLastBoard = (id, seat, summary, view, events) => write(sessionStorage, `${LAST_BOARD}${id}:${seat}`, JSON.stringify({ summary, view, events }));
export const lastBoard = (id, seat) => json(read(sessionStorage, `${LAST_BOARD}${id}:${seat}`));

// --- choices ---------------------------------------------------------------------------------------------

export const soundOn = () => read(localStorage, "parlour:sound") === "on";
export const setSound = (on) => write(localStorage, "parlour:sound", on ? "on" : null);

// The games' titles by name (from the server's game types), for a page drawn while it cannot be reached.
export const keepTitles = (titles) => write(localStorage, "parlour:game-titles", JSON.stringify(titles));
export const titles = () => json(read(localStorage, "parlour:game-titles")) || {};
