// Saying "your move" outside the page: the tab's title, and a short sound (off unless the person turns it
// on; made by the Web Audio API, so there is no sound file to download).
import { el } from "./games/common.js";
import { setSound, soundOn } from "./store.js";

let audio = null;

// A soft two-note chime. Browsers play sound only after the person has used the page (a click, a key),
// which turning the sound on is.
export function chime() {
  if (!soundOn()) return;
  try {
    audio ||= new AudioContext();
    audio.resume?.();
    const start = audio.currentTime + 0.01;
    [[660, 0], [880, 0.16]].forEach(([frequency, delay]) => {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.0001, start + delay);
      volume.gain.exponentialRampToValueAtTime(0.15, start + delay + 0.02);
      volume.gain.exponentialRampToValueAtTime(0.0001, start + delay + 0.3);
      tone.connect(volume).connect(audio.destination);
      tone.start(start + delay);
      tone.stop(start + delay + 0.32);
    });
  } catch {
    /* no sound on this browser: the title still says it */
  }
}

// The toggle for the sound, as it is kept in this browser (off by default).
export function soundToggle() {
  const box = el("input", { type: "checkbox", id: "sound", checked: soundOn() });
  box.addEventListener("change", () => {
    setSound(box.checked);
    if (box.checked) chime(); // what it will sound like (and the browser's permission to play it)
  });
  return el("label", { class: "sound-toggle", for: "sound" }, box, " sound when it is my move");
}

// The tab's title: "▶ Your move · <game> · Parlour" while it is the seat's move, else "<game> · Parlour".
export function tabTitle(game, myMove) {
  document.title = `${myMove ? "▶ Your move · " : ""}${game ? `${game} · ` : ""}Parlour`;
}
