// The game clock on the page: both clocks large, two big buttons (and the space bar), the
// arbiter's pause / resume / set. The server pushes a new state whenever what a clock shows
// changes, so the page draws what it is given and keeps no time of its own.
"use strict";

const CLOCK_CSS = `
  #clockpanel { padding: .6em; }
  #clockpanel .faces { display: flex; gap: .6em; }
  #clockpanel .face { flex: 1; display: flex; flex-direction: column; align-items: center; margin: 0;
    padding: .4em .2em; border: 3px solid #bbb; border-radius: 10px; background: #fff; cursor: pointer; min-height: 6.5em; }
  #clockpanel .face .who { font-size: .95em; font-weight: 600; color: #555; text-transform: uppercase; letter-spacing: .05em; }
  #clockpanel .face .time { font: 700 3.4em/1.1 ui-monospace, "DejaVu Sans Mono", monospace; font-variant-numeric: tabular-nums; }
  #clockpanel .face.running { border-color: #1b7f3b; background: #e6f6ea; }
  #clockpanel .face.low .time { color: #c00020; }
  #clockpanel .face.low.running { animation: clockpulse 1s steps(2) infinite; }
  #clockpanel .face.flag { background: #c00020; border-color: #800; color: #fff; }
  #clockpanel .face.flag .who, #clockpanel .face.flag .time { color: #fff; }
  #clockpanel.paused .face .time { opacity: .45; }
  #clockstatus { margin: .35em 0 .1em; font-weight: 600; min-height: 1.3em; }
  #clockstatus.alarm { color: #c00020; }
  #clockpanel .arbiter input { width: 5.5em; }
  @keyframes clockpulse { 50% { background: #ffd6dc; } }
`;

let clockState = null;

function clockPanel() {
  let panel = document.getElementById("clockpanel");
  if (panel) return panel;
  const style = document.createElement("style");
  style.textContent = CLOCK_CSS;
  document.head.appendChild(style);
  panel = document.createElement("section");
  panel.id = "clockpanel";
  panel.innerHTML = `
    <div class="faces">
      <button class="face" id="clock-white" data-side="white"><span class="who"></span><span class="time"></span></button>
      <button class="face" id="clock-black" data-side="black"><span class="who"></span><span class="time"></span></button>
    </div>
    <div id="clockstatus"></div>
    <div class="row arbiter">
      <button id="clock-pause"></button>
      <input id="clock-white-time" placeholder="m:ss"> <input id="clock-black-time" placeholder="m:ss">
      <button id="clock-adjust"></button>
    </div>
    <p class="muted" id="clockhint"></p>`;
  const aside = document.querySelector("aside");
  (aside || document.body).prepend(panel);
  for (const face of panel.querySelectorAll(".face")) {
    face.addEventListener("click", () => pressClock(face.dataset.side));
  }
  panel.querySelector("#clock-pause").addEventListener("click", () => {
    const c = clockState && clockState.clock;
    if (c) post("/api/action", { action: c.paused ? "clock-resume" : "clock-pause" });
  });
  panel.querySelector("#clock-adjust").addEventListener("click", () => {
    const white = panel.querySelector("#clock-white-time").value.trim();
    const black = panel.querySelector("#clock-black-time").value.trim();
    post("/api/action", { action: "clock-adjust", white: white || null, black: black || null });
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.code !== "Space" || ev.repeat) return;
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    const c = clockState && clockState.clock;
    if (!c) return;
    ev.preventDefault(); // not a click on a focused button, not a scroll
    pressClock(c.running || (clockState.turn === "white" ? "black" : "white"));
  });
  return panel;
}

function pressClock(side) {
  post("/api/action", { action: "clock", side });
}

function renderClock(state) {
  clockState = state;
  const c = state.clock;
  const existing = document.getElementById("clockpanel");
  if (!c) { if (existing) existing.style.display = "none"; return; }
  const panel = clockPanel();
  const words = state.clock_words;
  panel.style.display = "";
  panel.classList.toggle("paused", c.paused);
  for (const side of ["white", "black"]) {
    const face = panel.querySelector(`#clock-${side}`);
    face.querySelector(".who").textContent = state.ui[side];
    face.querySelector(".time").textContent = c[`${side}_text`];
    face.title = words[`press_${side}`];
    face.setAttribute("aria-label", `${words[`press_${side}`]}: ${c[`${side}_text`]}`);
    face.classList.toggle("running", c.running === side && !c.paused && !c.flag && !c.stopped);
    face.classList.toggle("low", c[side] < c.low && c[side] > 0);
    face.classList.toggle("flag", c.flag === side);
  }
  const status = panel.querySelector("#clockstatus");
  let text = `${words.control}: ${c.control_text || c.control}` + (c.auto ? ` (${words.auto})` : "");
  if (c.flag) text = `${words.flag}: ${state.ui[c.flag]}`;
  else if (c.paused) text = c.paused_by === "power" ? words.paused_power : words.paused;
  else if (!c.running) text += ` — ${words.not_started}`;
  status.textContent = text;
  status.classList.toggle("alarm", Boolean(c.flag));
  panel.querySelector(".arbiter").style.display = c.flag || c.stopped ? "none" : "";
  panel.querySelector("#clock-pause").textContent = c.paused ? words.resume : words.pause;
  panel.querySelector("#clock-adjust").textContent = words.adjust;
  panel.querySelector("#clock-white-time").title = words.white_time;
  panel.querySelector("#clock-black-time").title = words.black_time;
  panel.querySelector("#clockhint").textContent = words.press_hint;
}
