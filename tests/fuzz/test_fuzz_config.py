"""Fuzzing the board configuration: the example files of hardware/*.toml, mutated (types,
values, deletions, unknown keys, deep nesting, text damage). Each gives a Config or one
ConfigError line naming the file; a Config also opens (on the simulated board) and gives
``damas play`` its [app] settings without another exception."""

from __future__ import annotations

import copy
import json
import math
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from board_hal.config import Config, ConfigError, parse_config
from board_hal.factory import open_board
from rules import find_variant
from tests.fuzz.harness import SIZES, mutate_text, run_case, short

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
EXAMPLES = sorted(HARDWARE.glob("*.toml"))
APP = {"port": 8080, "host": "127.0.0.1", "mode": "casual", "resume": True, "language": "pt", "database": "g.db"}
LEDS = {"colours": {"from": "#0050ff", "to": "#00c83c"}}


# -- a small TOML writer (the standard library only reads TOML) ----------------------------------
def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # JSON's escapes are TOML's basic-string escapes
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def dump_toml(data: dict[str, Any], prefix: str = "") -> str:
    lines = [f"{json.dumps(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    out = "\n".join(lines) + "\n"
    for k, v in data.items():
        if isinstance(v, dict):
            name = f"{prefix}.{json.dumps(k)}" if prefix else json.dumps(k)
            out += f"\n[{name}]\n" + dump_toml(v, name)
    return out


def odd_value(rng: random.Random) -> Any:
    return rng.choice(
        [
            0,
            -1,
            1,
            90,
            90.0,
            8.0,
            10**30,
            -(10**18),
            0.5,
            -0.05,
            1e308,
            math.nan,
            math.inf,
            -math.inf,
            True,
            False,
            "",
            "90",
            "8",
            "gpio",
            "pico",
            "near",
            "#00ff00",
            "#+1+2+3",
            "#١٢٣٤٥٦",
            "/dev/ttyACM0",
            "x" * 5000,
            "²",
            [],
            [1, 2],
            [4, 17, 27, 22, 5, 6, 13, 19],
            ["a"],
            [[1]],
            {},
            {"a": 1},
            {"from": 5},
            {"from": ["#00ff00"]},
        ]
    )


def _paths(data: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for k, v in data.items():
        out.append((*prefix, k))
        if isinstance(v, dict):
            out += _paths(v, (*prefix, k))
    return out


def mutate_config(rng: random.Random, data: dict[str, Any]) -> str:
    data = copy.deepcopy(data)
    if rng.random() < 0.5:
        data.setdefault("app", dict(APP))
    if rng.random() < 0.3:
        data.setdefault("leds", copy.deepcopy(LEDS))
    for _ in range(rng.randint(1, 3)):
        paths = _paths(data)
        path = rng.choice(paths) if paths else ("board",)
        parent = data
        for k in path[:-1]:
            parent = parent[k]
        op = rng.randrange(5)
        if op == 0:  # a wrong type or value
            parent[path[-1]] = odd_value(rng)
        elif op == 1:  # a deletion
            parent.pop(path[-1], None)
        elif op == 2:  # an unknown setting
            parent[rng.choice(["extra", "Board", "colour", "rotation", "²"])] = odd_value(rng)
        elif op == 3:  # deep nesting (written into the text below)
            parent[path[-1]] = "@deep@"
        else:  # a table where a value was, or the other way round
            parent[path[-1]] = {"x": odd_value(rng)} if not isinstance(parent[path[-1]], dict) else odd_value(rng)
    text = dump_toml(data)
    depth = rng.choice([5, 50, 400, 100_000])
    opener, closer = rng.choice([("[", "]"), ("{a = ", "}")])
    text = text.replace('"@deep@"', opener * depth + "1" + closer * depth)
    if rng.random() < 0.2:
        text = mutate_text(rng, text)
    return text


def use_config(cfg: Config) -> None:
    """What ``damas selftest``/``damas play`` do with a configuration, short of serving."""
    variant = find_variant(cfg.variant or cfg.app.get("variant") or "brazilian").name
    if cfg.size is not None and find_variant(variant).board_size != cfg.size:
        variant = "international" if cfg.size == 10 else "brazilian"
    if cfg.backend != "simulated":
        return
    io = open_board(cfg, variant)
    try:
        io.show([])
        io.occupied()
    finally:
        io.close()
    port = int(cfg.app.get("port") or 8080)
    assert 1 <= port <= 65535
    assert isinstance(cfg.app.get("host") or "127.0.0.1", str)


@pytest.mark.parametrize("cases", SIZES)
def test_fuzz_config(cases: int) -> None:
    assert len(EXAMPLES) >= 4, EXAMPLES
    rng = random.Random(16_7_5)
    originals = {p.name: tomllib.loads(p.read_text(encoding="utf-8")) for p in EXAMPLES}
    ok = failed = 0
    for i in range(cases):
        name = rng.choice(sorted(originals))
        text = mutate_config(rng, originals[name])
        env = {"DAMAS_BOARD_BACKEND": "simulated"} if rng.random() < 0.5 else {}

        def case() -> None:
            use_config(parse_config(text, name, env))  # noqa: B023

        error = run_case(f"config case {i} ({name}) {short(text, 400)}", case, (ConfigError,))
        if error is None:
            ok += 1
        else:
            failed += 1
            assert str(error).startswith(f"{name}: "), str(error)
    assert ok and failed  # the campaign reaches both sides
