"""Fuzzing the event log (referee/log.py) and ``damas replay``, which runs what it read
through the live pipeline (seeded, bounded; see harness.py)."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import pytest

from damas.cli import main
from referee import LogError, Pipeline, Referee, parse_log
from rules import Game
from tests.fuzz.harness import SIZES, deep, huge_number, mutate_text, nasty_text, run_case, short


def _valid_log(rng: random.Random) -> list[str]:
    """A log of a short random game: header, lifts and places, an action."""
    g = Game("brazilian")
    lines = [json.dumps({"format": 1, "variant": "brazilian", "mode": rng.choice(["casual", "tournament"])})]
    t = 0.0
    for _ in range(rng.randint(1, 6)):
        moves = list(g.legal_moves)
        if not moves:
            break
        m = rng.choice(moves)
        for sq, ev in [(m.from_square, "lift"), (m.to_square, "place"), *((c, "lift") for c in m.captured)]:
            t += rng.choice([0.01, 0.2, 1.0])
            lines.append(json.dumps({"t": round(t, 3), "square": sq, "event": ev}))
        g.push(m)
    if rng.random() < 0.3:
        lines.append(json.dumps({"t": t + 1, "action": "resign", "side": "white"}))
    return lines


ODD_VALUES = [None, True, -1, 0, 10**30, 1e308, -0.0, "", "22", [], {}, [1, 2], {"a": 1}, "b1", "z9", "K", "²"]


def _mutate_log(rng: random.Random, lines: list[str]) -> str:
    op = rng.randrange(6)
    i = rng.randrange(len(lines))
    if op == 0:  # text damage
        lines[i] = mutate_text(rng, lines[i])
    elif op == 1:  # a field gets an odd value
        obj = json.loads(lines[i])
        key = rng.choice([*obj.keys(), "t", "square", "cell", "event", "action", "side", "result", "board", "fen"])
        obj[key] = rng.choice(ODD_VALUES)
        lines[i] = json.dumps(obj)
    elif op == 2:  # a number no float holds, NaN, Infinity
        obj = json.loads(lines[i])
        key = rng.choice(list(obj.keys()))
        lines[i] = json.dumps(obj).replace(json.dumps(obj[key]), huge_number(rng), 1)
    elif op == 3:  # deep nesting
        lines.insert(i, rng.choice([deep(rng), '{"t": 1, "square": ' + deep(rng, 900) + "}"]))
    elif op == 4:  # time going backwards, lines swapped or repeated
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        lines.insert(j, lines[i])
    else:  # random text
        lines.insert(i, nasty_text(rng, rng.randint(0, 80)))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("cases", SIZES)
def test_fuzz_event_log_and_pipeline(cases: int) -> None:
    rng = random.Random(16_7_3)
    for i in range(cases):
        text = _mutate_log(rng, _valid_log(rng))

        def case() -> None:
            header, events = parse_log(text.splitlines(), "fuzz.log")  # noqa: B023
            ref = Referee(header.variant or "brazilian", header.fen, mode=header.mode or "casual", board=header.board)
            Pipeline(ref).run(events)
            ref.pdn_game().pdn()

        run_case(f"log case {i} {short(text, 300)}", case, (LogError,))


@pytest.mark.parametrize("cases", [pytest.param(25, id="small"), pytest.param(600, id="large", marks=pytest.mark.slow)])
def test_fuzz_damas_replay(cases: int, tmp_path: Path) -> None:
    """The command as a user runs it: exit 0, or 2 with one line on stderr; never a traceback."""
    rng = random.Random(16_7_4)
    path = tmp_path / "fuzz.log"
    for i in range(cases):
        path.write_text(_mutate_log(rng, _valid_log(rng)), encoding="utf-8", errors="surrogatepass")
        debounce = rng.choice(["0.05", "0", "1", "-1", "nan", "inf", "-inf", "1e308", "0.3"])
        out, err = io.StringIO(), io.StringIO()

        def case() -> None:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # noqa: B023
                code = main(["replay", str(path), f"--debounce={debounce}"])  # noqa: B023
            assert code in (0, 2), code
            if code == 2:
                assert err.getvalue().startswith("damas: error: ") and err.getvalue().count("\n") == 1  # noqa: B023

        run_case(f"replay case {i} (--debounce {debounce}) {short(path.read_text(), 300)}", case, ())
