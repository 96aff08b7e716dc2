// The live board: state pushed over a WebSocket; the simulated board's hands over HTTP.
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
// the language: the page's own selector (remembered) or ?lang=, else the server decides
// (--lang or [app] language, else the browser's Accept-Language)
const LANGS = Array.from(document.getElementById("lang").options, (o) => o.value);
let lang = [params.get("lang"), localStorage.getItem("damas-lang")].find((l) => LANGS.includes(l)) || null;
let flipped = localStorage.getItem("damas-flipped") === "1";
let state = null;
let ws = null;
let setup = null; // while setting up a position: square -> "w" | "W" | "b" | "B"
let resultChoice = null; // the Result picked in the form and not saved yet: { game, value }
const CYCLE = [undefined, "w", "W", "b", "B"];

const $ = (id) => document.getElementById(id);
const board = $("board");

function post(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Damas-Token"] = token;
  return fetch(path, { method: "POST", headers, body: JSON.stringify(body) })
    .then((r) => r.json().then((j) => { if (!r.ok) alertReport(j.error || r.statusText); return j; }));
}

function alertReport(text) {
  if (text.startsWith("Cannot write the records")) { // the server's answer while the board is paused: the banner says it
    const banner = writeBanner();
    banner.textContent = (state && state.write_error) || text;
    banner.style.display = "block";
    return;
  }
  const box = $("active");
  box.textContent = text;
  box.style.display = "block";
}

function connect() {
  const query = lang ? `?lang=${lang}` : "";
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${query}`);
  ws.onmessage = (e) => { state = JSON.parse(e.data); render(); };
  ws.onclose = () => setTimeout(connect, 1000);
}

// -- drawing ------------------------------------------------------------------------------------
function cellAt(file, rank) {
  return board.querySelector(`[data-file="${file}"][data-rank="${rank}"]`);
}

function buildBoard() {
  const n = state.size;
  const cs = n === 10 ? 56 : 66;
  document.documentElement.style.setProperty("--cs", cs + "px");
  board.style.gridTemplateColumns = `repeat(${n}, ${cs}px)`;
  board.innerHTML = "";
  const bySquare = {};
  for (const [sq, fr] of Object.entries(state.squares)) bySquare[fr.join(",")] = sq;
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      const file = flipped ? n - 1 - col : col;
      const rank = flipped ? row : n - 1 - row;
      const div = document.createElement("div");
      const sq = bySquare[file + "," + rank];
      div.className = "cell " + (sq ? "dark" : "light");
      div.dataset.file = file;
      div.dataset.rank = rank;
      div.dataset.cell = "abcdefghij"[file] + (rank + 1);
      if (sq) {
        div.dataset.square = sq;
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = state.names[sq];
        div.appendChild(label);
      }
      board.appendChild(div);
    }
  }
  board.dataset.built = `${n}-${flipped}-${state.variant}`;
}

function render() {
  if (!state) return;
  if (board.dataset.built !== `${state.size}-${flipped}-${state.variant}`) buildBoard();
  document.documentElement.lang = state.lang;
  for (const el of document.querySelectorAll("[data-ui]")) el.textContent = state.ui[el.dataset.ui] || el.textContent;
  for (const el of document.querySelectorAll("[data-ui-placeholder]")) el.placeholder = state.ui[el.dataset.uiPlaceholder];
  document.title = `damas — ${state.title}`;
  $("variant").textContent = state.title;
  $("mode").textContent = `${state.ui.mode}: ${state.ui[state.mode]}`;
  $("gameno").textContent = `${state.ui.game} ${state.game}`;
  $("tagsgame").textContent = `#${state.game}`;
  $("lang").value = state.lang;
  if (setup) return renderSetup();
  const occupied = new Set(state.occupied.map(String));
  // a piece on its way (landed, touching down, or just put on a legal destination that the
  // debounce window has not released yet) is drawn as the piece that was lifted
  const lifted = Object.keys(state.leds).filter((q) => state.leds[q] === "from" && state.pieces[q] && !occupied.has(q));
  const moving = lifted.length === 1 ? state.pieces[lifted[0]] : null;
  for (const div of board.children) {
    for (const old of div.querySelectorAll(".piece, .led")) old.remove();
    const sq = div.dataset.square;
    const inGame = sq && state.pieces[sq];
    const sensed = sq ? occupied.has(sq) : state.cells.includes(div.dataset.cell);
    if (sensed || inGame) {
      const p = document.createElement("div");
      const onTheWay = sensed && !inGame && moving && ["to", "path", "hint"].includes(state.leds[sq]);
      const shown = inGame || (onTheWay ? moving : null);
      if (sensed && shown) p.className = "piece " + shown.toLowerCase();
      else if (sensed) p.className = "piece unknown";
      else p.className = "piece ghost";
      if (shown && shown === shown.toUpperCase()) p.textContent = "♛";
      p.dataset.piece = inGame || "?";
      div.appendChild(p);
    }
    const role = sq && state.leds[sq];
    if (role) {
      const led = document.createElement("div");
      led.className = "led " + role;
      led.dataset.role = role;
      div.appendChild(led);
    }
  }
  // status
  let status = state.turn === "white" ? state.ui.turn_white : state.ui.turn_black;
  if (state.result !== "*" || state.termination) {
    status = `${state.ui.over}: <span class="result">${state.result}</span>` + (state.termination ? ` (${state.termination})` : "");
  }
  $("status").innerHTML = status;
  renderLink();
  const active = $("active");
  if (state.active) { active.textContent = state.active.message; active.style.display = "block"; active.dataset.kind = state.active.kind; }
  else { active.style.display = "none"; active.dataset.kind = ""; }
  // moves
  const parts = [];
  let number = 1;
  let first = true;
  for (const m of state.moves) {
    if (m.setup) { parts.push(`/FEN "${m.setup}"/`); first = true; continue; }
    if (m.white) parts.push(`${number}.`);
    else if (first) parts.push(`${number}...`);
    parts.push(m.took ? `${m.pdn} (${m.took})` : m.pdn); // with a clock: the time the move took
    if (!m.white) number++;
    first = false;
  }
  $("moves").textContent = parts.join(" ") || "—";
  $("moves").scrollTop = 1e6;
  $("download").href = `/games/${state.game}.pdn`;
  const list = $("reports");
  list.innerHTML = "";
  for (const r of state.reports.slice().reverse()) {
    const li = document.createElement("li");
    li.dataset.kind = r.kind;
    li.innerHTML = `<span class="kind"></span><span class="msg"></span>`;
    li.querySelector(".kind").textContent = r.kind;
    li.querySelector(".msg").textContent = r.message;
    list.appendChild(li);
  }
  for (const key of ["White", "Black", "Event"]) {
    const input = $("tag-" + key);
    if (document.activeElement !== input) input.value = (state.tags[key] || "").replace(/^\?$/, "");
  }
  const sel = $("tag-result");
  const styles = state.variant === "international" ? ["2-0", "1-1", "0-2", "*"] : ["1-0", "1/2-1/2", "0-1", "*"];
  if (sel.options.length !== styles.length + 1) {
    sel.innerHTML = '<option value="">—</option>' + styles.map((s) => `<option>${s}</option>`).join("");
  }
  // the selector shows the game's result, unless the user is choosing one for this game
  if (!resultChoice || resultChoice.game !== state.game) {
    resultChoice = null;
    sel.value = state.result !== "*" && styles.includes(state.result) ? state.result : "";
  }
  // the records cannot be written: the board is paused, and the page says why
  const banner = writeBanner();
  banner.textContent = state.write_error || "";
  banner.style.display = state.write_error ? "block" : "none";
  $("tokenhint").style.display = state.token_required && !token ? "block" : "none";
  if (typeof renderClock === "function") renderClock(state); // the game clock (clock.js)
}

function writeBanner() {
  let el = $("writeerror");
  if (!el) {
    el = document.createElement("div");
    el.id = "writeerror";
    el.setAttribute("role", "alert");
    el.style.cssText = "display:none;padding:.6em .9em;border-radius:6px;background:#b00020;color:#fff;font-weight:600";
    const aside = document.querySelector("aside"); // beside the board: showing it never moves the squares
    aside.insertBefore(el, aside.firstChild);
  }
  return el;
}

// the board's link (a board behind a serial line, the Pico): while it is out its LEDs cannot be reached
function renderLink() {
  let box = $("link");
  if (!box) {
    box = document.createElement("div");
    box.id = "link";
    box.setAttribute("role", "status");
    $("status").before(box);
  }
  const link = state.link || { state: "up" };
  const down = link.state === "down";
  box.dataset.state = link.state;
  box.textContent = down ? state.ui.link_down : state.ui.link_up;
  box.style.cssText = down
    ? "display:block;background:#b00020;color:#fff;padding:.5em .7em;border-radius:4px;font-weight:bold;margin-bottom:.5em"
    : "display:" + (state.simulated ? "none" : "block") + ";color:#1b7a2f;font-size:.9em;margin-bottom:.3em";
}

function renderSetup() {
  for (const div of board.children) {
    for (const old of div.querySelectorAll(".piece, .led")) old.remove();
    const piece = div.dataset.square && setup[div.dataset.square];
    if (piece) {
      const p = document.createElement("div");
      p.className = "piece " + piece.toLowerCase();
      p.dataset.piece = piece;
      if (piece === piece.toUpperCase()) p.textContent = "♛";
      div.appendChild(p);
    }
  }
}

function setupFen() {
  const side = (color) =>
    Object.keys(setup)
      .filter((sq) => setup[sq].toLowerCase() === color)
      .sort((a, b) => a - b)
      .map((sq) => (setup[sq] === color.toUpperCase() ? "K" : "") + sq)
      .join(",");
  return `${$("setupturn").value}:W${side("w")}:B${side("b")}`;
}

function setSetup(on) {
  setup = on ? Object.assign({}, state.pieces) : null;
  $("setupbar").style.display = on ? "flex" : "none";
  $("setupmode").style.display = on ? "none" : "inline-block";
  render();
}

// -- the simulated board's hands: drag to move, click to take off or put a piece --------------------
let press = null;
const drag = $("drag");

function target(ev) {
  const el = document.elementFromPoint(ev.clientX, ev.clientY);
  return el && el.closest(".cell");
}

function sim(op, cell) {
  if (!state || !state.simulated) return Promise.resolve();
  const body = cell.dataset.square ? { op, square: Number(cell.dataset.square) } : { op, cell: cell.dataset.cell };
  return post("/api/sim", body);
}

function sensedAt(cell) {
  if (cell.dataset.square) return state.occupied.includes(Number(cell.dataset.square));
  return state.cells.includes(cell.dataset.cell);
}

board.addEventListener("pointerdown", (ev) => {
  const cell = ev.target.closest(".cell");
  if (!cell || !state) return;
  if (setup) {
    const sq = cell.dataset.square;
    if (sq) {
      const next = CYCLE[(CYCLE.indexOf(setup[sq]) + 1) % CYCLE.length];
      if (next) setup[sq] = next;
      else delete setup[sq];
      renderSetup();
    }
    return;
  }
  press = { cell, x: ev.clientX, y: ev.clientY, dragging: false, occupied: sensedAt(cell) };
  board.setPointerCapture(ev.pointerId);
});

board.addEventListener("pointermove", (ev) => {
  if (!press) return;
  if (!press.dragging && press.occupied && Math.hypot(ev.clientX - press.x, ev.clientY - press.y) > 6) {
    press.dragging = true;
    const piece = press.cell.querySelector(".piece");
    drag.innerHTML = "";
    if (piece) drag.appendChild(piece.cloneNode(true));
    drag.style.display = "block";
    sim("lift", press.cell);
  }
  if (press.dragging) {
    const cs = parseInt(getComputedStyle(document.documentElement).getPropertyValue("--cs"));
    drag.style.left = ev.clientX - cs / 2 + "px";
    drag.style.top = ev.clientY - cs / 2 + "px";
  }
});

board.addEventListener("pointerup", (ev) => {
  if (!press) return;
  const p = press;
  press = null;
  drag.style.display = "none";
  const over = target(ev);
  if (p.dragging) {
    // put down where released (a touch-down or the end of the move); off the board: taken off
    if (over && !sensedAt(over)) sim("place", over);
    else if (over === p.cell) sim("place", p.cell);
    return;
  }
  if (over !== p.cell) return;
  sim(p.occupied ? "lift" : "place", p.cell); // a click: take the piece off, or put one there
});

// -- controls --------------------------------------------------------------------------------------
$("flip").onclick = () => { flipped = !flipped; localStorage.setItem("damas-flipped", flipped ? "1" : "0"); render(); };
$("lang").onchange = (e) => {
  lang = e.target.value;
  localStorage.setItem("damas-lang", lang);
  if (params.has("lang")) { // a link's ?lang= would win again at the next reload
    params.set("lang", lang);
    history.replaceState(null, "", `${location.pathname}?${params}${location.hash}`);
  }
  const old = ws;
  old.onclose = null; // reconnect now, in the chosen language
  old.close();
  connect();
};
for (const b of document.querySelectorAll("[data-action]")) {
  b.onclick = () => post("/api/action", { action: b.dataset.action, side: b.dataset.side });
}
$("newgame").onclick = () => post("/api/action", { action: "new-game" });
$("setup").onclick = () => post("/api/action", { action: "new-game", fen: $("fen").value.trim() });
$("setupmode").onclick = () => setSetup(true);
$("setupcancel").onclick = () => setSetup(false);
$("setupclear").onclick = () => { setup = {}; renderSetup(); };
$("setupstart").onclick = () => {
  const fen = setupFen();
  post("/api/action", { action: "new-game", fen }).then((j) => { if (j.ok) setSetup(false); });
};
$("tag-result").onchange = (e) => { resultChoice = { game: state.game, value: e.target.value }; };
$("savetags").onclick = () => {
  const tags = {};
  for (const key of ["White", "Black", "Event"]) tags[key] = $("tag-" + key).value.trim();
  const result = $("tag-result").value || null;
  post(`/api/games/${state.game}/tags`, { tags, result }).then(() => { resultChoice = null; render(); });
};
connect();
