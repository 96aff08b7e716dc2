"""The 8x8 endgame databases: built by a command, every class counted, values checked against a
plain solution and against their successors, probed by the search within the draw rules."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import MATE, Engine, Limits
from engine.endgame import (
    HOLE,
    Databases,
    _Solver,
    build,
    classes,
    count_positions,
    decode,
    fits,
    layout_for,
    open_databases,
    plain_check,
    verify,
)
from engine.hub import Hub
from rules import Color, Game, Position, find_variant
from rules.variants import EndingRule


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("endgames")
    for variant in ("brazilian", "portuguese"):
        build(variant, 3, where, lambda _s: None)
    return where


@pytest.mark.parametrize("variant", ["brazilian", "portuguese"])
def test_every_class_is_built_and_counted(built: Path, variant: str) -> None:
    manifest = json.loads((built / variant / "manifest.json").read_text())
    names = {"".join(map(str, m)) for n in (2, 3) for m in classes(n)}
    assert set(manifest["classes"]) == names and len(names) == 4 + 12
    for name, c in manifest["classes"].items():
        material = tuple(int(x) for x in name)
        # the positions the table holds, against a count made without its index
        assert c["positions"] == count_positions(variant, material)  # type: ignore[arg-type]
        assert c["wins"] + c["draws"] + c["losses"] == c["positions"]
    # 1 king against 1 king: 32 x 31 placements, both kings free to move
    assert manifest["classes"]["1010"]["positions"] == 32 * 31
    # a second build finds nothing to do
    assert build(variant, 3, built, lambda _s: None) == []


@pytest.mark.parametrize("variant", ["brazilian", "portuguese"])
def test_values_agree_with_a_plain_solution_and_with_their_successors(built: Path, variant: str) -> None:
    plain = plain_check(variant, built, 2)  # every position of 2 pieces, solved through rules.Position
    assert plain["checked"] > 6000 and plain["wrong"] == 0
    local = verify(variant, built, sample=300)
    assert local["checked"] > 3000 and local["wrong"] == 0 and local["counts"] == 0


def test_a_corrupted_value_is_caught(built: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    (copy / "brazilian").mkdir(parents=True)
    for f in (built / "brazilian").iterdir():
        (copy / "brazilian" / f.name).write_bytes(f.read_bytes())
    table = bytearray((copy / "brazilian" / "1010.bin").read_bytes())
    i = next(i for i, b in enumerate(table) if b not in (HOLE, 0))
    table[i] = 0  # a win or a loss turned into a draw
    (copy / "brazilian" / "1010.bin").write_bytes(bytes(table))
    assert plain_check("brazilian", copy, 2)["wrong"] >= 1


def _position(db: Databases, material: tuple[int, int, int, int], want: tuple[int, int]) -> Position:
    """A position of ``material`` (White to move) whose value is ``want``."""
    lay = db.layout
    table = db.tables[material]
    for i in range(len(table)):
        if table[i] != HOLE and decode(table[i]) == want:
            om, ok, xm, xk = (lay.padded(x) for x in _Solver(lay, [material], {})._unrank(material, i))

            def squares(x: int) -> list[int]:
                return [lay.geo.square_of_bit[b] for b in range(lay.geo.nbits) if (x >> b) & 1]

            return Position(
                db.variant,
                white_men=squares(om),
                white_kings=squares(ok),
                black_men=squares(xm),
                black_kings=squares(xk),
                turn=Color.WHITE,
            )
    raise AssertionError(f"no position of {material} is worth {want}")


def test_the_search_plays_the_database_s_distance(built: Path) -> None:
    db = open_databases("portuguese", built)
    # a man against two men, won in 25 plies: the longest of its class
    pos = _position(db, (0, 1, 0, 2), (1, 25))
    bare = Engine("portuguese", tt_mb=4).search(Game("portuguese", pos), Limits(depth=3))
    assert bare.score < MATE - 100  # three plies see no end
    eng = Engine("portuguese", tt_mb=4)
    eng.set_databases(db)
    result = eng.search(Game("portuguese", pos), Limits(depth=3))
    assert result.score == MATE - 25
    # the move played keeps the win at 24 plies for the opponent's loss
    after = pos.apply(result.move)  # type: ignore[arg-type]
    assert db.probe(after.bm, after.bk, after.wm, after.wk, 1) == (-1, 24)


def test_a_win_counts_only_where_it_fits_the_draw_rules(built: Path) -> None:
    assert fits(9, 0, 40, None, ())
    assert fits(9, 31, 40, None, ())  # the last move may complete the count: the pieces decide first
    assert not fits(9, 32, 40, None, ())
    assert fits(9, 30, 0, None, ())  # no kings-only rule
    assert fits(5, 0, 40, (0, 5), (10,)) and not fits(7, 0, 40, (0, 5), (10,))
    # 2 kings against 1 king, won in 7 plies: a small-ending rule of 2 moves (4 plies) leaves no
    # time for it, so the database's win is not claimed: the search goes on and the rule stands
    db = open_databases("brazilian", built)
    won = _position(db, (2, 0, 1, 0), (1, 7))
    eng = Engine("brazilian", tt_mb=4)
    eng.set_databases(db)
    short = (EndingRule("short", ((2, 0, 1, 0),), 2),)
    assert eng.search(Game("brazilian", won, endings=short), Limits(depth=3)).score < MATE - 100
    assert eng.search(Game("brazilian", won, endings=()), Limits(depth=3)).score == MATE - 7
    # the variant's own rule (5 moves) leaves the time
    assert eng.search(Game("brazilian", won), Limits(depth=3)).score == MATE - 7


def test_databases_that_are_missing_or_damaged_are_one_line_errors(built: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as err:
        open_databases("brazilian", tmp_path / "nothing")
    assert str(err.value).startswith(f"{tmp_path / 'nothing' / 'brazilian' / 'manifest.json'}: no endgame databases")
    copy = tmp_path / "copy" / "brazilian"
    copy.mkdir(parents=True)
    (copy / "manifest.json").write_text((built / "brazilian" / "manifest.json").read_text())
    for f in (built / "brazilian").glob("*.bin"):
        (copy / f.name).write_bytes(f.read_bytes()[: 100 if f.name == "1110.bin" else None])
    with pytest.raises(ValueError, match=r"1110.bin: 100 bytes, not 28672: rebuild it"):
        open_databases("brazilian", tmp_path / "copy")
    with pytest.raises(ValueError, match="for the 8x8 variants, not international"):
        open_databases("international", built)
    run = subprocess.run(
        [sys.executable, "-m", "engine.endgame", "verify", "brazilian", "--dir", str(tmp_path / "nothing")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1 and len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith("engine.endgame: ") and "no endgame databases" in run.stderr


def test_the_hub_engine_probes_the_databases_it_is_given(built: Path) -> None:
    db = open_databases("portuguese", built)
    pos = _position(db, (0, 1, 0, 2), (1, 25))
    lines: list[str] = []

    class Out:
        def write(self, s: str) -> None:
            lines.extend(x for x in s.splitlines() if x)

        def flush(self) -> None:
            pass

    hub = Hub(Out(), tt_mb=4)  # type: ignore[arg-type]
    from engine.hub import position_text

    for line in (
        "set-param name=variant value=portuguese",
        f"set-param name=endgames value={built}",
        "init",
        f"pos pos={position_text(pos)}",
        "level depth=2",
        "go think",
    ):
        hub.handle(line)
    assert hub.thread is not None
    hub.thread.join(30)
    assert any(x.startswith("info depth=2 score=999") for x in lines), lines
    # a directory without databases: init answers with the error, naming it
    hub.handle("set-param name=endgames value=/nonexistent/dir")
    hub.handle("init")
    assert lines[-1].startswith('error message="/nonexistent/dir/portuguese/manifest.json: no endgame databases')


def _mover(pos: Position) -> tuple[int, int, int, int, int]:
    """The search's view: own men and kings, the opponent's, the side to move."""
    if pos.turn is Color.WHITE:
        return pos.wm, pos.wk, pos.bm, pos.bk, 0
    return pos.bm, pos.bk, pos.wm, pos.wk, 1


def test_random_positions_of_the_search_agree_with_the_tables(built: Path) -> None:
    # positions met in a game: the probe turns the board for Black to move
    db = open_databases("brazilian", built)
    rng = random.Random(3)
    seen = 0
    variant = find_variant("brazilian")
    geo = Position.start(variant).geometry
    crowning = {s for s in geo.squares() if geo.coord(s)[1] == 7}  # White's men never stand there
    for _ in range(200):
        squares = rng.sample(range(1, 33), 3)
        pos = Position(
            variant,
            white_kings=[squares[0]],
            black_kings=[squares[1]],
            white_men=[s for s in squares[2:] if s not in crowning],
            turn=rng.choice([Color.WHITE, Color.BLACK]),
        )
        if not pos.squares(Color.WHITE) or len(pos.legal_moves) == 0:
            continue
        result, plies = db.probe(*_mover(pos))  # type: ignore[misc]
        # the value agrees with the successors' (from the other side's view)
        outs = []
        for m in pos.legal_moves:
            after = pos.apply(m)
            if not after.squares(after.turn):
                outs.append((-1, 0))
                continue
            o = (
                (after.wm, after.wk, after.bm, after.bk)
                if after.turn is Color.WHITE
                else (after.bm, after.bk, after.wm, after.wk)
            )
            outs.append(db.probe(*o, 0 if after.turn is Color.WHITE else 1))
        wins = [p + 1 for r, p in outs if r < 0]  # type: ignore[misc]
        if wins:
            assert (result, plies) == (1, min(wins))
        elif any(r == 0 for r, _p in outs):  # type: ignore[misc]
            assert (result, plies) == (0, 0)
        else:
            assert (result, plies) == (-1, max(p for _r, p in outs) + 1)  # type: ignore[misc]
        seen += 1
    assert seen > 100


@pytest.mark.parametrize("variant", ["brazilian", "portuguese"])
def test_three_kings_against_one_win_off_the_long_diagonal_and_draw_on_it(built: Path, variant: str) -> None:
    # The known result of the 8x8 games with flying kings (Petrov's triangle): three kings beat
    # a lone king that does not hold the long diagonal, in at most 15 moves; a lone king on the
    # long diagonal, to move, holds the draw while no king of the other side is on it. Solved
    # here from the 3-piece tables, as the build does (a class with its mirror).
    db = open_databases(variant, built)
    lay = db.layout
    geo = lay.geo
    by_diagonal: dict[tuple[str, int], list[int]] = {}
    for s in geo.squares():
        f, r = geo.coord(s)
        by_diagonal.setdefault(("/", f - r), []).append(s)
        by_diagonal.setdefault(("\\", f + r), []).append(s)
    long = {s for squares in by_diagonal.values() if len(squares) == 8 for s in squares}
    assert len(long) == 8
    three, lone = (3, 0, 1, 0), (1, 0, 3, 0)
    solver = _Solver(lay, [three, lone], dict(db.tables))
    solver.prepare()
    solver.initial()
    solver.propagate()

    def on_long(bits: int) -> int:
        return sum(geo.square_of_bit[b] in long for b in range(geo.nbits) if (bits >> b) & 1)

    tally: dict[tuple[str, bool, int], list[int]] = {}
    for which, mat in enumerate((three, lone)):
        for i, b in enumerate(solver.vals[which]):
            if b == HOLE:
                continue
            _om, ok, _xm, xk = (lay.padded(x) for x in solver._unrank(mat, i))
            kings_of_three, king_alone = (ok, xk) if mat == three else (xk, ok)
            key = ("three" if mat == three else "lone", on_long(king_alone) == 1, on_long(kings_of_three))
            result, plies = decode(b)
            t = tally.setdefault(key, [0, 0, 0, 0])
            t[result + 1] += 1
            t[3] = max(t[3], plies)
    # three kings to move, the lone king off the diagonal: won (bar a few tactical draws, a
    # king that must be given up), never in more than 15 moves
    off = [tally[("three", False, n)] for n in range(4)]
    wins, total = sum(t[2] for t in off), sum(t[0] + t[1] + t[2] for t in off)
    assert wins > 0.99 * total and max(t[3] for t in off) <= 29
    assert sum(t[0] for t in off) == 0  # never lost
    # the lone king to move on the diagonal, no other king on it: drawn, bar tactics
    loss, draw, win, _ = tally[("lone", True, 0)]
    assert draw > 0.95 * (loss + draw + win)
    # a wrong value would show: the lone king off the diagonal, the three on it, to move
    loss, draw, win, _ = tally[("lone", False, 3)]
    assert loss > draw


def test_the_levels_that_err_play_without_the_databases(built: Path) -> None:
    db = open_databases("portuguese", built)
    pos = _position(db, (0, 1, 0, 2), (1, 25))
    eng = Engine("portuguese", level=3, tt_mb=4, seed=1)
    eng.set_databases(db)
    assert eng.search(Game("portuguese", pos), Limits(depth=3)).score < MATE - 100
    eng.set_level(7)  # no error from level 7 on: the tables are probed (and the table of scores cleared)
    assert eng.search(Game("portuguese", pos), Limits(depth=3)).score == MATE - 25
    eng.set_level(6)
    assert eng.search(Game("portuguese", pos), Limits(depth=3)).score < MATE - 100


@pytest.mark.parametrize("variant", ["brazilian", "portuguese"])
def test_a_build_in_several_processes_writes_the_same_tables(built: Path, tmp_path: Path, variant: str) -> None:
    reports = build(variant, 3, tmp_path, lambda _s: None, jobs=3)
    assert len(reports) == 16
    one, many = built / variant, tmp_path / variant
    names = sorted(p.name for p in one.glob("*.bin"))
    assert names == sorted(p.name for p in many.glob("*.bin")) and len(names) == 16
    for name in names:
        assert (one / name).read_bytes() == (many / name).read_bytes(), name
    counts = {
        k: {f: v[f] for f in ("positions", "wins", "draws", "losses", "longest")}
        for k, v in json.loads((one / "manifest.json").read_text())["classes"].items()
    }
    again = {
        k: {f: v[f] for f in ("positions", "wins", "draws", "losses", "longest")}
        for k, v in json.loads((many / "manifest.json").read_text())["classes"].items()
    }
    assert counts == again
    assert not list(many.glob("*.part"))
    with pytest.raises(ValueError, match="jobs must be 1 or more, not 0"):
        build(variant, 3, tmp_path, lambda _s: None, jobs=0)


@pytest.mark.parametrize("variant", ["brazilian", "portuguese"])
def test_the_build_s_capture_test_agrees_with_the_rules(variant: str) -> None:
    # the build's own test for a capture (all the men at once, the kings' first piece along
    # each ray) against the rules engine's captures, on random positions of 2-8 pieces
    lay = layout_for(find_variant(variant))
    solver = _Solver(lay, [(1, 1, 1, 1)], {})
    solver.prepare()
    rng = random.Random(7)
    seen = {True: 0, False: 0}
    for _ in range(20000):
        squares = rng.sample(range(32), rng.randint(2, 8))
        kinds = [rng.randrange(4) for _ in squares]
        om = sum(1 << p for p, k in zip(squares, kinds, strict=True) if k == 0 and p >= 4)
        ok = sum(1 << p for p, k in zip(squares, kinds, strict=True) if k == 1)
        xm = sum(1 << p for p, k in zip(squares, kinds, strict=True) if k == 2 and p < 28)
        xk = sum(1 << p for p, k in zip(squares, kinds, strict=True) if k == 3)
        if not (om | ok) or not (xm | xk):
            continue
        empty = ~(om | ok | xm | xk) & 0xFFFFFFFF
        fast = solver._has_capture(om, ok, xm | xk, empty)
        rules = bool(lay.rules.captures(lay.padded(om), lay.padded(ok), lay.padded(xm), lay.padded(xk), 0))
        assert fast == rules, (om, ok, xm, xk)
        seen[fast] += 1
    assert min(seen.values()) > 3000
