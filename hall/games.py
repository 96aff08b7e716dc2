"""One board's game as the hall rebuilds it from the board's messages (see ``damas/hall_link/publish.py``).

Messages are folded in sequence order; one that comes early (a gap before it) waits in
``pending`` until the missing ones arrive. Each is checked against the game before it takes its
number (:meth:`HallGame.check`: a move legal in the position, a step that continues the record, a
start only first...): a message that cannot follow the game changes nothing and leaves its number
free for the board's own. The PDN is written by the same writer the board's export uses, from the
same tags, set-ups, moves, comments and result, so the two are equal.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from hall.validate import BadMessage
from rules import DraughtsError, Move, Position, find_variant
from rules.pdn import PdnGame, PdnMove, PdnTagError, check_tag

MAX_STEPS = 4000  # moves and set-ups of one game (a long game has a few hundred)
MAX_REPORTS = 100  # the referee's reports kept per game (the latest)
MAX_AHEAD = 1000  # how far past the next message one may come early (behind a gap)
MAX_CANDIDATES = 3  # different messages kept for one number that has not come in order yet
_REVISIONS = itertools.count(1)  # (every change of every game takes the next: no two are alike)


@dataclass
class Offered:
    """What offering a message to a game did."""

    folded: list[dict[str, Any]] = field(default_factory=list)  # in order: the hall stores these
    refused: list[tuple[int, str]] = field(default_factory=list)  # (seq, why): never folded, nothing kept
    conflicts: list[int] = field(default_factory=list)  # numbers that came with two different messages
    duplicate: bool = False


@dataclass
class HallGame:
    board: str
    game: int
    next_seq: int = 0  # every message before this one has been folded
    pending: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # early messages, by number
    variant: str | None = None
    start: Position | None = None
    mode: str = "casual"
    tags: dict[str, str] = field(default_factory=dict)
    intro: list[str] = field(default_factory=list)
    steps: list[tuple[str, Any, list[str], str]] = field(default_factory=list)  # (kind, Move|Position, comments, text)
    times: list[float | None] = field(default_factory=list)
    clock: dict[str, float] = field(default_factory=lambda: {"white": 0.0, "black": 0.0})
    result: str = "*"
    termination: str | None = None
    reports: list[dict[str, Any]] = field(default_factory=list)
    started: float | None = None
    last_t: float | None = None
    error: str | None = None  # a message that could not be folded: the game is out of sync
    seen_at: float | None = None  # when the hall got the last move (the clock of the side to move runs on)
    control: str | None = None  # the game clock's time control (None: the game has no clock)
    face: dict[str, Any] | None = None  # the clocks as the board last said: seconds left, whose runs, paused...
    face_t: float | None = None  # the board's time of ``face``
    uid: str | None = None  # ``<db>-<game>`` as its start said (None: a board from before the uids)
    rev: int = field(default_factory=lambda: next(_REVISIONS))  # changes with anything the page shows
    _pos: Position | None = None  # the position after the steps (cached until the next fold)
    _before: Position | None = None  # the position before the last move (a withdrawn move goes back to it)

    @property
    def key(self) -> str:
        return f"{self.board}-{self.game}"

    @property
    def gap(self) -> bool:
        return bool(self.pending)

    def add(self, msg: dict[str, Any]) -> bool:
        """Take a message (checked; a duplicate or a refused one changes nothing); True when the
        game changed."""
        return bool(self.offer(msg).folded)

    def offer(self, msg: dict[str, Any], *, first: bool = False) -> Offered:
        """Take a message for its number: folded now if it is the next one (and everything waiting
        behind it), else kept until the gap before it fills. ``first``: it comes before any other
        message with its number (the board's answer to a resync)."""
        out = Offered()
        seq = msg.get("seq")
        if not isinstance(seq, int) or seq < self.next_seq:
            out.duplicate = True
            return out
        if seq > self.next_seq + MAX_AHEAD:
            out.refused.append((seq, f"message {seq} is too far ahead of message {self.next_seq}"))
            return out
        waiting = self.pending.setdefault(seq, [])
        if msg in waiting:
            if not first or waiting[0] == msg:
                out.duplicate = True
                return out
            waiting.remove(msg)
        if first:
            waiting.insert(0, msg)
        elif len(waiting) < MAX_CANDIDATES:
            waiting.append(msg)
        else:
            out.refused.append((seq, f"more than {MAX_CANDIDATES} different messages numbered {seq}"))
        self.touch()
        while self.next_seq in self.pending:
            candidates = self.pending.pop(self.next_seq)
            chosen = None
            for m in candidates:
                try:
                    parsed = self.check(m)
                except BadMessage as exc:
                    out.refused.append((self.next_seq, str(exc)))
                    continue
                if chosen is None:
                    self._apply(m, parsed)
                    chosen = m
                elif m != chosen:
                    out.conflicts.append(self.next_seq)
            if chosen is None:
                break  # nothing that can follow the game: the number stays free for the board's own
            out.folded.append(chosen)
            self.next_seq += 1
        return out

    def touch(self) -> None:
        """Note a change (what the hall's page shows of the game is built again)."""
        self.rev = next(_REVISIONS)

    def position(self) -> Position:
        if self._pos is None:
            pos = self.start or Position.start(self.variant or "brazilian")
            for kind, what, _c, _t in self.steps:
                pos = what if kind == "setup" else pos.apply(what)
            self._pos = pos
        return self._pos

    def check(self, m: dict[str, Any]) -> Any:
        """Can ``m`` (its fields already checked: ``hall.validate.message``) follow the game as
        it stands? :class:`BadMessage` if not; else what folding it needs (the move parsed in the
        position, a set-up's or the start's position)."""
        kind = m["type"]
        try:
            if kind == "start":
                if m["seq"] != 0:
                    raise BadMessage(f"a start as message {m['seq']} (a game starts with message 0)")
                variant = find_variant(m["variant"]).name
                return Position.from_fen(m["fen"], variant) if m.get("fen") else Position.start(variant)
            if self.variant is None:
                raise BadMessage("a message before the game's start")
            if kind in ("move", "setup"):
                if m["step"] != len(self.steps):
                    raise BadMessage(f"step {m['step']} does not follow the {len(self.steps)} steps known")
                if len(self.steps) >= MAX_STEPS:
                    raise BadMessage(f"more than {MAX_STEPS} steps")
                if kind == "setup":
                    return Position.from_fen(str(m["fen"]), self.variant)
                return self.position().parse_pdn(str(m["path"]))
            if kind == "undo" and not 0 <= m["steps"] < len(self.steps):
                raise BadMessage(f"undo to {m['steps']} steps of the {len(self.steps)} known")
        except DraughtsError as exc:
            raise BadMessage(str(exc)) from None
        return None

    def _apply(self, m: dict[str, Any], parsed: Any) -> None:
        """Fold a message that :meth:`check` passed (nothing here can fail)."""
        kind = m["type"]
        if kind == "start":
            self._pos = self._before = None
            self.variant = parsed.variant.name
            self.start = parsed
            self.mode = str(m.get("mode") or "casual")
            self.tags = dict(m["tags"])
            self.intro = list(m.get("intro", []))
            self.started = m.get("started")
            self.uid = m.get("uid")
            self.steps, self.times = [], []
            self.control = str(m["control"]) if m.get("control") else None
            self.face, self.face_t = None, None
            if self.control is not None:
                self._set_face(m.get("clocks") or {}, None)
        elif kind == "move":
            pos = self.position()
            after = pos.apply(parsed)
            self.steps.append(("move", parsed, list(m.get("comments", [])), str(m.get("move") or "")))
            self._pos, self._before = after, pos
            self.times.append(m.get("t"))
            if isinstance(m.get("clock"), dict):
                self.clock = {k: float(m["clock"].get(k) or 0.0) for k in ("white", "black")}
            if m.get("t") is not None:
                self.last_t = float(m["t"])
            if m.get("control"):
                self.control = str(m["control"])
            if isinstance(m.get("clocks"), dict) and self.control is not None:  # the faces after the move
                self._set_face(m["clocks"], m.get("t"))
        elif kind == "clock":  # pressed, paused, resumed, set by the arbiter, a flag, stopped
            if m.get("control"):
                self.control = str(m["control"])
            self._set_face(m, m.get("t"))
        elif kind == "setup":
            self.steps.append(("setup", parsed, [], ""))
            self._pos = self._before = None
        elif kind == "undo":
            self._cut(int(m["steps"]))
        elif kind == "tags":
            self.tags = dict(m["tags"])
            self.intro = list(m.get("intro", []))
        elif kind == "result":
            self.result = str(m["result"])
            self.termination = m.get("termination")
        elif kind == "report":
            self.reports.append({k: m.get(k) for k in ("kind", "message", "squares", "t", "texts")})
            del self.reports[:-MAX_REPORTS]
            if m.get("t") is not None:
                self.last_t = float(m["t"])

    def _set_face(self, m: dict[str, Any], t: Any) -> None:
        old = self.face or {}
        running = m.get("running", old.get("running"))
        face = {
            "white": float(m.get("white", old.get("white", 0.0))),
            "black": float(m.get("black", old.get("black", 0.0))),
            "running": running if running in ("white", "black") else None,
            "paused": bool(m.get("paused", old.get("paused", False))),
            "paused_by": m.get("paused_by", old.get("paused_by")),
            "flag": m.get("flag", old.get("flag")),
            "stopped": bool(m.get("stopped", old.get("stopped", False))),
        }
        face["ticking"] = bool(m.get("ticking", face["running"] is not None and not face["paused"]))
        self.face = face
        self.face_t = float(t) if isinstance(t, int | float) else None

    def faces(self, now: float) -> dict[str, Any] | None:
        """The clocks at the hall's time ``now``: the running side's counts down from the board's
        last word (from when the board said it, or when the hall heard it if the board's time is
        ahead of the hall's); frozen while paused, after a flag and at the end. None: no clock."""
        if self.control is None or self.face is None:
            return None
        f = dict(self.face)
        over = self.result != "*" or f["stopped"] or f["flag"] is not None
        f["ticking"] = bool(f["ticking"] and not f["paused"] and not over and f["running"])
        if f["ticking"]:
            ref = self.face_t if self.face_t is not None else self.seen_at
            if ref is not None and self.seen_at is not None:
                ref = min(ref, self.seen_at)
            side = str(f["running"])
            f[side] = max(0.0, f[side] - max(0.0, now - ref)) if ref is not None else f[side]
        f["control"] = self.control
        return f

    def _cut(self, steps: int) -> None:
        if not 0 <= steps <= len(self.steps):
            raise ValueError(f"step {steps} is beyond the {len(self.steps)} steps known")
        if steps < len(self.steps):
            last = steps == len(self.steps) - 1 and self.steps[-1][0] == "move" and self._pos is not None
            # (the last move withdrawn, or sent again with its clock: no replay from the start)
            self._pos, self._before = (self._before, None) if last else (None, None)
        kept_moves = sum(1 for s in self.steps[:steps] if s[0] == "move")
        del self.steps[steps:]
        del self.times[kept_moves:]

    @property
    def plies(self) -> int:
        return sum(1 for s in self.steps if s[0] == "move")

    def last_move(self) -> str | None:
        for kind, _w, _c, text in reversed(self.steps):
            if kind == "move":
                return str(text)
        return None

    def pdn_game(self) -> PdnGame:
        """The game for the PDN writer. A tag the writer refuses is left out (a database from
        before the hall checked tags), and a brace in a comment is written as a parenthesis, as
        the board's export does: no comment can close itself and start a tag or a game."""
        variant = find_variant(self.variant or "brazilian")
        tags = {}
        for key, value in self.tags.items():
            try:
                check_tag(key, value)
            except PdnTagError:
                continue
            tags[key] = value
        pg = PdnGame(variant, tags, self.start, intro=[_comment(c) for c in self.intro])
        for kind, what, comments, _t in self.steps:
            if kind == "setup":
                pg.setups[len(pg.moves)] = what
            else:
                pg.moves.append(PdnMove(what, comments=[_comment(c) for c in comments]))
        pg.result = self.result
        return pg

    def pdn(self) -> str:
        return self.pdn_game().pdn()

    # -- the hall's snapshot of the game (hall.store: kept with each message, read on a restart) --
    def to_json(self) -> dict[str, Any]:
        """Everything the game is now, for a restart without replaying its messages."""
        steps: list[list[Any]] = []
        for kind, what, comments, text in self.steps:
            if kind == "setup":
                steps.append(["setup", what.fen()])
            else:
                steps.append(["move", list(what.path), list(what.captured), what.promotes, comments, text])
        return {
            "v": 2,
            "next_seq": self.next_seq,
            "pending": {str(k): v for k, v in self.pending.items()},
            "variant": self.variant,
            "start": None if self.start is None else self.start.fen(),
            "position": None if self.variant is None else self.position().fen(),
            "mode": self.mode,
            "tags": self.tags,
            "intro": self.intro,
            "steps": steps,
            "times": self.times,
            "clock": self.clock,
            "result": self.result,
            "termination": self.termination,
            "reports": self.reports,
            "started": self.started,
            "last_t": self.last_t,
            "error": self.error,
            "seen_at": self.seen_at,
            "control": self.control,
            "face": self.face,
            "face_t": self.face_t,
            "uid": self.uid,
        }

    @classmethod
    def from_json(cls, board: str, game: int, d: dict[str, Any]) -> HallGame:
        """A game from its snapshot (:meth:`to_json`): no move is parsed or replayed."""
        g = cls(board, game, next_seq=int(d["next_seq"]))
        old = d.get("v") == 1  # (one early message per number then)
        g.pending = {int(k): [v] if old else list(v) for k, v in d["pending"].items()}
        g.variant = d["variant"]
        if g.variant is not None:
            g.start = Position.from_fen(d["start"], g.variant) if d["start"] else None
            for step in d["steps"]:
                if step[0] == "setup":
                    g.steps.append(("setup", Position.from_fen(step[1], g.variant), [], ""))
                else:
                    move = Move(tuple(step[1]), tuple(step[2]), bool(step[3]))
                    g.steps.append(("move", move, list(step[4]), str(step[5])))
            if d.get("position"):
                g._pos = Position.from_fen(d["position"], g.variant)
        g.mode, g.tags, g.intro = d["mode"], d["tags"], d["intro"]
        g.times, g.clock, g.result, g.termination = d["times"], d["clock"], d["result"], d["termination"]
        g.reports, g.started, g.last_t, g.error = d["reports"], d["started"], d["last_t"], d["error"]
        g.seen_at, g.control, g.face, g.face_t = d["seen_at"], d["control"], d["face"], d["face_t"]
        g.uid = d.get("uid")  # (a snapshot from before the uids has none)
        return g


def _comment(text: str) -> str:
    """A comment as PDN can hold it: braces (which would end it early) as parentheses."""
    return text.translate(_BRACES) if "{" in text or "}" in text else text


_BRACES = {ord("{"): "(", ord("}"): ")"}
