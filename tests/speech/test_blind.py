"""A blind player's game: simulated hands play a whole game on the simulated board knowing only
what the board said (Brazilian Portuguese, as the voice says it: "cê3 toma é5").

The hands keep the position in mind from what they hear: a read-out at the start gives the
pieces; each move said ("Pretas: éfe6 toma dê4.") moves a piece in mind, and the pieces it
jumped (the one opponent piece on each diagonal jump, as a player reasons) come off; "vira
dama" crowns it. To move, they take the pieces the board says must capture, or any of their own,
lift one and hold it: the board says where it can go, and they play the first way it names,
touching down on every landing square said, then take off what the board tells them to. Once
they put a piece where the board did not offer, hear what is wrong and put it right as told;
in the middle of the game they ask for a read-out and check the position they keep in mind
against it. The game ends when the board says so.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from tests.speech.table import Table
from wording.speech import LETTERS

#: the letter names a Portuguese voice says, back to the letters
NAMES = {name: letter for letter, name in LETTERS["pt-BR"].items()}
SQUARE = re.compile("(" + "|".join(sorted(NAMES, key=len, reverse=True)) + r")(\d)")
MAX_PLIES = 300


def squares_in(text: str) -> list[str]:
    """The squares a phrase names, in order (``cê3`` -> ``c3``)."""
    return [NAMES[m.group(1)] + m.group(2) for m in SQUARE.finditer(text)]


def between(a: str, b: str) -> list[str]:
    """The squares strictly between two squares of one diagonal."""
    fa, ra, fb, rb = ord(a[0]), int(a[1]), ord(b[0]), int(b[1])
    df, dr = (fb > fa) - (fb < fa), (rb > ra) - (rb < ra)
    assert abs(fb - fa) == abs(rb - ra), (a, b)
    return [chr(fa + i * df) + str(ra + i * dr) for i in range(1, abs(fb - fa))]


class Mind:
    """The position as the player keeps it: square -> (side, king)."""

    def __init__(self) -> None:
        self.pieces: dict[str, tuple[str, bool]] = {}
        self.turn = "brancas"

    def read(self, text: str) -> None:
        """A read-out: every piece of each side, and whose turn."""
        self.pieces = {}
        self.turn = "brancas" if text.startswith("Vez das brancas") else "pretas"
        for side in ("Brancas", "Pretas"):
            part = re.search(side + r": ([^.]*)\.", text)
            assert part is not None, text
            for group in part.group(1).split("; "):
                king = " dama" in group
                for name in squares_in(group):
                    self.pieces[name] = (side.lower(), king)

    def heard_move(self, text: str) -> bool:
        """A move said: True when it was one."""
        m = re.match(r"(Brancas|Pretas): (.*)\.$", text)
        if m is None or not SQUARE.match(m.group(2)):
            return False
        side = m.group(1).lower()
        path = squares_in(m.group(2))
        piece = self.pieces.pop(path[0])
        assert piece[0] == side, (text, piece)
        if " toma " in m.group(2):
            for a, b in itertools.pairwise(path):
                jumped = [q for q in between(a, b) if q in self.pieces]
                assert len(jumped) == 1 and self.pieces[jumped[0]][0] != side, (text, jumped)
                del self.pieces[jumped[0]]
        self.pieces[path[-1]] = (side, piece[1] or "vira dama" in text)
        self.turn = "pretas" if side == "brancas" else "brancas"
        return True


class BlindHands:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.mind = Mind()
        self.heard: list[str] = []
        self.must: list[str] = []  # the pieces the board said must capture
        self.over = False

    def listen(self) -> list[str]:
        new = self.table.new()
        self.heard += new
        for text in new:
            if self.mind.heard_move(text):
                self.must = []
            if text.startswith("Captura obrigatória para as"):
                self.must = squares_in(text.split(".")[0])
            if text.startswith("Fim da partida"):
                self.over = True
        return new

    def read_out(self) -> str:
        self.table.read_out()
        (text,) = [t for t in self.listen() if t.startswith("Vez das")]
        return text

    def choose(self) -> tuple[str, list[list[str]]]:
        """Lift pieces until one can move: its square and the ways the board names."""
        side = self.mind.turn
        own = self.must or sorted((q for q, (s, _k) in self.mind.pieces.items() if s == side), key=_forward(side))
        for square in own:
            self.table.lift(square, hold=0.5)
            said = self.listen()
            offer = [t for t in said if t.startswith(_spoken(square) + ":")]
            assert offer, (square, said)
            text = offer[-1].split(": ", 1)[1].rstrip(".")
            if text == "sem lance":
                self.table.place(square, hold=0.5)  # put back
                self.listen()
                continue
            if text.startswith("toma"):
                return square, [squares_in(way) for way in text.split("; ou ")]
            return square, [[q] for q in squares_in(text)]
        raise AssertionError(f"no piece of {side} can move: {self.mind.pieces}")

    def play(self, mistake: bool = False) -> None:
        square, ways = self.choose()
        if mistake:  # a square the board did not offer: two ranks straight ahead, empty
            rank = int(square[1]) + (2 if self.mind.turn == "brancas" else -2)
            wrong = next(
                f + str(rank)
                for f in "abcdefgh"
                if f + str(rank) not in self.mind.pieces and (ord(f) + rank) % 2 == 0 and 1 <= rank <= 8
            )
            self.table.place(wrong, hold=0.2)
            self.table.wait(1.5)
            said = self.listen()
            told = [t for t in said if "Recoloque em" in t]
            assert told, said
            put_back = squares_in(told[-1].split("Recoloque em", 1)[1].split(".")[0])
            take_off = squares_in(told[-1].split("Retire de", 1)[1]) if "Retire de" in told[-1] else []
            for q in take_off:
                self.table.lift(q)
            for q in put_back:
                self.table.place(q)
            assert "Corrigido." in self.listen()
            self.table.lift(square, hold=0.1)
        path = ways[0]
        for i, q in enumerate(path):  # each landing square: touch down, lift again, then the last
            self.table.place(q)
            if i < len(path) - 1:
                self.table.lift(q)
        self.table.wait(0.5)
        said = self.listen()
        remove = [t for t in said if t.startswith("Retire ")]
        for t in remove:  # the captured pieces the board tells them to take off
            for q in squares_in(t):
                self.table.lift(q)
        if remove:
            self.listen()


def _spoken(square: str) -> str:
    return LETTERS["pt-BR"][square[0]] + square[1]


def _forward(side: str):  # type: ignore[no-untyped-def]
    """The most advanced pieces first (they tend to have moves)."""
    return (lambda q: (-int(q[1]), q[0])) if side == "brancas" else (lambda q: (int(q[1]), q[0]))


def test_a_blind_player_plays_a_whole_game_from_what_the_board_says(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="pt-BR")
    hands = BlindHands(table)
    try:
        hands.listen()
        assert hands.heard == ["Nova partida, damas brasileiras.", "Vez das brancas."]
        hands.mind.read(hands.read_out())
        assert len(hands.mind.pieces) == 24
        plies = 0
        while not hands.over and plies < MAX_PLIES:
            hands.play(mistake=plies == 6)
            plies += 1
            if plies == 20:  # in the middle of the game: what the player keeps in mind is the board
                kept = dict(hands.mind.pieces)
                hands.mind.read(hands.read_out())
                assert hands.mind.pieces == kept
        assert hands.over, f"no end after {plies} plies"
        # what the player kept in mind is the game's final position
        pos = table.app.session.referee.position
        real = {
            pos.square_text(q): ("brancas" if p.color.value == "white" else "pretas", p.king)
            for q, p in pos.pieces().items()
        }
        assert hands.mind.pieces == real
        assert any(t.startswith("Lance ilegal") or t.startswith("Captura obrigatória,") for t in hands.heard)
        assert table.app.session.referee.game.ply == plies
        assert hands.heard[-1].startswith("Fim da partida:"), hands.heard[-3:]
    finally:
        table.close()
