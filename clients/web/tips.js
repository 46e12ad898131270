// Tooltips for the keyboard and for touch: an element with a `title` (a card, a character, a land, a loot
// token, a space of a track: its name, what it does and the rule in full) shows that text in a box beside
// it when it gets the focus or is tapped, as the mouse shows the title on hover. Escape, or moving away,
// hides it. The box is described to assistive technology as the element's description while shown.

const box = Object.assign(document.createElement("div"), { id: "tip", role: "tooltip", hidden: true });
let shownFor = null;

function show(target) {
  const text = target.getAttribute("title");
  if (!text) return;
  box.textContent = text;
  box.hidden = false;
  const place = target.getBoundingClientRect();
  box.style.left = `${Math.max(4, Math.min(window.scrollX + place.left, window.scrollX + window.innerWidth - 324))}px`;
  box.style.top = `${window.scrollY + place.bottom + 6}px`;
  target.setAttribute("aria-describedby", "tip");
  shownFor = target;
}

function hide() {
  box.hidden = true;
  shownFor?.removeAttribute("aria-describedby");
  shownFor = null;
}

export function installTips() {
  document.body.append(box);
  document.addEventListener("focusin", (event) => {
    const target = event.target.closest?.("[title]");
    if (target) show(target);
    else hide();
  });
  document.addEventListener("focusout", hide);
  document.addEventListener("pointerup", (event) => {
    if (event.pointerType !== "touch") return;
    const target = event.target.closest?.("[title]");
    if (target && target !== shownFor) show(target);
    else hide();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") hide();
  });
  window.addEventListener("hashchange", hide);
}
