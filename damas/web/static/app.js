// The live board: state pushed over a WebSocket; the simulated board's hands over HTTP.
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
// the language: the page's own selector (remembered) or ?lang=, else the server decides
// (--lang or [app] language, else the browser's Accept-Language)
const LANGS = Array.from(document.getElementById("lang").options, (o) => o.value);
const ALIASES = { pt: "pt-BR", "pt-br": "pt-BR", "pt-pt": "pt-PT" };
const known = (l) => (l && (LANGS.includes(l) ? l : ALIASES[l.toLowerCase()])) || null;
let lang = [params.get("lang"), localStorage.getItem("damas-lang")].map(known).find(Boolean) || null;
let flipped = localStorage.getItem("damas-flipped") === "1";
let state = null;
let ws = null;
let setup = null; // while setting up a position: square -> "w" | "W" | "b" | "B"
let resultChoice = null; // the Result picked in the form and not saved yet: { game, value }
let view = null; // the history entry shown (an index into state.moves, -1: the start), null: live
let formGame = null; // the game the new-game form was filled for
let focusCell = null; // the board's keyboard focus (roving tabindex), a cell's name: "d4"
let lastSaid = null; // the newest phrase announced (its id); null: none seen yet (the past is not announced)
let speakOn = localStorage.getItem("damas-speak") === "1"; // the page speaks too (Web Speech API)
const CYCLE = [undefined, "w", "W", "b", "B"];
const SYMBOLS = {
  from: "↑", to: "↓", path: "•", hint: "•", "must-capture": "!", capturable: "◇",
  remove: "×", missing: "+", extra: "−", error: "✗", test: "■", sensor: "⊘",
  "suggest-from": "⇑", "suggest-to": "⇓", last: "○",
};
// for the benchmark and the tests: when the page first drew a board, and each state it drew
window.damasDrawn = [];

const $ = (id) => document.getElementById(id);
const board = $("board");
const main = document.querySelector("main");
const ui = (key) => (state && state.ui[key]) || key;

function post(path, body, quiet = false) { // quiet: the caller shows the error itself
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Damas-Token"] = token;
  const sep = path.includes("?") ? "&" : "?";
  const url = state ? `${path}${sep}lang=${encodeURIComponent(state.lang)}` : path;
  return fetch(url, { method: "POST", headers, body: JSON.stringify(body) })
    .then((r) => r.json().then((j) => { if (!r.ok && !quiet) alertReport(j.error || r.statusText); return Object.assign(j, { status: r.status }); }));
}

function alertReport(text) {
  if (text.startsWith("Cannot write the records") || text.startsWith("Não é possível gravar")) {
    const banner = writeBanner(); // the server's answer while the board is paused: the banner says it
    banner.textContent = (state && state.write_error) || text;
    banner.style.display = "block";
    return;
  }
  const box = $("active");
  box.textContent = text;
  box.style.display = "block";
}

// a sensor that may not answer: the moves the board cannot tell apart, or the squares of a set-up
// a stuck sensor keeps from completing; the player's answer is the confirm action
let confirmShown = "";
function renderConfirm() {
  const box = $("confirm");
  const c = state.active && state.active.confirm;
  const key = c ? JSON.stringify([state.lang, c]) : "";
  if (key === confirmShown) return; // redrawn only when it changes (a button keeps its focus)
  confirmShown = key;
  box.innerHTML = "";
  box.style.display = c ? "block" : "none";
  if (!c) return;
  if (c.moves.length) { // (an answer held until the board sees its piece set down: said so)
    const q = document.createElement("span");
    q.setAttribute("role", "status");
    const asked = ui(c.wait ? "confirm_played_wait" : "confirm_played");
    q.textContent = (c.held ? ui("confirm_held").replace("{move}", c.held) : asked) + " ";
    box.appendChild(q);
  }
  const answer = (body) => post("/api/action", { action: "confirm", ...body });
  for (const m of c.moves) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = m.text;
    b.dataset.move = m.move;
    b.setAttribute("aria-pressed", String(c.held === m.text));
    b.onclick = () => answer({ move: m.move });
    box.appendChild(b);
  }
  for (const sq of c.squares) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = ui("sensor_broken").replace("{square}", sq.name);
    b.dataset.square = sq.square;
    b.onclick = () => answer({ square: sq.square });
    box.appendChild(b);
  }
}

// the sensors the board keeps playing around (the self-test's, and those named in play): each
// can be cleared once repaired (read again from the next game on)
let rememberedShown = "";
function renderRemembered() {
  const box = $("remembered");
  const list = state.remembered || [];
  const key = JSON.stringify([state.lang, list]);
  if (key === rememberedShown) return; // (a button keeps its focus)
  rememberedShown = key;
  box.innerHTML = "";
  box.hidden = !list.length;
  if (!list.length) return;
  const head = document.createElement("span");
  head.textContent = ui("remembered") + " ";
  box.appendChild(head);
  for (const r of list) {
    const item = document.createElement("span");
    item.className = "remembered";
    const by = ui(r.by === "play" ? "remembered_play" : "remembered_selftest");
    item.textContent = `${r.name} (${by.replace("{since}", r.since || "?")}) `;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = ui("repaired");
    b.dataset.square = r.square;
    b.title = ui("repaired_title").replace("{square}", r.name);
    b.onclick = () => post("/api/action", { action: "sensor-repaired", square: r.square });
    item.appendChild(b);
    box.appendChild(item);
  }
}

function connect() {
  const query = lang ? `?lang=${lang}` : "";
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${query}`);
  ws.onmessage = (e) => { state = JSON.parse(e.data); render(); };
  ws.onclose = () => setTimeout(connect, 1000);
}

// -- positions: the FEN of a history entry, read with the variant's square names ------------------
function parseFen(fen) {
  const byName = {};
  for (const [sq, name] of Object.entries(state.names)) byName[name.toLowerCase()] = sq;
  const pieces = {};
  const fields = fen.replace(/"/g, "").replace(/\.$/, "").split(":");
  for (const field of fields.slice(1)) {
    const color = field[0].toUpperCase();
    if (color !== "W" && color !== "B") continue;
    for (let item of field.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = item[0].toUpperCase() === "K";
      if (king) item = item.slice(1);
      const symbol = color === "W" ? (king ? "W" : "w") : (king ? "B" : "b");
      const range = item.match(/^(\d+)-(\d+)$/);
      const squares = range ? Array.from({ length: range[2] - range[1] + 1 }, (_, i) => String(Number(range[1]) + i)) : [item];
      for (const s of squares) {
        const sq = byName[s.toLowerCase()] || (state.names[s] ? s : null);
        if (sq) pieces[sq] = symbol;
      }
    }
  }
  return pieces;
}

function shownEntry() {
  if (view === null) return null;
  if (view < 0) return { fen: state.start, start: true };
  return state.moves[view];
}

// -- drawing ------------------------------------------------------------------------------------
function cellAt(file, rank) {
  return board.querySelector(`[data-file="${file}"][data-rank="${rank}"]`);
}

function buildBoard() {
  const n = state.size;
  document.documentElement.style.setProperty("--n", n);
  board.innerHTML = "";
  const bySquare = {};
  for (const [sq, fr] of Object.entries(state.squares)) bySquare[fr.join(",")] = sq;
  const algebraic = Object.values(state.names).some((name) => /[a-z]/.test(name));
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
      div.setAttribute("role", "button");
      div.tabIndex = -1;
      if (sq) {
        div.dataset.square = sq;
        // numbered variants: the numbers of the squares on the board's edge, as printed boards do
        if (!algebraic && (row === 0 || row === n - 1 || col === 0 || col === n - 1)) {
          const label = document.createElement("span");
          label.className = "label";
          label.setAttribute("aria-hidden", "true");
          label.textContent = state.names[sq];
          div.appendChild(label);
        }
      }
      board.appendChild(div);
    }
  }
  // the coordinates on the edges: files below, ranks beside (algebraic); numbers need none there
  const ranks = $("ranks");
  const files = $("files");
  ranks.style.gridTemplateRows = `repeat(${n}, 1fr)`;
  files.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
  ranks.innerHTML = "";
  files.innerHTML = "";
  for (let i = 0; i < n; i++) {
    const r = document.createElement("span");
    const f = document.createElement("span");
    r.textContent = algebraic ? String(flipped ? i + 1 : n - i) : "";
    f.textContent = algebraic ? "abcdefghij"[flipped ? n - 1 - i : i] : "";
    ranks.appendChild(r);
    files.appendChild(f);
  }
  board.dataset.built = `${n}-${flipped}-${state.variant}`;
  if (!focusCell || !board.querySelector(`[data-cell="${focusCell}"]`)) focusCell = board.querySelector("[data-square]").dataset.cell;
}

function pieceName(symbol) {
  return { w: ui("white_man"), W: ui("white_king"), b: ui("black_man"), B: ui("black_king") }[symbol] || ui("unknown_piece");
}

function addPiece(div, cls, symbol) {
  const p = document.createElement("div");
  p.className = "piece " + cls;
  if (symbol && symbol === symbol.toUpperCase() && symbol !== "?") p.textContent = "♛";
  p.dataset.piece = symbol || "?";
  p.setAttribute("aria-hidden", "true");
  div.appendChild(p);
}

function inkFor(hex) { // black or white text on an LED colour, whichever reads better
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#000" : "#fff";
}

function ledMark(role) {
  const look = state.legend.find((l) => l.role === role) || { colour: "#ff0000", pattern: "steady" };
  const led = document.createElement("div");
  led.className = `led ${role} ${look.pattern}`;
  led.dataset.role = role;
  led.style.setProperty("--led", look.colour);
  led.style.setProperty("--led-ink", inkFor(look.colour));
  const sym = document.createElement("span");
  sym.className = "sym";
  sym.setAttribute("aria-hidden", "true");
  sym.textContent = SYMBOLS[role] || "?";
  led.appendChild(sym);
  return led;
}

function render() {
  if (!state) return;
  main.inert = false; // (the page's controls read the state: they wait for the first one)
  if (board.dataset.built !== `${state.size}-${flipped}-${state.variant}`) buildBoard();
  document.documentElement.lang = state.lang;
  for (const el of document.querySelectorAll("[data-ui]")) if (!el.dataset.armed) el.textContent = state.ui[el.dataset.ui] || el.textContent;
  for (const el of document.querySelectorAll("[data-ui-label]")) el.setAttribute("aria-label", ui(el.dataset.uiLabel));
  document.title = `damas — ${state.title}`;
  $("variant").textContent = state.title;
  $("mode").textContent = `${state.ui.mode}: ${state.ui[state.mode]}`;
  const analysing = !!(state.board_analysis && state.board_analysis.on); // (no game: no result, no tags)
  $("gameno").textContent = analysing ? ui("board_analysis") : `${state.ui.game} ${state.game}`;
  $("endgame").hidden = analysing;
  $("tagsbox").hidden = analysing;
  $("tagsgame").textContent = `#${state.game}`;
  $("lang").value = state.lang;
  renderForm();
  renderLegend();
  if (view !== null && view >= state.moves.length) view = null; // a new game, a move taken back
  if (setup) renderSetup();
  else renderBoard();
  // status
  // (text nodes only: the result and termination come from the records, which anyone may have written)
  const status = $("status");
  status.textContent = state.turn === "white" ? state.ui.turn_white : state.ui.turn_black;
  if (state.result !== "*" || state.termination) {
    const result = document.createElement("span");
    result.className = "result";
    result.textContent = state.result;
    status.replaceChildren(`${state.ui.over}: `, result, state.termination ? ` (${state.termination})` : "");
  }
  renderLink();
  renderComputer();
  // the tournament hall's next game for this board, while it waits (a game, a training, an analysis)
  const assigned = $("assigned");
  assigned.hidden = !state.assignment;
  assigned.textContent = state.assignment ? state.assignment.text : "";
  const active = $("active");
  if (state.active) {
    active.innerHTML = '<span class="msg"></span>';
    active.querySelector(".msg").textContent = state.active.line; // its label and message, said once
    active.style.display = "block";
    active.dataset.kind = state.active.kind;
  } else { active.style.display = "none"; active.dataset.kind = ""; }
  renderConfirm();
  renderRemembered();
  renderHistory();
  renderSaid();
  renderAnalysis();
  renderLive();
  renderStudy();
  renderTraining();
  $("download").href = `/games/${state.game}.pdn`;
  renderReports();
  renderRecent();
  for (const key of ["White", "Black", "Event"]) {
    const input = $("tag-" + key);
    if (document.activeElement !== input) input.value = (state.tags[key] || "").replace(/^\?$/, "");
  }
  const sel = $("tag-result");
  const styles = state.variant === "international" ? ["2-0", "1-1", "0-2", "*"] : ["1-0", "1/2-1/2", "0-1", "*"];
  if (sel.options.length !== styles.length + 1 || sel.options[1].value !== styles[0]) {
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
  // when this state was drawn, and when the frame showing it was (the benchmark reads both)
  const drawn = { version: state.version, moves: state.moves.length, t: performance.now(), frame: null };
  window.damasDrawn.push(drawn);
  if (window.damasDrawn.length > 500) window.damasDrawn.splice(0, 250);
  requestAnimationFrame(() => { drawn.frame = performance.now(); });
}

// the board: the live position (what the sensors and the game say, and the LEDs), or a history entry
function renderBoard() {
  const st = studyOnPage() ? state.study : null;
  const entry = st ? { fen: st.fen, path: st.last ? st.last.path : null, study: true } : shownEntry();
  board.classList.toggle("study", !!st);
  const shownPieces = entry ? parseFen(entry.fen) : null;
  const occupied = new Set(state.occupied.map(String));
  // a piece on its way (landed, touching down, or just put on a legal destination that the
  // debounce window has not released yet) is drawn as the piece that was lifted
  // (the piece lifted: the origin the LEDs light, else the one piece of the game missing)
  let lifted = Object.keys(state.leds).filter((q) => state.leds[q] === "from" && state.pieces[q] && !occupied.has(q));
  if (lifted.length !== 1) lifted = Object.keys(state.pieces).filter((q) => !occupied.has(q));
  const moving = lifted.length === 1 ? state.pieces[lifted[0]] : null;
  const strays = state.occupied.filter((q) => !state.pieces[q]).length; // pieces sensed where the game has none
  const last = entry ? (entry.path ? entry : null) : state.last;
  const lastSquares = new Set(last ? last.path.map(String) : []);
  const lastFrom = last ? String(last.path[0]) : null;
  board.classList.toggle("viewing", !!entry);
  for (const div of board.children) {
    for (const old of div.querySelectorAll(".piece, .led")) old.remove();
    const sq = div.dataset.square;
    div.classList.toggle("last", !!sq && lastSquares.has(sq));
    div.classList.toggle("was", !!sq && sq === lastFrom);
    div.classList.toggle("picked", !!st && sq === picked);
    let said = "";
    if (shownPieces) {
      if (sq && shownPieces[sq]) { addPiece(div, shownPieces[sq].toLowerCase(), shownPieces[sq]); said = pieceName(shownPieces[sq]); }
    } else {
      const inGame = sq && state.pieces[sq];
      const sensed = sq ? occupied.has(sq) : state.cells.includes(div.dataset.cell);
      // a board that senses colour (and crowns) reads each piece: where it is not the game's
      // (another colour, a crown missing or too many), the page draws what stands there
      const read = sensed && sq && state.sensed ? state.sensed[sq] : null;
      const odd = inGame && read && read !== "?" && read !== inGame ? read : null;
      if (sensed || inGame) {
        const onTheWay = sensed && !inGame && moving && strays === 1;
        const shown = odd || inGame || (onTheWay ? moving : null);
        if (sensed && shown) addPiece(div, shown.toLowerCase(), shown);
        else if (sensed) addPiece(div, "unknown", null);
        else addPiece(div, "ghost", inGame);
        if (div.lastChild) div.lastChild.dataset.piece = inGame || "?";
        if (odd) { div.lastChild.classList.add("mismatch"); div.lastChild.dataset.sensed = odd; }
        said = odd ? ui("sensed_not_game").replace("{sensed}", pieceName(odd)).replace("{game}", pieceName(inGame))
          : sensed && shown ? pieceName(shown) : sensed ? ui("unknown_piece") : "";
      }
      const role = sq && state.leds[sq];
      // a LED that does not light (the self-test's): its role is shown here, marked, as the board cannot
      const dark = sq && (state.dead_leds || []).includes(Number(sq));
      if (role) {
        const mark = ledMark(role);
        if (dark) mark.classList.add("dark");
        div.appendChild(mark);
        const meaning = state.legend.find((l) => l.role === role);
        said += (said ? "; " : "") + (meaning ? meaning.text : role);
        if (dark) said += ` (${ui("led_dark")})`;
      }
    }
    const lastLit = sq && state.leds[sq] === "last" && !entry; // (the LED already says it)
    if (sq && lastSquares.has(sq) && !lastLit) said += (said ? "; " : "") + ui("last_move");
    div.setAttribute("aria-label", `${sq ? state.names[sq] : div.dataset.cell}: ${said || ui("empty")}`);
    div.tabIndex = div.dataset.cell === focusCell ? 0 : -1;
  }
}

function renderLegend() {
  const list = $("legend");
  const lit = new Set(Object.values(state.leds));
  const key = state.lang + JSON.stringify(state.legend) + [...lit].sort().join();
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.innerHTML = "";
  for (const l of state.legend) {
    const li = document.createElement("li");
    li.dataset.role = l.role;
    li.classList.toggle("lit", lit.has(l.role));
    const sw = document.createElement("span");
    sw.className = `swatch ${l.pattern}`;
    sw.style.setProperty("--led", l.colour);
    sw.style.setProperty("--led-ink", inkFor(l.colour));
    sw.setAttribute("aria-hidden", "true");
    const sym = document.createElement("span");
    sym.className = "sym";
    sym.textContent = SYMBOLS[l.role] || "?";
    sw.appendChild(sym);
    const text = document.createElement("span");
    text.innerHTML = '<span class="what"></span> <span class="pattern"></span>';
    text.querySelector(".what").textContent = `${SYMBOLS[l.role] || ""} ${l.text}`;
    text.querySelector(".pattern").textContent = `(${ui(l.pattern)})`;
    li.append(sw, text);
    list.appendChild(li);
  }
}

function renderReports() {
  const list = $("reports");
  list.innerHTML = "";
  if (!state.reports.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = ui("no_reports");
    list.appendChild(li);
  }
  for (const r of state.reports.slice().reverse()) {
    const li = document.createElement("li");
    li.dataset.kind = r.kind;
    li.className = r.resolved ? "resolved" : r.active ? "open" : "";
    li.innerHTML = '<span class="msg"></span>';
    // the kind's name and the sentence, said once ("Captura obrigatória: capture com b4"; server-made)
    li.querySelector(".msg").textContent = r.line;
    if (r.resolved) {
      li.dataset.resolved = r.resolved.kind;
      const res = document.createElement("span");
      res.className = "resolution";
      res.textContent = r.resolved.line;
      li.appendChild(res);
    }
    list.appendChild(li);
  }
}

// -- what the board says: the log, and each new phrase announced (live regions, and the voice) --
function renderSaid() {
  const said = state.spoken || [];
  const list = $("said");
  const key = state.lang + said.map((u) => `${u.id}${u.withdrawn ? "x" : ""}`).join();
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    for (const li of list.querySelectorAll("li:not(.local)")) li.remove();
    if (!said.length && !list.children.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = ui("nothing_said");
      list.appendChild(li);
    } else {
      for (const li of list.querySelectorAll("li.muted")) li.remove();
    }
    for (const u of said) {
      const li = document.createElement("li");
      li.dataset.id = u.id;
      li.className = (u.urgent ? "urgent" : "") + (u.withdrawn ? " withdrawn" : "");
      li.textContent = u.text;
      list.appendChild(li);
    }
    list.scrollTop = 1e6;
  }
  const newest = said.length ? said[said.length - 1].id : 0;
  if (lastSaid === null || newest < lastSaid) { lastSaid = newest; return; } // the page just opened (or the board restarted)
  for (const u of said) {
    if (u.id <= lastSaid) continue;
    lastSaid = u.id;
    if (!u.withdrawn) announce(u.text, u.say, u.urgent);
  }
}

function announce(text, spoken, urgent) {
  const region = $(urgent ? "announce-urgent" : "announce");
  const p = document.createElement("p");
  p.textContent = text;
  region.appendChild(p);
  while (region.children.length > 12) region.firstChild.remove();
  if (speakOn && "speechSynthesis" in window) {
    if (urgent) speechSynthesis.cancel(); // what is wrong goes first
    const u = new SpeechSynthesisUtterance(spoken || text);
    u.lang = state.lang;
    speechSynthesis.speak(u);
  }
}

// R reads everything (as the board's gesture does); L the last move, C the clocks, P the pieces
const READ_OUT_KEYS = { r: "all", l: "last", c: "clocks", p: "position" };
function readOut(part) {
  if (!state) return;
  const only = typeof part === "string" && part !== "all" ? `&part=${part}` : "";
  fetch(`/api/read-out?lang=${encodeURIComponent(state.lang)}${only}`).then((r) => r.json()).then((j) => {
    const li = document.createElement("li");
    li.className = "local";
    li.textContent = j.text;
    $("said").appendChild(li);
    while ($("said").querySelectorAll("li.local").length > 3) $("said").querySelector("li.local").remove();
    $("said").scrollTop = 1e6;
    announce(j.text, j.say, false);
  });
}

// -- the move history: one function draws it (moves, the shown one, the FEN box, the view bar) --
function renderHistory() {
  const box = $("moves");
  const parts = [];
  let number = 1;
  let first = true;
  state.moves.forEach((m, i) => {
    if (m.setup) { parts.push({ text: `/FEN "${m.setup}"/`, cls: "setup", index: i }); first = true; return; }
    if (m.white) parts.push({ text: `${number}.`, cls: "num" });
    else if (first) parts.push({ text: `${number}...`, cls: "num" });
    // with a clock: the time the move took; after an analysis its ? or ?? (the lines below say why)
    // a move read with a sensor that does not answer is marked (its title says which)
    const text = m.pdn + (m.mark || "") + (m.inferred ? "*" : "");
    const shown = m.took ? `${text} (${m.took})` : text;
    const why = m.inferred ? ui("inferred").replace("{square}", m.inferred) : null;
    // its name: what is shown, then the move as the board says it ("c3-d4 — 1. White: c3 to d4.")
    const said = m.said ? `${shown} — ${number}. ${m.said}` + (why ? ` ${why}.` : "") : null;
    parts.push({ text: shown, cls: "mv", index: i, said, why });
    if (!m.white) number++;
    first = false;
  });
  const key = JSON.stringify(parts) + view + state.lang;
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.innerHTML = "";
    if (!parts.length) {
      const none = document.createElement("span");
      none.className = "muted";
      none.textContent = ui("no_moves");
      box.appendChild(none);
    }
    let pair = null; // a move number and its move: one piece that a line never breaks
    parts.forEach((p, k) => {
      if (k && !pair) box.appendChild(document.createTextNode(" "));
      let el;
      if (p.cls === "mv") {
        el = document.createElement("button");
        el.type = "button";
        el.tabIndex = -1;
        el.dataset.index = p.index;
        el.setAttribute("aria-current", String(view === p.index || (view === null && p.index === state.moves.length - 1)));
        if (p.said) el.setAttribute("aria-label", p.said);
        if (p.why) el.title = p.why;
      } else {
        el = document.createElement("span");
        if (p.cls === "setup") el.dataset.index = p.index;
      }
      el.className = p.cls;
      el.textContent = p.text;
      if (pair) { pair.append(" ", el); pair = null; return; }
      if (p.cls === "num") {
        pair = document.createElement("span");
        pair.className = "pair";
        pair.appendChild(el);
        box.appendChild(pair);
        return;
      }
      box.appendChild(el);
    });
    const current = box.querySelector('[aria-current="true"]');
    if (view === null) box.scrollTop = 1e6;
    else if (current) current.scrollIntoView({ block: "nearest" });
  }
  const entry = shownEntry();
  const bar = $("viewbar");
  bar.hidden = !entry;
  if (entry) {
    const label = entry.start ? ui("viewing_start") : ui("viewing").replace("{move}", moveLabel(view));
    $("viewing").textContent = label;
  }
  const fen = entry ? entry.fen : state.fen;
  const input = $("fenshown");
  if (input.value !== fen) input.value = fen;
  const at = view === null ? state.moves.length - 1 : view;
  $("nav-first").disabled = !state.moves.length || at < 0;
  $("nav-prev").disabled = !state.moves.length || at < 0;
  $("nav-next").disabled = view === null;
  $("nav-last").disabled = view === null;
}

function moveLabel(i) {
  let number = 1;
  let first = true;
  for (let k = 0; k <= i; k++) {
    const m = state.moves[k];
    if (m.setup) { first = true; if (k === i) return `/FEN/`; continue; }
    if (k === i) return m.white ? `${number}. ${m.pdn}` : first ? `${number}... ${m.pdn}` : `${number}... ${m.pdn}`;
    if (!m.white) number++;
    first = false;
  }
  return "";
}

function showEntry(i) {
  if (!state) return;
  const lastIndex = state.moves.length - 1;
  view = i === null || i >= lastIndex ? null : Math.max(-1, i); // the last move is the live position
  render();
}

function step(delta) {
  if (!state) return;
  const at = view === null ? state.moves.length - 1 : view;
  showEntry(Math.min(state.moves.length - 1, Math.max(-1, at + delta)));
}

// -- the new-game form (variant, mode, players, FEN) ------------------------------------------------
function renderForm() {
  const sel = $("ng-variant");
  const key = state.lang + state.variants.map((v) => v.name).join();
  if (sel.dataset.key !== key) {
    const chosen = sel.value;
    sel.dataset.key = key;
    sel.innerHTML = "";
    for (const v of state.variants) {
      const o = document.createElement("option");
      o.value = v.name;
      o.textContent = v.title;
      sel.appendChild(o);
    }
    if (chosen) sel.value = chosen;
  }
  if (formGame !== state.game) { // a new game: the form starts from it
    formGame = state.game;
    sel.value = state.variant;
    for (const r of document.querySelectorAll('input[name="mode"]')) r.checked = r.value === state.mode;
    $("ng-white").value = (state.tags.White || "").replace(/^\?$/, "");
    $("ng-black").value = (state.tags.Black || "").replace(/^\?$/, "");
    $("ng-fen").value = "";
    $("formerror").textContent = "";
  }
  fenExample();
}

function fenExample() {
  const v = state.variants.find((x) => x.name === $("ng-variant").value) || state.variants[0];
  $("ng-fen").placeholder = ui("fen_hint").replace("{example}", v.example);
}

$("ng-variant").onchange = () => { if (state) fenExample(); };
$("newgameform").onsubmit = (ev) => {
  ev.preventDefault();
  if (gameGoesOn() && !confirmed($("newgame"), ui("confirm_new_game").replace("{game}", leftGame()))) return;
  const mode = document.querySelector('input[name="mode"]:checked');
  const body = { action: "new-game", variant: $("ng-variant").value, fen: $("ng-fen").value.trim() };
  if (mode) body.mode = mode.value;
  const tags = {};
  if ($("ng-white").value.trim()) tags.White = $("ng-white").value.trim();
  if ($("ng-black").value.trim()) tags.Black = $("ng-black").value.trim();
  if (Object.keys(tags).length) body.tags = tags;
  Object.assign(body, computerFields()); // against the computer: its side and level
  $("formerror").textContent = "";
  post("/api/action", body, true).then((j) => {
    if (j.ok) { view = null; return; }
    $("formerror").textContent = j.error || "";
  });
};

// the computer: thinking, its move to make on the board, a hint, or why it stopped
let computerFormSet = false;
function renderComputer() {
  const c = state.computer || {};
  const box = $("computer");
  let text = "";
  let kind = "";
  if (c.error) { text = c.error; kind = "error"; }
  else if (c.side && c.move) { text = state.ui.computer_move.replace("{move}", c.move); kind = "move"; }
  else if (c.side && c.thinking) { text = state.ui.thinking; kind = "thinking"; }
  else if (c.hint) { text = state.ui.hint_is.replace("{move}", c.hint); kind = "hint"; }
  else if (c.hint_pending) { text = state.ui.hint_wait; kind = "hint"; }
  box.textContent = text;
  box.dataset.state = kind;
  box.style.display = text ? "block" : "none";
  const over = state.result !== "*" || state.termination;
  $("hint").style.display = c.hints && !over && c.side !== state.turn ? "inline-block" : "none";
  if (!computerFormSet) { // the form starts as the game in play is set up
    computerFormSet = true;
    $("opponent").value = c.side ? "engine" : "human";
    if (c.side) $("computerside").value = c.side;
    if (c.level) $("level").value = c.move_time && [1, 3, 10].includes(c.move_time) ? `t${c.move_time}` : String(c.level);
  }
}

function renderAnalysis() {
  const a = state.analysis;
  const box = $("analysis");
  box.style.display = a ? "block" : "none";
  renderGraph(a);
  if (a) fillAnalysis(box, a);
}

// an analysis' progress, then its marked moves (the game in play's, or the study's game's)
function fillAnalysis(box, a) {
  const key = state.lang + JSON.stringify(a);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.innerHTML = "";
  let head = state.ui.analyzing.replace("{done}", a.done).replace("{total}", a.total);
  if (a.error) head = a.error;
  else if (a.finished) head = !a.lines.length ? state.ui.no_marks
    : a.lines.length === 1 ? state.ui.analysis_done_one : state.ui.analysis_done.replace("{count}", a.lines.length);
  const p = document.createElement("div");
  p.textContent = head;
  box.appendChild(p);
  for (const line of a.finished ? a.lines : []) {
    const div = document.createElement("div");
    div.className = "mark";
    div.textContent = line;
    box.appendChild(div);
  }
}

// the live analysis: the bar, the number, the depth and the engine's line, while the players move
function renderLive() {
  const l = state.live || { on: false, allowed: false };
  const toggle = $("livetoggle");
  toggle.checked = l.on;
  toggle.disabled = !l.on && !l.allowed;
  $("liveoff").hidden = l.on || l.allowed;
  $("evalrow").hidden = !l.on;
  $("liveline").hidden = !l.on || !l.numbered;
  $("liveerror").hidden = !l.error;
  $("liveerror").textContent = l.error || "";
  if (!l.on) return;
  $("evalwhite").style.width = `${l.bar}%`;
  const meter = $("evalbar");
  meter.setAttribute("aria-valuenow", String(l.bar));
  meter.setAttribute("aria-valuetext", l.text);
  meter.dataset.score = l.score === null ? "" : String(l.score);
  $("evalnum").textContent = l.text;
  $("evaldepth").textContent = l.depth_text || "";
  $("linetext").textContent = l.numbered;
}
$("livetoggle").onchange = (e) => {
  post("/api/action", { action: "live", on: e.target.checked });
};

// the analysed game's graph: the value after each ply (White above the middle), the marked moves as
// dots; a dot or a point of the curve shows that position
const GRAPH_W = 300, GRAPH_H = 80;
function renderGraph(a) {
  drawGraph($("graph"), (a && a.finished && !a.error && a.curve) || [], (a && a.marked) || {}, (i) => showEntry(i - 1), (i) => moveLabel(i - 1));
}

// the study's game's graph (kept from its analysis): a point shows that position of the main line
function renderStudyGraph(st) {
  const g = st && st.graph;
  drawGraph($("studygraph"), (g && g.curve) || [], (g && g.marked) || {}, (i) => {
    if (g && i < g.nodes.length) studyPost({ op: "goto", node: g.nodes[i] });
  }, (i) => (g && i < g.nodes.length ? studyMoveLabel(st.tokens, g.nodes[i]) : ""));
}

// a study's move as a list names it ("2. c3-d4", "2... f6-g5"), from the tree's tokens
function studyMoveLabel(tokens, node) {
  const at = tokens.findIndex((t) => t.kind === "move" && t.id === node);
  if (at < 0) return "";
  let k = at - 1;
  while (k >= 0 && tokens[k].kind !== "number") k--;
  if (k < 0) return tokens[at].text;
  const number = tokens[k].text.replace(/\.+$/, "");
  return k === at - 1 ? `${tokens[k].text} ${tokens[at].text}` : `${number}... ${tokens[at].text}`;
}

function drawGraph(svg, curve, marked, pick, label) {
  svg.toggleAttribute("hidden", curve.length < 2); // (an SVG element has no hidden property)
  svg.onclick = (e) => { // the position after the ply nearest the click
    if (curve.length < 2) return;
    const box = svg.getBoundingClientRect();
    pick(Math.round(((e.clientX - box.left) / box.width) * (curve.length - 1)));
  };
  const key = JSON.stringify([curve, marked]);
  if (curve.length < 2 || svg.dataset.key === key) return;
  svg.dataset.key = key;
  const ns = "http://www.w3.org/2000/svg";
  const x = (i) => (i * GRAPH_W) / (curve.length - 1);
  const y = (v) => GRAPH_H / (1 + 10 ** (v / 400)); // White's winning chances, as the bar shows them
  const points = curve.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  const el = (name, attrs) => {
    const e = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.appendChild(e);
    return e;
  };
  svg.innerHTML = "";
  el("rect", { class: "black", x: 0, y: 0, width: GRAPH_W, height: GRAPH_H });
  el("polygon", { class: "white", points: `0,${GRAPH_H} ${points.join(" ")} ${GRAPH_W},${GRAPH_H}` });
  el("line", { class: "zero", x1: 0, y1: GRAPH_H / 2, x2: GRAPH_W, y2: GRAPH_H / 2 });
  el("polyline", { class: "curve", points: points.join(" ") });
  for (const [ply, symbol] of Object.entries(marked)) {
    const i = Number(ply);
    if (i >= curve.length) continue;
    const dot = el("circle", { class: `mark ${symbol === "??" ? "game" : "other"}`, cx: x(i), cy: y(curve[i]), r: 3, "data-ply": ply });
    const title = document.createElementNS(ns, "title");
    title.textContent = `${label(i)}${symbol}`;
    dot.appendChild(title);
    dot.addEventListener("click", (e) => { e.stopPropagation(); pick(i); });
  }
}

// -- a study: a game (the one in play, or a PDN) with the moves tried from its positions -------------
let picked = null; // in a study: the square of the piece picked (a click or Enter), waiting for where it goes
// a study's moves are tried on the page's board, unless they are made on the board itself
// (or while the game's position is put back after an analysis on the board: the page shows that)
const studyOnPage = () => !!(state && state.study && !state.study.on_board
  && !(state.board_analysis && state.board_analysis.returning));
function renderStudy() {
  const st = state.study;
  $("studyon").hidden = !st;
  $("studyoff").hidden = !!st;
  const barred = state.mode === "tournament" && state.result === "*" && !state.termination; // (no help then)
  $("branch").hidden = !!st || barred;
  $("st-here").disabled = barred;
  $("st-open").disabled = barred;
  renderBoardAnalysis();
  renderKept(!st && !barred);
  renderKeptAnalyses(!st && !barred);
  renderStudyGraph(st);
  $("st-analysis").hidden = !(st && st.analysis);
  if (st && st.analysis) fillAnalysis($("st-analysis"), st.analysis);
  // a recorded game never analysed (or whose analysis failed): analysed from here
  $("st-analyse").hidden = !(st && st.source !== null && st.source !== state.game && (!st.analysis || st.analysis.error));
  if (!st) { picked = null; $("studychoose").hidden = true; return; }
  $("studytitle").textContent = [st.title === "? – ?" ? "" : st.title, st.result === "*" ? "" : st.result].filter(Boolean).join(" · ");
  // the rules' result of the line shown (a draw by a move-count rule, say): said, the line goes on
  const end = st.line_end;
  $("st-lineend").hidden = !end;
  const byRule = end && ["kings-only", "small-ending", "repetition"].includes(end.termination);
  $("st-lineend").textContent = end ? ui(byRule ? "line_rule" : "line_end").replace("{result}", end.result).replace("{why}", end.text) : "";
  const tree = $("studytree");
  const key = JSON.stringify([st.tokens, st.current]);
  if (tree.dataset.key !== key) {
    tree.dataset.key = key;
    tree.innerHTML = "";
    for (const t of st.tokens) {
      const span = document.createElement("span");
      if (t.kind === "move") {
        span.className = "mv" + (t.depth ? " var" : "") + (t.id === st.current ? " current" : "");
        span.dataset.node = t.id;
        span.setAttribute("role", "button");
        span.tabIndex = 0;
        if (t.id === st.current) span.setAttribute("aria-current", "true");
      } else span.className = (t.kind === "number" ? "num" : "paren") + (t.depth ? " var" : "");
      span.textContent = t.kind === "open" ? "(" : t.kind === "close" ? ")" : t.text;
      tree.appendChild(span);
      tree.appendChild(document.createTextNode(" "));
    }
    const current = tree.querySelector(".current"); // (the tree scrolls, never the page)
    if (current) tree.scrollTop = Math.max(0, current.offsetTop - tree.clientHeight / 2);
  }
  // (while its moves are made on the board, a position gone to is set up there: the lit squares)
  $("st-prev").disabled = st.parent === null;
  $("st-next").disabled = st.next === null;
  $("st-delete").disabled = st.parent === null;
  $("st-promote").disabled = st.parent === null;
  $("st-download").href = `/study.pdn?v=${st.version}`;
  $("st-hint").hidden = st.on_board; // (the moves are made on the board then: its box says so)
  const onBoard = $("st-board");
  onBoard.textContent = ui(st.on_board ? "study_board_off" : "study_board");
  onBoard.setAttribute("aria-pressed", st.on_board ? "true" : "false");
}

// the analysis on the board: the set-up still to do, the board ready, or the game put back
function renderBoardAnalysis() {
  const ba = state.board_analysis;
  const box = $("boardanalysis");
  box.hidden = !ba;
  if (!ba) return;
  const names = (squares) => squares.map((q) => state.names[String(q)]).join(", ");
  const todo = [];
  if (ba.fill.length) todo.push(ui("board_fill").replace("{squares}", names(ba.fill)));
  if (ba.empty.length) todo.push(ui("board_empty").replace("{squares}", names(ba.empty)));
  const text = ba.returning ? ui("board_return").replace("{game}", ba.game) + " " + todo.join("; ")
    : ba.set_up ? ui("board_ready") : ui("board_setup") + " " + todo.join("; ");
  if ($("ba-text").textContent !== text) $("ba-text").textContent = text;
  $("ba-fix").hidden = !state.simulated || !todo.length;
}
$("ba-fix").onclick = () => post("/api/sim", { op: "fix" });
// a list the records keep, drawn again only when it or the language changed: each item a line
// of text, then what fill(li, item) adds (its buttons, its link)
function renderKeptList(boxId, listId, items, shown, dataKey, text, fill) {
  $(boxId).hidden = !shown || !items.length;
  const list = $(listId);
  const key = state.lang + JSON.stringify(items);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.innerHTML = "";
  for (const k of items) {
    const li = document.createElement("li");
    li.dataset[dataKey] = k.id;
    const what = document.createElement("span");
    what.textContent = text(k);
    li.appendChild(what);
    fill(li, k);
    list.appendChild(li);
  }
}

// the studies the records keep (each change written at once): one opens again where it was left
function renderKept(shown) {
  renderKeptList("st-keptbox", "st-kept", state.studies || [], shown, "study",
    (k) => `${k.title} · ${k.moves_text} · ${k.updated}`, (li, k) => {
      li.appendChild(listButton("reopen", "study_open", () => studyPost({ op: "open", study: k.id })));
      const remove = listButton("remove", "study_remove", () => { // two taps: a study deleted is gone
        if (confirmed(remove, ui("confirm_study_remove"))) studyPost({ op: "remove", study: k.id });
      });
      li.appendChild(remove);
    });
}

// the analyses on the board that were left (each kept whole): the study its lines went into, its record
function renderKeptAnalyses(shown) {
  renderKeptList("ba-keptbox", "ba-kept", state.analyses || [], shown, "session",
    (k) => `${k.white} – ${k.black} · ${k.ended}`, (li, k) => {
      if (k.study !== null) li.appendChild(listButton("reopen", "study_open", () => studyPost({ op: "open", study: k.study })));
      const a = document.createElement("a");
      a.href = `/games/${k.id}.pdn`;
      a.textContent = "PDN";
      a.setAttribute("download", "");
      li.appendChild(a);
    });
}

function studyPost(body) {
  return post("/api/action", Object.assign({ action: "study" }, body), true).then((j) => {
    $("st-error").textContent = j.ok ? "" : j.error || "";
    if (!j.ok && $("st-load").hidden) alertReport(j.error || "");
    return j;
  });
}

function studyMove(fromSq, toSq) {
  const options = state.study.moves.filter((m) => String(m.from) === fromSq && String(m.to) === toSq);
  picked = null;
  const choose = $("studychoose");
  choose.hidden = options.length < 2;
  if (options.length === 1) studyPost({ op: "play", node: state.study.current, move: options[0].pdn });
  else if (options.length > 1) { // two captures from here to there: which pieces it takes, said by its path
    choose.innerHTML = "";
    const label = document.createElement("span");
    label.textContent = ui("study_choose");
    choose.appendChild(label);
    for (const m of options) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = m.pdn;
      b.onclick = () => { choose.hidden = true; studyPost({ op: "play", node: state.study.current, move: m.pdn }); };
      choose.appendChild(b);
    }
  }
  renderBoard();
}

$("studytree").addEventListener("click", (e) => {
  const mv = e.target.closest(".mv");
  if (mv) studyPost({ op: "goto", node: Number(mv.dataset.node) });
});
$("studytree").addEventListener("keydown", (e) => {
  const mv = e.target.closest && e.target.closest(".mv");
  if (mv && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); studyPost({ op: "goto", node: Number(mv.dataset.node) }); }
});
$("st-prev").onclick = () => studyPost({ op: "goto", node: state.study.parent });
$("st-next").onclick = () => studyPost({ op: "goto", node: state.study.next });
$("st-delete").onclick = () => studyPost({ op: "delete", node: state.study.current });
$("st-promote").onclick = () => studyPost({ op: "promote", node: state.study.current });
$("st-close").onclick = () => studyPost({ op: "close" });
// a recorded game analysed: opened as a study (unless it is open), then its analysis asked for
function analyseRecorded(game) {
  const open = state.study && state.study.source === game ? Promise.resolve({ ok: true }) : studyPost({ op: "open", game });
  return open.then((j) => (j.ok ? post("/api/action", { action: "analyze", game }) : j));
}
$("st-analyse").onclick = () => analyseRecorded(state.study.source);
$("st-board").onclick = () => { // the position set up on the board, its moves made there (the game kept aside)
  studyPost({ op: "board", on: !state.study.on_board });
};
// the game in play (or the position shown of it) opened as a study
const studyHere = () => studyPost({ op: "open", game: state.game, ply: view === null ? state.moves.filter((m) => !m.setup).length : view + 1 });
$("st-here").onclick = studyHere;
$("branch").onclick = () => { studyHere().then((j) => { if (j.ok) view = null; }); };
$("st-file").onchange = (e) => {
  const file = e.target.files[0];
  if (file) file.text().then((text) => { $("st-pdn").value = text; });
};
function showLoad(open) {
  $("st-load").hidden = !open;
  $("st-loadtoggle").setAttribute("aria-expanded", open ? "true" : "false");
}
$("st-loadtoggle").onclick = () => showLoad($("st-load").hidden);
// a file of many games: the study opens its first one (a request's body holds 64 KiB at most)
function firstGame(text) {
  const starts = [...text.matchAll(/^\s*\[Event\s/gm)].map((m) => m.index);
  return starts.length > 1 ? text.slice(0, starts[1]) : text;
}
$("st-open").onclick = () => {
  const text = firstGame($("st-pdn").value);
  if (new Blob([text]).size > 60000) { $("st-error").textContent = ui("study_too_big"); return; }
  studyPost({ op: "pdn", pdn: text }).then((j) => { if (j.ok) showLoad(false); });
};

// -- training on the board: a game replayed (every move lit, or one side's guessed), a tactic found --
let tacticIndex = Number(localStorage.getItem("damas-tactic") || 0);
function renderTraining() {
  const t = state.training || { on: false, games: [], tactics: 0 };
  $("trainingon").hidden = !t.on;
  const sel = $("tr-game");
  const key = JSON.stringify(t.games);
  if (sel.dataset.key !== key) {
    sel.dataset.key = key;
    sel.innerHTML = "";
    t.games.forEach((title, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = title; sel.appendChild(o); });
  }
  $("tr-start").disabled = !t.games.length;
  $("tr-tactic").disabled = !t.tactics;
  $("tr-study").hidden = !state.study;
  $("tr-count").textContent = t.tactics ? `${(tacticIndex % t.tactics) + 1}/${t.tactics}` : "";
  if (!t.on) return;
  $("trainingtitle").textContent = t.mode === "tactic" ? `${ui("training_tactic")}: ${t.title}` : `${t.title} · ${t.ply}/${t.total}`;
  const said = $("trainingsaid");
  said.textContent = t.text;
  said.dataset.verdict = t.verdict;
  $("trainingscore").textContent = t.score;
  $("tr-next").hidden = t.mode !== "tactic" || !["solved", "failed"].includes(t.verdict);
  $("tr-show").hidden = !t.to_find;
}

// A button of a list's row: its class, its label (a ui() key, translated again when the
// language changes) and what a click does.
function listButton(className, key, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.dataset.ui = key;
  b.textContent = ui(key);
  b.onclick = onclick;
  return b;
}

function startTraining(button, body) {
  const training = state.training && state.training.on; // (a training's own game is not asked about)
  if (!training && gameGoesOn() && !confirmed(button, ui("confirm_new_game").replace("{game}", leftGame()))) return;
  post("/api/action", Object.assign({ action: "training", op: "start" }, body)).then((j) => { if (j.ok) view = null; });
}
const trainingMode = () => ({ mode: document.querySelector('input[name="trmode"]:checked').value, side: $("tr-side").value });
$("tr-start").onclick = () => startTraining($("tr-start"), Object.assign({ kind: "game", index: Number($("tr-game").value) }, trainingMode()));
$("tr-study").onclick = () => startTraining($("tr-study"), Object.assign({ kind: "study" }, trainingMode()));
function startTactic(button) {
  const count = (state.training && state.training.tactics) || 1;
  startTraining(button, { kind: "tactic", index: tacticIndex % count });
}
$("tr-tactic").onclick = () => startTactic($("tr-tactic"));
$("tr-next").onclick = () => {
  tacticIndex += 1;
  localStorage.setItem("damas-tactic", String(tacticIndex));
  startTactic($("tr-next"));
};
$("tr-show").onclick = () => post("/api/action", { action: "training", op: "show" });
$("tr-stop").onclick = () => post("/api/action", { action: "training", op: "stop" });

function computerFields() {
  if ($("opponent").value !== "engine") return { opponent: "human" };
  const strength = $("level").value; // a level, or a time a move ("t3": 3 s, at the best level)
  if (strength.startsWith("t")) return { opponent: "engine", side: $("computerside").value, level: 10, move_time: Number(strength.slice(1)) };
  return { opponent: "engine", side: $("computerside").value, level: Number(strength) };
}

// -- two taps for what cannot be taken back (a resignation, a draw, leaving a game unfinished): the
// first arms the button for a few seconds and says what the second does; one mis-tap does nothing
const ARM_MS = 5000;
const REARM_MS = 400; // a double tap's second half is not a confirmation
function confirmed(button, text) {
  const armed = Number(button.dataset.armed || 0);
  if (armed && Date.now() - armed >= REARM_MS) { disarm(button); return true; }
  if (armed) return false;
  button.dataset.armed = String(Date.now());
  button.dataset.said = button.textContent;
  button.textContent = text;
  button.classList.add("armed");
  button.armTimer = setTimeout(() => disarm(button), ARM_MS);
  return false;
}

function disarm(button) {
  clearTimeout(button.armTimer);
  if (!button.dataset.armed) return;
  delete button.dataset.armed;
  button.classList.remove("armed");
  button.textContent = (state && button.dataset.ui && state.ui[button.dataset.ui]) || button.dataset.said;
}

function gameGoesOn() { // a game with moves and no result: leaving it needs a confirmation
  if (state && state.board_analysis && state.board_analysis.on) return state.board_analysis.game_goes_on; // (the game kept aside)
  return !!state && state.result === "*" && !state.termination && state.moves.length > 0;
}
// the game a new one would leave: the one in play, or the one an analysis on the board kept aside
const leftGame = () => (state.board_analysis && state.board_analysis.on ? state.board_analysis.game : state.game);

// -- the recent games: one left unfinished can be resumed --------------------------------------
function renderRecent() {
  const list = $("recent");
  const games = state.games || [];
  const key = state.lang + state.game + JSON.stringify(games);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.innerHTML = "";
  $("recentbox").hidden = !games.length;
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.game = g.id;
    li.dataset.state = g.state;
    const what = document.createElement("span");
    what.textContent = `#${g.id} ${g.white} – ${g.black} · ${g.title} · ${g.plies_text} · ` +
      (g.result !== "*" ? g.result : g.state_text);
    li.appendChild(what);
    if (g.variant === state.variant && !(state.mode === "tournament" && state.result === "*" && !state.termination)) {
      // its moves, its variations tried, its graph (if analysed)
      li.appendChild(listButton("study", "study_open", () => studyPost({ op: "open", game: g.id })));
      if (g.id !== state.game && g.plies) { // a recorded game: its study, its graph and marked moves
        li.appendChild(listButton("analyse", "analyse_game", () => analyseRecorded(g.id)));
      }
    }
    if (g.resumable) {
      const b = listButton("resume", "resume_game", () => {
        if (gameGoesOn() && !confirmed(b, ui("confirm_resume").replace("{game}", g.id))) return;
        post("/api/action", { action: "resume-game", game: g.id }).then((j) => { if (j.ok) view = null; });
      });
      li.appendChild(b);
    }
    const a = document.createElement("a");
    a.href = `/games/${g.id}.pdn`;
    a.textContent = "PDN";
    a.setAttribute("download", "");
    li.appendChild(a);
    list.appendChild(li);
  }
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
    : "display:" + (state.simulated ? "none" : "block") + ";color:#1b6a2a;font-size:.9em;margin-bottom:.3em";
}

function renderSetup() {
  board.classList.remove("viewing");
  for (const div of board.children) {
    for (const old of div.querySelectorAll(".piece, .led")) old.remove();
    div.classList.remove("last", "was");
    const piece = div.dataset.square && setup[div.dataset.square];
    if (piece) addPiece(div, piece.toLowerCase(), piece);
    const name = div.dataset.square ? state.names[div.dataset.square] : div.dataset.cell;
    div.setAttribute("aria-label", `${name}: ${piece ? pieceName(piece) : ui("empty")}`);
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
  view = null;
  $("setupbar").style.display = on ? "flex" : "none";
  $("setupmode").style.display = on ? "none" : "inline-block";
  render();
}

// -- the simulated board's hands: drag to move, click to take off or put a piece --------------------
// (pointer events: a mouse, a pen or a finger)
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

function activate(cell) { // a click, or Enter on the focused square
  if (studyOnPage()) { // a study: the first picks a piece that can move, the second where it goes
    const sq = cell.dataset.square;
    if (picked && sq && sq !== picked) studyMove(picked, sq);
    else { picked = sq && sq !== picked && state.study.moves.some((m) => String(m.from) === sq) ? sq : null; renderBoard(); }
    return;
  }
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
  if (view !== null) { showEntry(null); return; } // the board in the past: a touch brings it back live
  sim(sensedAt(cell) ? "lift" : "place", cell);
}

board.addEventListener("pointerdown", (ev) => {
  const cell = ev.target.closest(".cell");
  if (!cell || !state) return;
  focusCell = cell.dataset.cell;
  if (setup || (view !== null && !studyOnPage())) { activate(cell); return; }
  press = { cell, x: ev.clientX, y: ev.clientY, dragging: false, occupied: studyOnPage() ? !!cell.querySelector(".piece") : sensedAt(cell), id: ev.pointerId };
  board.setPointerCapture(ev.pointerId);
  ev.preventDefault();
});

board.addEventListener("pointermove", (ev) => {
  if (!press || ev.pointerId !== press.id) return;
  if (!press.dragging && press.occupied && Math.hypot(ev.clientX - press.x, ev.clientY - press.y) > 6) {
    press.dragging = true;
    const piece = press.cell.querySelector(".piece");
    drag.innerHTML = "";
    if (piece) drag.appendChild(piece.cloneNode(true));
    const box = press.cell.getBoundingClientRect();
    drag.style.width = box.width + "px";
    drag.style.height = box.height + "px";
    drag.style.display = "block";
    if (!studyOnPage()) sim("lift", press.cell);
  }
  if (press.dragging) {
    const w = parseFloat(drag.style.width);
    drag.style.left = ev.clientX - w / 2 + "px";
    drag.style.top = ev.clientY - w / 2 + "px";
  }
});

function release(ev) {
  if (!press || ev.pointerId !== press.id) return;
  const p = press;
  press = null;
  drag.style.display = "none";
  if (ev.type === "pointercancel") return;
  const over = target(ev);
  if (studyOnPage()) { // a study: a drag plays a move from the position shown, a click picks or puts
    if (p.dragging && over && over.dataset.square) studyMove(p.cell.dataset.square, over.dataset.square);
    else if (!p.dragging && over === p.cell) activate(p.cell);
    return;
  }
  if (p.dragging) {
    // put down where released (a touch-down or the end of the move); off the board: taken off
    if (over && !sensedAt(over)) sim("place", over);
    else if (over === p.cell) sim("place", p.cell);
    return;
  }
  if (over !== p.cell) return;
  sim(p.occupied ? "lift" : "place", p.cell); // a click: take the piece off, or put one there
}
board.addEventListener("pointerup", release);
board.addEventListener("pointercancel", release);

// the keyboard on the board: the arrows move between the cells, Enter or Space acts on one
board.addEventListener("keydown", (ev) => {
  const cell = ev.target.closest && ev.target.closest(".cell");
  if (!cell || !state) return;
  if (ev.key === "Enter" || ev.key === " ") {
    ev.preventDefault();
    activate(cell);
    return;
  }
  const part = READ_OUT_KEYS[ev.key.toLowerCase()];
  if (part && !ev.altKey && !ev.ctrlKey && !ev.metaKey) { ev.preventDefault(); readOut(part); return; }
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (!moves[ev.key]) return;
  ev.preventDefault();
  const cells = Array.from(board.children);
  const n = state.size;
  const i = cells.indexOf(cell);
  const col = (i % n) + moves[ev.key][0];
  const row = Math.floor(i / n) + moves[ev.key][1];
  if (col < 0 || col >= n || row < 0 || row >= n) return;
  const next = cells[row * n + col];
  focusCell = next.dataset.cell;
  cell.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
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
for (const b of document.querySelectorAll("[data-action]")) { // a resignation, a draw: two taps
  const key = b.dataset.action === "draw" ? "confirm_draw" : `confirm_resign_${b.dataset.side}`;
  b.onclick = () => { if (confirmed(b, ui(key))) post("/api/action", { action: b.dataset.action, side: b.dataset.side }); };
}
$("hint").onclick = () => post("/api/action", { action: "hint" });
$("readout").onclick = () => readOut("all");
$("speak").checked = speakOn;
$("speak").onchange = (e) => {
  speakOn = e.target.checked;
  localStorage.setItem("damas-speak", speakOn ? "1" : "0");
  if (!speakOn && "speechSynthesis" in window) speechSynthesis.cancel();
};
$("analyze").onclick = () => post("/api/action", { action: "analyze" });
$("setupmode").onclick = () => setSetup(true);
$("setupcancel").onclick = () => setSetup(false);
$("setupclear").onclick = () => { setup = {}; renderSetup(); };
$("setupstart").onclick = () => {
  if (gameGoesOn() && !confirmed($("setupstart"), ui("confirm_new_game").replace("{game}", leftGame()))) return;
  const fen = setupFen();
  post("/api/action", { action: "new-game", fen, ...computerFields() }).then((j) => { if (j.ok) setSetup(false); });
};
$("tag-result").onchange = (e) => { resultChoice = { game: state.game, value: e.target.value }; };
$("savetags").onclick = () => {
  const tags = {};
  for (const key of ["White", "Black", "Event"]) tags[key] = $("tag-" + key).value.trim();
  const result = $("tag-result").value || null;
  post(`/api/games/${state.game}/tags`, { tags, result }).then(() => { resultChoice = null; render(); });
};
// the history: click a move, the buttons, or the arrow keys (anywhere but in a field or on the board)
$("moves").addEventListener("click", (ev) => {
  const el = ev.target.closest("[data-index]");
  if (el) showEntry(Number(el.dataset.index));
});
$("nav-first").onclick = () => showEntry(-1);
$("nav-prev").onclick = () => step(-1);
$("nav-next").onclick = () => step(1);
$("nav-last").onclick = () => showEntry(null);
$("live").onclick = () => showEntry(null);
document.addEventListener("keydown", (ev) => {
  if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const t = ev.target;
  if (t.closest && (t.closest("input, select, textarea, #board") || t.isContentEditable)) return;
  const keys = {
    ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => showEntry(-1), End: () => showEntry(null),
  };
  const part = READ_OUT_KEYS[ev.key.toLowerCase()];
  if (part) { ev.preventDefault(); readOut(part); return; }
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
});
$("copyfen").onclick = () => {
  const input = $("fenshown");
  const done = () => { $("copyfen").textContent = ui("copied"); setTimeout(() => { $("copyfen").textContent = ui("copy"); }, 1500); };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(done, () => {});
  else { input.select(); document.execCommand("copy"); done(); } // a page on the board's LAN address
};
connect();
