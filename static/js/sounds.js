/** UI sounds: short WebAudio beeps, on or off by the player's choice (kept in localStorage). */

const STORAGE_KEY = "punto.sound";
const TONES = {
  open: [660, 0.12],
  tick: [880, 0.05],
  close: [330, 0.25],
  card: [520, 0.04],
  win: [988, 0.3],
  error: [220, 0.2],
};
let audio;

export function soundIsOn() {
  return window.localStorage.getItem(STORAGE_KEY) !== "off";
}

export function setSound(on) {
  window.localStorage.setItem(STORAGE_KEY, on ? "on" : "off");
}

/** Browsers start audio only after a user gesture: call this from one. */
export function unlockSound() {
  audio ??= new AudioContext();
  if (audio.state === "suspended") audio.resume();
}

export function beep(kind) {
  if (!soundIsOn() || !audio || audio.state !== "running") return;
  const [frequency, seconds] = TONES[kind];
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.frequency.value = frequency;
  gain.gain.setValueAtTime(0.08, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + seconds);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start();
  oscillator.stop(audio.currentTime + seconds);
}
