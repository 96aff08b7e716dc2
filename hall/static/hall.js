// The hall page: every board as a small live board (long poll on /api/state), or one board
// (/board/ID); the arbiter's controls when the address carries the hall's token (?token=...).
"use strict";
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("hall-token") || "";
if (token) { sessionStorage.setItem("hall-token", token); document.body.classList.add("arbiter-on"); }
const only = location.pathname.startsWith("/board/") ? decodeURIComponent(location.pathname.slice(7)) : null;
let state = null;
let version = -1;
let received = 0; // when the last state arrived (the clocks tick on from there)
// the language: the page's selector (remembered) or ?lang=, else the hall decides (--lang, else
// the browser's Accept-Language); the words come from /api/lang (wording/hall.py)
let lang = params.get("lang") || localStorage.getItem("hall-lang") || "";
let words = {};

function t(key, values = {}) {
  const text = words[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

async function loadLanguage() {
  try {
    const r = await fetch(`/api/lang${lang ? `?lang=${encodeURIComponent(lang)}` : ""}`, { cache: "no-store" });
    if (!r.ok) return;
    const data = await r.json();
    words = data.ui;
    document.documentElement.lang = data.lang;
    const sel = $("lang");
    sel.innerHTML = data.languages.map(([code, name]) => `<option value="${esc(code)}">${esc(name)}</option>`).join("");
    sel.value = data.lang;
    for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
    $("standingslink").href = `/standings?lang=${data.lang}`;
    $("crosstablelink").href = `/crosstable?lang=${data.lang}`;
    render();
  } catch (e) { /* the hall restarts: the words come with the next try */ }
}

function alertText(a) { // an alert in the page's language (the board's own words for a report)
  switch (a.kind) {
    case "offline": return t("alert_offline", a);
    case "out-of-sync": return a.error ? t("alert_sync_error", a) : t("alert_sync_wait", a);
    case "flag": return t(`alert_flag_${a.side}`, a);
    case "clock-paused": return a.by ? t("alert_paused_by", { ...a, by: t(`by_${a.by}`) }) : t("alert_paused", a);
    case "refused": return t("alert_refused", a);
    case "conflict": return t("alert_conflict", a);
    case "unknown-board": return t("alert_unknown_board", a);
    case "assignment": return t("alert_assignment", a);
    case "flood": return t("alert_flood", a);
    case "new-database": return t("alert_new_database", a);
    case "identity": return t("alert_identity", a);
    case "duplicate-id": return t("alert_duplicate_id", a);
    case "stalled": return t("alert_stalled", a);
    case "bad-board": return t("alert_bad_board", { board: a.bad });
    default: return t("alert_report", { ...a, message: (a.texts && a.texts[document.documentElement.lang]) || a.report || a.message });
  }
}

const RESYNC = new Set(["out-of-sync", "conflict", "refused"]); // trouble a resync of the board's games mends

function alertLine(a) { // an alert; the arbiter's buttons: dismiss what the hall counted, resync a board
  const count = a.count > 1 ? ` <span class="count">${esc(t("alert_count", a))}</span>` : "";
  const game = a.game === undefined ? "" : ` data-game="${esc(a.game)}"`;
  const buttons = !token ? "" :
    (RESYNC.has(a.kind) && state.boards.some((b) => b.board === a.board) ? `<button data-alert="resync" data-board="${esc(a.board)}"${game}>${esc(t("resync"))}</button>` : "") +
    (a.count !== undefined ? `<button data-alert="dismiss" data-board="${esc(a.board)}" data-kind="${esc(a.kind)}">${esc(t("dismiss"))}</button>` : "");
  return `<p class="alert ${esc(a.kind)}" data-board="${esc(a.board)}"><span>${esc(alertText(a))}${count}</span>${buttons ? `<span class="arbiter">${buttons}</span>` : ""}</p>`;
}

function esc(s) { return String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`); }

function clock(seconds) {
  // what the board's clock face shows (referee.clock.clock_text): h:mm:ss or m:ss, rounded up,
  // tenths under 10 s, 0:00 only when the time is up
  const t = Math.round(seconds * 10000);
  if (t <= 0) return "0:00";
  if (t < 100000) {
    const tenths = Math.ceil(t / 1000);
    if (tenths < 100) return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const s = Math.ceil(t / 10000);
  const h = Math.floor(s / 3600), rest = s % 3600;
  const mm = Math.floor(rest / 60), ss = String(rest % 60).padStart(2, "0");
  return h ? `${h}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

function svgBoard(g) {
  const n = g.size;
  const parts = [`<svg viewBox="0 0 ${n} ${n}" role="img" aria-label="${esc(t("board_svg"))}"><rect width="${n}" height="${n}" fill="#f0d9b5"/>`];
  for (const [q, [f, r]] of Object.entries(state.geometry[g.variant])) {
    const x = f, y = n - 1 - r;
    parts.push(`<rect x="${x}" y="${y}" width="1" height="1" fill="#946f51"/>`);
    const p = g.pieces[q];
    if (p) {
      const white = p.toLowerCase() === "w";
      parts.push(`<circle data-square="${q}" data-piece="${p}" cx="${x + .5}" cy="${y + .5}" r=".38" fill="${white ? "#f7f7f2" : "#1d1d1d"}" stroke="${white ? "#777" : "#000"}" stroke-width=".05"/>`);
      if (p === p.toUpperCase()) parts.push(`<circle cx="${x + .5}" cy="${y + .5}" r=".16" fill="none" stroke="#d4a000" stroke-width=".08"/>`);
    }
  }
  parts.push("</svg>");
  return parts.join("");
}

function left(g, side) {
  // the time left on a side's clock: the running one counts down since the board's state came
  const c = g.clock;
  const gone = c.ticking && c.running === side ? (Date.now() - (g.at || received)) / 1000 : 0;
  return Math.max(0, (c[side] || 0) - gone);
}

function face(g, side) { // a clock face (none for a game without a clock)
  const c = g.clock;
  if (!c) return "";
  const cls = ["clock", c.running === side && c.ticking ? "running" : "", c.paused ? "paused" : "", c.flag === side ? "flag" : ""];
  return `<span class="${cls.join(" ").trim()}" data-side="${side}">${clock(left(g, side))}</span>`;
}

function card(b, alerting) {
  const g = b.game;
  const cls = ["card", b.online ? "" : "offline", alerting ? "alerting" : ""].join(" ");
  if (!g) return `<a class="${cls}" href="/board/${encodeURIComponent(b.board)}" data-board="${esc(b.board)}"><h3>${esc(t("board", b))}</h3><p>${esc(t("no_game"))}</p></a>`;
  const res = g.result !== "*" ? `<span class="result">${esc(g.result)}</span>` : `<span>${esc(t("plies", { n: g.plies }))}</span>`;
  return `<a class="${cls}" href="/board/${encodeURIComponent(b.board)}" data-board="${esc(b.board)}">
    <h3><span>${esc(t("board", b))}${g.round ? ` · R${esc(g.round)}` : ""}</span>${res}</h3>
    ${svgBoard(g)}
    <div class="players">
      <span class="${g.turn === "white" && g.result === "*" ? "turn" : ""}">○ ${esc(g.white)}</span>${face(g, "white")}
      <span class="${g.turn === "black" && g.result === "*" ? "turn" : ""}">● ${esc(g.black)}</span>${face(g, "black")}
    </div>
    <div class="last">${g.last ? esc(t("last", { move: g.last })) : "&nbsp;"}</div></a>`;
}

function render() {
  if (!state) return;
  const code = document.documentElement.lang;
  $("event").textContent = state.event || t("hall");
  $("round").textContent = state.round ? t("round_of", state) : "";
  $("broker").textContent = t(state.connected ? "broker_up" : "broker_down");
  $("broker").className = "pill" + (state.connected ? "" : " down");
  $("pairingslink").href = `/pairings/${state.round || 1}?lang=${code}`;
  $("alerts").innerHTML = state.alerts.map(alertLine).join("");
  const alerting = new Set(state.alerts.map((a) => a.board));
  if (only === null) {
    $("boards").innerHTML = state.boards.map((b) => card(b, alerting.has(b.board))).join("");
  } else {
    $("boards").hidden = true; $("one").hidden = false; $("back").hidden = false;
    const b = state.boards.find((x) => x.board === only);
    const g = b && b.game;
    $("onetitle").textContent = g ? t("board_title", { board: only, white: g.white, black: g.black }) : t("board_title_none", { board: only });
    if (g) {
      $("bigboard").innerHTML = svgBoard(g);
      $("oneclock").innerHTML = g.clock ? `○ ${face(g, "white")} · ● ${face(g, "black")}${g.clock.paused ? ` <span class="pill">${esc(t("paused"))}</span>` : ""}` : "";
      $("oneresult").innerHTML = g.result !== "*" ? `${esc(t("result_is"))} <span class="result">${esc(g.result)}</span>` : esc(t(`to_move_${g.turn}`));
      const items = [];
      for (let i = 0; i < g.moves.length; i += 2) items.push(`<li>${esc(g.moves[i])} ${esc(g.moves[i + 1] || "")}</li>`);
      $("onemoves").innerHTML = items.join("");
      $("onepdn").href = `/games/${g.id}.pdn`;
      $("onesheet").href = `/games/${g.id}/sheet?lang=${code}`;
    }
  }
  $("pairings").hidden = !state.pairings.length && !token;
  if (token && !$("settingsform").contains(document.activeElement)) {
    $("srounds").value = state.rounds; $("stiebreak").value = state.tiebreak; $("sauto").checked = state.auto_confirm;
    $("scolours").value = state.colours;
  }
  $("pairingrows").innerHTML = state.pairings.map((p) => {
    const result = p.black === null ? (p.result === "H" ? t("bye_requested_H") : p.result === "Z" ? t("bye_requested_Z") : t("bye")) : p.result ? `${p.result}${p.confirmed ? "" : " " + t("unconfirmed")}` : "";
    const actions = p.black === null ? "" :
      `<button data-act="swap" data-table="${p.table}">${esc(t("swap"))}</button>` +
      (p.result && !p.confirmed ? `<button data-act="confirm" data-table="${p.table}">${esc(t("confirm"))}</button>` : "") +
      `<select data-act="result" data-table="${p.table}"><option value="">${esc(t("result_pick"))}</option><option>2-0</option><option>1-1</option><option>0-2</option><option value="+/-">${esc(t("wo_white"))}</option><option value="-/+">${esc(t("wo_black"))}</option><option value="-/-">${esc(t("wo_both"))}</option></select>`;
    return `<tr><td>${p.table}</td><td>${esc(p.board || "")}</td><td>${esc(p.white)}</td><td>${esc(p.black ?? "—")}</td><td>${esc(result)}</td><td class="arbiter">${actions}</td></tr>`;
  }).join("");
}

function tick() { // the clocks of the games in play, between two states
  if (!state) return;
  for (const b of state.boards) {
    if (!b.game || !b.game.clock || !b.game.clock.ticking) continue;
    const el = only === null ? document.querySelector(`.card[data-board="${CSS.escape(b.board)}"]`) : $("one");
    if (!el) continue;
    for (const c of el.querySelectorAll(".clock[data-side]")) c.textContent = clock(left(b.game, c.dataset.side));
  }
}

function merge(old, got) { // a delta (only what changed since our version) laid over the state we have
  const now = Date.now();
  for (const b of got.boards) if (b.game) b.game.at = now; // its clocks' faces as of now (a board whose clock only ran on is not sent again)
  if (got.delta === undefined || !old) return got;
  const boards = new Map(old.boards.map((b) => [b.board, b]));
  for (const b of got.boards) boards.set(b.board, b);
  const out = { ...old, ...got };
  out.boards = got.board_ids.map((id) => boards.get(id)).filter(Boolean);
  return out;
}

async function poll() {
  for (;;) {
    try {
      const delta = state ? `&delta=${encodeURIComponent(state.boot)}${only === null ? "" : `&moves=${encodeURIComponent(only)}`}` : "";
      const r = await fetch(`/api/state?since=${version}${delta}`, { cache: "no-store" });
      if (r.ok) {
        state = merge(state, await r.json());
        version = state.version;
        received = Date.now();
        if (!words.hall) await loadLanguage(); // (the hall was not there when the page came)
        render();
        continue;
      }
    } catch (e) { /* the hall restarts: try again */ }
    await new Promise((ok) => setTimeout(ok, 1000));
  }
}

async function act(path, body) {
  const r = await fetch(`${path}?lang=${encodeURIComponent(document.documentElement.lang)}`, { method: "POST", headers: { "Content-Type": "application/json", "X-Hall-Token": token }, body: JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  $("message").textContent = r.ok ? "" : data.error || t("error_status", { status: r.status });
  return r.ok;
}

$("alerts").addEventListener("click", (e) => {
  const b = e.target.closest("button[data-alert]");
  if (!b) return;
  const body = { board: b.dataset.board };
  if (b.dataset.alert === "dismiss") body.kind = b.dataset.kind;
  else if (b.dataset.game !== undefined) body.game = Number(b.dataset.game);
  act(`/api/${b.dataset.alert}`, body);
});
$("pairingrows").addEventListener("click", (e) => {
  const b = e.target.closest("button[data-act]");
  if (b) act(`/api/${b.dataset.act}`, { round: state.round, table: Number(b.dataset.table) });
});
$("pairingrows").addEventListener("change", (e) => {
  const s = e.target.closest("select[data-act]");
  if (s && s.value) act("/api/result", { round: state.round, table: Number(s.dataset.table), result: s.value });
});
$("pairform").addEventListener("submit", (e) => {
  e.preventDefault();
  const boards = $("pairboards").value.split(",").map((x) => x.trim()).filter(Boolean);
  act("/api/pair", boards.length ? { boards } : {});
});
$("playerform").addEventListener("submit", (e) => {
  e.preventDefault();
  act("/api/players", { name: $("pname").value, rating: Number($("prating").value) || 0, club: $("pclub").value }).then((ok) => ok && e.target.reset());
});
$("csvform").addEventListener("submit", (e) => { e.preventDefault(); act("/api/players", { csv: $("csv").value }); });
$("settingsform").addEventListener("submit", (e) => {
  e.preventDefault();
  const body = { tiebreak: $("stiebreak").value, auto_confirm: $("sauto").checked, colours: $("scolours").value };
  if ($("srounds").value) body.rounds = Number($("srounds").value);
  act("/api/settings", body);
});
async function loadPlayers() { // the arbiter's list of players (by standing), for withdrawals and byes
  const r = await fetch("/standings.json", { cache: "no-store" });
  if (!r.ok) return;
  const keep = $("eplayer").value;
  $("eplayer").innerHTML = (await r.json()).map((p) => `<option value="${p.id}">${esc(p.name)}${p.withdrawn ? ` (${esc(t("withdrawn"))})` : ""}</option>`).join("");
  if (keep) $("eplayer").value = keep;
}
$("eplayer").addEventListener("focus", loadPlayers);
$("playeredit").addEventListener("click", async (e) => {
  const b = e.target.closest("button[data-player]");
  if (!b || !state) return;
  const id = Number($("eplayer").value);
  if (!id) return;
  const what = b.dataset.player;
  const ok = what === "withdraw" ? await act("/api/player", { id, withdrawn: true })
    : what === "reinstate" ? await act("/api/player", { id, withdrawn: null })
    : await act("/api/bye", { player: id, round: state.round + 1, result: what });
  if (ok) loadPlayers();
});
$("repair").addEventListener("click", () => { if (state && state.round) act("/api/unpair", { round: state.round }); });
$("lang").addEventListener("change", (e) => {
  lang = e.target.value;
  localStorage.setItem("hall-lang", lang);
  if (params.has("lang")) { // a link's ?lang= would win again at the next reload
    params.set("lang", lang);
    history.replaceState(null, "", `${location.pathname}?${params}`);
  }
  loadLanguage();
});
setInterval(tick, 200);
loadLanguage().then(poll);
if (token) loadPlayers();
