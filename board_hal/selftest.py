"""The self-test: every LED in turn, then a piece on every square in turn.

It finds dead sensors (a piece placed, nothing seen), stuck sensors (occupied on an
empty board) and a mis-set orientation: when the cells that answered are exactly those
another rotation / White side would give, it says so::

    square 1 answered at cell h8: is the board rotated 180°?

Wiring mistakes get one line each: two rows (or columns) swapped, a chip none of whose
cells answers (a dead MCP23017, a 74HC165 that cuts off the rest of its chain; backends
name their chips or wires through ``wiring_groups()``), and a LED strip laid differently from its
configuration (a LED backend with ``explain()``: a few LEDs are lit and a piece put on
each lit square shows where they really are)::

    rows 3 and 4 are swapped: a3 answers at a4 and back (check GPIO 27 and GPIO 22)
    74HC165 #3 and every chip after it answer nothing (cells a3-h8): check #3's power and its QH
    the LED strip runs the other way: its first LED is at a8, not a1 (set ws2812.first = "a8", ...)

On a board that senses colour (and crowns), a **placement check** comes first: a white man,
a black man (and a white and a black king) on named squares. It confirms or corrects how
the board numbers its squares (a backend with ``explain_placement()``: the DGT board's
field numbering) and how it codes its pieces (``explain_pieces()``: DGT's piece codes), and
finds a magnet the other way up::

    the white man put on square 50 reads black: its magnet is the other way up (white pieces north up)
    the DGT board numbers its fields from j1 along columns: set dgt.first = "j1", dgt.along = "columns"

Then the square-by-square pass asks for a white man each time and names a square whose
sensor reads it as black (a sensor mounted the other way up, or its two switches swapped).

The dialogue goes through one callback (``ask``) that receives a :class:`Prompt`; the
command line prints it and the user acts, tests act on the simulated board.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from board_hal.backends import BoardIO
from board_hal.layout import ROTATIONS, WHITE_SIDES, Cell, Layout, cell_name
from board_hal.leds import Role
from board_hal.squares import Sensing, SquareState


@dataclass(frozen=True)
class Prompt:
    kind: str  # clear | leds | place | lift | point (put a piece on the lit square) | done
    text: str
    square: int | None = None
    cell: Cell | None = None
    piece: SquareState | None = None  # which piece to put down (boards that sense colour)
    cells: tuple[Cell, ...] = ()  # the LEDs lit while the question is asked (a group narrowed down)


@dataclass
class SelfTestResult:
    stuck: list[Cell] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)  # squares whose sensor never answered
    misplaced: dict[int, Cell] = field(default_factory=dict)  # square -> cell that answered instead
    confirmed: list[int] = field(default_factory=list)
    orientation: str | None = None  # a suggestion when the answers fit another layout
    leds_ok: bool | None = None
    dead_leds: list[Cell] = field(default_factory=list)  # LEDs that do not light (narrowed down by halves)
    wiring: list[str] = field(default_factory=list)  # wiring mistakes found (swapped lines, dead chips)
    led_order: str | None = None  # how the LEDs really lie, when not as configured
    numbering: str | None = None  # how the board really numbers its squares, when not as configured
    pieces: list[str] = field(default_factory=list)  # pieces read as another (a magnet the other way up...)
    fields: dict[SquareState, int] = field(default_factory=dict)  # each piece's field reading, where reported
    messages: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        problems = self.stuck or self.dead or self.misplaced or self.led_order or self.numbering or self.pieces
        return not problems and self.leds_ok is not False


class SelfTest:
    def __init__(
        self,
        io: BoardIO,
        ask: Callable[[Prompt], bool | None],
        *,
        timeout: float = 30.0,
        led_step: float = 0.1,
        sleep: Callable[[float], None] = time.sleep,
        squares: list[int] | None = None,
    ) -> None:
        self.io = io
        self.layout = io.layout
        self.ask = ask
        self.timeout = timeout
        self.led_step = led_step
        self.sleep = sleep
        self.squares = squares if squares is not None else list(self.layout.geometry.squares())

    def _name(self, sq: int) -> str:
        geo = self.layout.geometry
        return f"{sq} ({geo.square_name(sq)})"

    def _wait(self, want: bool) -> Cell | None:
        """The first cell that changes to ``want`` (placed / lifted) within the timeout."""
        got = self._wait_piece(want)
        return None if got is None else got[0]

    def _wait_piece(self, want: bool) -> tuple[Cell, SquareState | None] | None:
        """The first cell that changes to ``want`` within the timeout, and what it reads then."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            for tr in self.io.poll(timeout=min(left, 0.2)):
                if tr.occupied == want:
                    return self.layout.cell_of_key(tr.key), tr.piece

    def run(self) -> SelfTestResult:
        res = SelfTestResult()
        lay = self.layout
        # 1. an empty board: whatever still reads occupied is stuck
        self.ask(Prompt("clear", "take every piece off the board"))
        self.io.poll()
        res.stuck = sorted(self.io.sensors.snapshot())
        for cell in res.stuck:
            res.messages.append(f"sensor at cell {cell_name(cell)} reads occupied on an empty board (stuck)")
        # 2. every LED in turn
        if self.io.leds is not None:
            self.ask(Prompt("leds", "watch the board: every square lights up in turn"))
            for cell in lay.cells():
                self.io.leds.show({cell: Role.TEST})
                self.sleep(self.led_step)
            self.io.leds.show({})
            answer = self.ask(Prompt("leds", "did every square light up? (y/n)"))
            res.leds_ok = None if answer is None else bool(answer)
            if res.leds_ok is False:
                res.dead_leds = sorted(self._dead_leds(lay.cells()))
                if len(res.dead_leds) == len(lay.cells()):
                    res.messages.append("no LED lights: check the LED chain's power and data (hardware/wiring.md)")
                elif res.dead_leds:
                    res.messages += [f"the LED at cell {cell_name(c)} does not light" for c in res.dead_leds]
                else:
                    res.messages.append("some LEDs did not light: check the LED chain (hardware/wiring.md)")
        # 3. a board that senses colour: a piece of each kind on a named square
        colour = self.io.senses > Sensing.PRESENCE
        if colour:
            self._placement(res)
        # 4. a piece on every square in turn
        self.io.poll()
        wrong: list[int] = []  # squares that read the white man as black
        for sq in self.squares:
            expected = lay.cell_of(sq)
            if expected in res.stuck:
                continue
            what = "a white man" if colour else "a piece"
            piece = SquareState.WHITE_MAN if colour else None
            self.ask(Prompt("place", f"put {what} on square {self._name(sq)}", sq, expected, piece))
            placed = self._wait_piece(True)
            if placed is None:
                res.dead.append(sq)
                continue
            got, read = placed
            if got != expected:
                res.misplaced[sq] = got
            else:
                res.confirmed.append(sq)
            if colour and read is not None and read.colour == "black":
                wrong.append(sq)
            self.ask(Prompt("lift", f"take the piece off square {self._name(sq)}", sq, got))
            self._wait(False)
        if wrong and not res.pieces and len(wrong) < len(res.confirmed):
            for sq in wrong:
                res.pieces.append(
                    f"square {self._name(sq)} reads the white man as black: its sensor is mounted the other way up "
                    "(or its two switches are swapped)"
                )
            res.messages.extend(res.pieces)
        self._dead(res)
        # 5. orientation, or wires swapped
        swaps: list[str] = []
        if res.misplaced:
            res.orientation = self._orientation(res)
            swaps = [] if res.orientation else self._swaps(res)
            res.wiring.extend(swaps)
            res.messages.extend(swaps)
        if res.misplaced and not swaps:
            first = next(iter(res.misplaced))
            text = f"square {first} answered at cell {cell_name(res.misplaced[first])}"
            if res.orientation:
                text += f": {res.orientation}"
            res.messages.append(text)
            for sq, cell in list(res.misplaced.items())[1:]:
                res.messages.append(f"square {sq} answered at cell {cell_name(cell)}")
        # 6. where the LEDs really are (a strip laid another way than configured)
        explain = getattr(self.io.leds, "explain", None)
        if explain is not None and not res.stuck and not res.dead and not res.misplaced:
            self._led_order(res, explain)
        self.ask(Prompt("done", "self-test passed" if res.ok else "self-test found problems"))
        return res

    def _dead_leds(self, cells: list[Cell]) -> list[Cell]:
        """The LEDs among ``cells`` (a group that did not all light) that do not light: each half
        lit at once, and asked about; a half that did not all light is halved again (a dead LED
        in 64 takes about a dozen answers). An unanswered question ends the search."""
        assert self.io.leds is not None
        if len(cells) == 1:
            return list(cells)
        out: list[Cell] = []
        for half in (cells[: len(cells) // 2], cells[len(cells) // 2 :]):
            self.io.leds.show(dict.fromkeys(half, Role.TEST))
            question = f"did every lit square light up ({_span(half)})? (y/n)"
            answer = self.ask(Prompt("leds", question, cells=tuple(half)))
            self.io.leds.show({})
            if answer is None:
                return out
            if not answer:
                out += self._dead_leds(half)
        return out

    def _placement(self, res: SelfTestResult) -> None:
        """A white man, a black man (and two kings, if crowns are sensed) on named squares: how
        the board numbers its squares and codes its pieces, and magnets the other way up."""
        lay = self.layout
        squares = sorted(lay.geometry.squares())
        n = len(squares)
        kinds = [(SquareState.WHITE_MAN, squares[-1]), (SquareState.BLACK_MAN, squares[0])]
        if self.io.senses >= Sensing.CROWN:
            kinds += [(SquareState.WHITE_KING, squares[n // 2 - 2]), (SquareState.BLACK_KING, squares[n // 2 + 3])]
        names = {
            SquareState.WHITE_MAN: "a white man",
            SquareState.BLACK_MAN: "a black man",
            SquareState.WHITE_KING: "a white king (a man with a crown)",
            SquareState.BLACK_KING: "a black king (a man with a crown)",
        }
        self.io.poll()
        cells: dict[Cell, Cell] = {}
        read: dict[SquareState, tuple[int, SquareState]] = {}
        for piece, sq in kinds:
            expected = lay.cell_of(sq)
            self.ask(Prompt("place", f"put {names[piece]} on square {self._name(sq)}", sq, expected, piece))
            answer = self._wait_piece(True)
            if answer is None:
                res.messages.append(f"square {self._name(sq)}: no answer to {names[piece]}: placement check stopped")
                return
            got, state = answer
            cells[expected] = got
            if state is not None:
                read[piece] = (sq, state)
            fields = getattr(self.io.sensors, "fields", None)  # a board that reports field strengths
            if fields is not None and got is not None:
                strengths = fields()
                if strengths and got in strengths:
                    res.fields[piece] = strengths[got]
            self.ask(Prompt("lift", f"take it off square {self._name(sq)}", sq, got))
            self._wait(False)
        sensors = self.io.sensors
        explain = getattr(sensors, "explain_placement", None)
        if res.fields:
            men = [abs(v) for p, v in res.fields.items() if not p.king]
            kings = [abs(v) for p, v in res.fields.items() if p.king]
            if men and kings and min(kings) > max(men):
                advice = f"set pico.king = {(max(men) + min(kings)) // 2}: halfway between its men and its kings"
            elif men and kings:
                advice = "a king reads no stronger than a man: is its crown's magnet missing, or the other way up?"
            else:
                advice = "a linear board's thresholds go between its men and its kings: pico.present, pico.king"
            readings = ", ".join(f"{_piece_name(p)} {v:+d}" for p, v in res.fields.items())
            res.messages.append(f"field readings: {readings} ({advice})")
        if explain is not None and any(e != g for e, g in cells.items()):
            res.numbering = explain(cells)
            if res.numbering:
                res.messages.append(res.numbering)
        self._pieces_read(res, read)

    def _pieces_read(self, res: SelfTestResult, read: dict[SquareState, tuple[int, SquareState]]) -> None:
        """What each known piece read as: codes to set, or a magnet the other way up."""
        senses = self.io.senses
        code_of = getattr(self.io.sensors, "code_of", None)
        explain = getattr(self.io.sensors, "explain_pieces", None)
        if explain is not None and code_of is not None and all(s.colour for _, s in read.values()):
            text = explain({p: code_of(s) for p, (_, s) in read.items()})
            if text:
                res.pieces.append(text)
                res.messages.append(text)
                return
        reversed_ = [p for p, (_, s) in read.items() if s.colour is not None and s.colour != p.colour]
        if reversed_ and len(reversed_) == len(read):
            res.pieces.append(
                "every piece reads the other colour: the magnets are all the other way up, or the board's "
                "poles are swapped (white pieces north up)"
            )
        else:
            for p in reversed_:
                sq, s = read[p]
                res.pieces.append(
                    f"the {_piece_name(p)} put on square {self._name(sq)} reads {s.colour}: its magnet is the other "
                    f"way up ({p.colour} pieces {'north' if p.colour == 'white' else 'south'} up)"
                )
        for p, (sq, s) in read.items():
            if s is SquareState.OCCUPIED:
                res.pieces.append(
                    f"the {_piece_name(p)} put on square {self._name(sq)} was seen, but not its colour: "
                    "a weak magnet, or too far from the sensor"
                )
            elif senses >= Sensing.CROWN and s.colour == p.colour and s.king != p.king:
                what = "as a man: its crown is not sensed" if p.king else "as a king: a second magnet under it?"
                res.pieces.append(f"the {_piece_name(p)} put on square {self._name(sq)} reads {what}")
        res.messages.extend(res.pieces)

    def _dead(self, res: SelfTestResult) -> None:
        """One line per dead square, or one per chip none of whose cells answered (on a chain
        of shift registers, a dead chip silences every chip after it: one line for them all)."""
        lay = self.layout
        dead = {lay.cell_of(sq) for sq in res.dead}
        tested = {lay.cell_of(sq) for sq in self.squares} - set(res.stuck)
        wiring_groups = getattr(self.io.sensors, "wiring_groups", None)
        explained: set[Cell] = set()
        if wiring_groups is not None and dead:
            groups = wiring_groups()
            silent = [i for i, (_, cells, _) in enumerate(groups) if (t := tested & set(cells)) and t <= dead]
            if getattr(self.io.sensors, "chain", False) and silent and silent == list(range(silent[0], len(groups))):
                name, _, _ = groups[silent[0]]
                cells = [c for _, cs, _ in groups[silent[0] :] for c in cs]
                after = " and every chip after it" if silent[0] < len(groups) - 1 else ""
                res.wiring.append(
                    f"{name}{after} answer nothing (cells {_span(cells)}): check {name}'s power, "
                    f"and its QH to the chip before it"
                )
                explained.update(cells)
            else:
                for i in silent:
                    name, cells, hint = groups[i]
                    res.wiring.append(f"no cell on {name} answers (cells {_span(cells)}): {hint}")
                    explained.update(cells)
            res.messages.extend(res.wiring)
        for sq in res.dead:
            cell = lay.cell_of(sq)
            if cell not in explained:
                res.messages.append(f"square {self._name(sq)}: no answer (dead sensor at cell {cell_name(cell)}?)")

    def _swaps(self, res: SelfTestResult) -> list[str]:
        """Two rows (or columns) of the wiring exchanged: each misplaced piece answered on
        the same column (row) of the other line, and the other line's pieces on this one."""
        lay = self.layout
        pairs = {lay.cell_of(sq): got for sq, got in res.misplaced.items()}
        for axis, name in ((0, "rows"), (1, "columns")):
            other = 1 - axis
            if not all(e[other] == g[other] for e, g in pairs.items()):
                continue
            lines: dict[int, int] = {}
            if any(lines.setdefault(e[axis], g[axis]) != g[axis] for e, g in pairs.items()):
                continue
            if not all(lines.get(b, a) == a for a, b in lines.items()):
                continue
            out = []
            for a, b in sorted(lines.items()):
                if a > b:
                    continue
                ea = next(e for e in pairs if e[axis] == a)
                eb = (b, ea[1]) if axis == 0 else (ea[0], b)
                text = f"{name} {_line(axis, a)} and {_line(axis, b)} are swapped: {cell_name(ea)} answers at"
                text += f" {cell_name(eb)} and back"
                hint = self._line_wiring(name, a, b, ea, eb)
                out.append(text + (f" (check {hint})" if hint else ""))
            return out
        return []

    def _line_wiring(self, name: str, a: int, b: int, ea: Cell, eb: Cell) -> str | None:
        sensors = self.io.sensors
        lines = getattr(sensors, "line_wiring", None)
        if lines is not None:
            wa, wb = lines(name, a), lines(name, b)
            return f"{wa} and {wb}" if wa and wb else None
        wiring = getattr(sensors, "wiring", None)
        if wiring is not None:
            wa, wb = wiring(ea), wiring(eb)
            return f"{cell_name(ea)} on {wa}, {cell_name(eb)} on {wb}" if wa and wb else None
        return None

    def _led_order(self, res: SelfTestResult, explain: Callable[[dict[Cell, Cell]], str | None]) -> None:
        """Light the LEDs meant for a few cells; a piece on each lit square says where it is."""
        leds = self.io.leds
        assert leds is not None
        probes = getattr(leds, "probes", None)
        cells = [c for c in (probes() if probes is not None else []) if c not in res.dead_leds]  # (a dark LED: no)
        seen: dict[Cell, Cell] = {}
        self.io.poll()
        for cell in cells:
            leds.show({cell: Role.TEST})
            answer = self.ask(Prompt("point", "put a piece on the lit square", cell=cell))
            if answer is False:  # nobody here can see the LEDs (the simulated hands)
                break
            got = self._wait(True)
            if got is None:
                res.messages.append("no piece on the lit square: the LEDs' order was not checked")
                break
            seen[cell] = got
            self.ask(Prompt("lift", "take the piece off", None, got))
            self._wait(False)
        leds.show({})
        if seen:
            res.led_order = explain(seen)
            if res.led_order:
                res.messages.append(res.led_order)

    def _orientation(self, res: SelfTestResult) -> str | None:
        answers = {sq: res.misplaced.get(sq, self.layout.cell_of(sq)) for sq in res.confirmed + list(res.misplaced)}
        lay = self.layout
        sides = (lay.white_side, *(s for s in WHITE_SIDES if s != lay.white_side))
        for side in sides:
            for rotation in ROTATIONS:
                alt = Layout(lay.variant_name, rotation, side)
                if alt == lay:
                    continue
                if all(alt.cell_of(sq) == cell for sq, cell in answers.items()):
                    turn = (alt.turns - lay.turns) % 4 * 90
                    return (
                        f'is the board rotated {turn}°? (set board.rotation = {rotation}, board.white_side = "{side}")'
                    )
        return None


def _piece_name(p: SquareState) -> str:
    return f"{p.colour} {'king' if p.king else 'man'}"


def _line(axis: int, index: int) -> str:
    """A row by its number, a column by its letter (as cells are named)."""
    return str(index + 1) if axis == 0 else "abcdefghij"[index]


def _span(cells: list[Cell]) -> str:
    """Cells for a message: the first and the last of them, in reading order."""
    ordered = sorted(cells)
    if len(ordered) <= 2:
        return ", ".join(cell_name(c) for c in ordered)
    return f"{cell_name(ordered[0])}-{cell_name(ordered[-1])}"
