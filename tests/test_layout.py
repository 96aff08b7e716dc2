"""The one-way rules of CONTRIBUTING.md's map, checked over every import in the source (those
inside functions and under ``TYPE_CHECKING`` too): each part names the parts it may import, and
a module, package or sub-package that the map does not place fails until it is placed."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

#: our top-level packages, and the app's parts (sub-packages and shared modules of ``damas``)
PACKAGES = ("rules", "engine", "referee", "board_hal", "firmware_bridge", "wording", "hall", "damas")
#: what each part may import of ours besides itself; ``ANY``: every part (the app's entry points)
ANY = frozenset({"*"})
OUTSIDE_THE_APP = frozenset(PACKAGES) - {"damas"}
MAY_IMPORT: dict[str, frozenset[str]] = {
    "rules": frozenset(),
    "engine": frozenset({"rules"}),
    "referee": frozenset({"rules", "board_hal.debounce", "board_hal.leds", "board_hal.squares"}),
    "board_hal": frozenset({"rules"}),
    "board_hal.speech": frozenset(),  # the voice: says phrases, composes none (imports nothing of ours)
    "firmware_bridge": frozenset({"board_hal"}),
    "wording": frozenset(),  # every word, in each language: the hall's and the app's
    "hall": frozenset({"rules", "referee", "engine", "wording"}),  # never board_hal, firmware_bridge, the app
    # the app: each part may use every package outside it, and these parts of the app
    "damas": frozenset(),  # the package's own module: its version
    "damas.log": frozenset(),
    "damas.sentences": frozenset(),
    "damas.errors": frozenset({"damas.records"}),
    "damas.records": frozenset(),
    "damas.computer": frozenset(),
    "damas.study": frozenset(),  # games studied on the page: trees of moves over the rules, nothing of the app
    "damas.speech": frozenset({"damas.records"}),  # what the board says: composed from the game's verdicts
    "damas.hall_link": frozenset({"damas.records", "damas.sentences"}),
    "damas.board": frozenset(
        {
            "damas.records",
            "damas.computer",
            "damas.hall_link",
            "damas.sentences",
            "damas.log",
            "damas.speech",
            "damas.study",
        }
    ),
    "damas.web": frozenset({"damas.board"}),
    "damas.serve": ANY,
    "damas.cli": ANY,
    "damas.commands": ANY,
    "damas.__main__": ANY,
}
#: what every part of the app may import: the root module (``damas.version``)
APP_SHARED = frozenset({"damas"})


def part_of(module: str) -> str | None:
    """The map's part holding ``module`` (its longest dotted prefix the map names), or None."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in MAY_IMPORT and (name != "damas" or module == "damas"):  # (the root holds only itself)
            return name
    return None


def module_name(root: Path, path: Path) -> str:
    dotted = list(path.relative_to(root).with_suffix("").parts)
    if dotted[-1] == "__init__":
        dotted.pop()
    return ".".join(dotted)


def imports(root: Path, path: Path) -> list[tuple[int, str]]:
    """Every module of ours that ``path`` imports (line, dotted name): ``from x import y`` names
    ``x.y`` when that is a module of ours, else ``x``; relative imports are resolved."""
    name = module_name(root, path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for a in node.names:
                sub = f"{base}.{a.name}"
                is_module = (root / sub.replace(".", "/")).with_suffix(".py").is_file() or (
                    root / sub.replace(".", "/") / "__init__.py"
                ).is_file()
                found.append((node.lineno, sub if is_module else base))
    return [(line, m) for line, m in dict.fromkeys(found) if m.split(".")[0] in PACKAGES]


def allowed(source: str, target: str) -> bool:
    here, there = part_of(source), part_of(target)
    assert here is not None and there is not None
    rules = MAY_IMPORT[here]
    if here == there or rules == ANY:
        return True
    if here.startswith("damas") and (there in APP_SHARED or not there.startswith("damas")):
        return True  # the app may use every package outside it
    return any(target == r or target.startswith(r + ".") for r in rules) or there in rules


def problems(root: Path) -> list[str]:
    """One line per import that breaks the map, and per module the map does not place."""
    out: list[str] = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            source = module_name(root, path)
            where = path.relative_to(root)
            if part_of(source) is None:
                out.append(f"{where}: {source} has no place in the map (tests/test_layout.py MAY_IMPORT)")
                continue
            for line, target in imports(root, path):
                if part_of(target) is None:
                    out.append(f"{where}:{line}: imports {target}, which has no place in the map")
                elif not allowed(source, target):
                    out.append(f"{where}:{line}: {part_of(source)} may not import {target} ({part_of(target)})")
    return out


def test_every_import_follows_the_map() -> None:
    assert problems(ROOT) == []


def test_a_broken_rule_is_named(tmp_path: Path) -> None:
    """The check finds what it is for: an import against the arrows (at the top, inside a
    function, relative, under TYPE_CHECKING), a part the map does not place."""
    files = {
        "rules/__init__.py": "",
        "rules/board.py": "from referee import Referee\n",  # rules imports nothing of ours
        "referee/__init__.py": "from board_hal.debounce import Debouncer\nfrom board_hal import leds\n",
        "referee/core.py": "def f():\n    from board_hal.simulated import SimulatedBoard\n",
        "board_hal/__init__.py": "",
        "board_hal/debounce.py": "",
        "board_hal/leds.py": "",
        "board_hal/simulated.py": "",
        "hall/__init__.py": "import firmware_bridge.link\n",
        "firmware_bridge/__init__.py": "",
        "firmware_bridge/link.py": "",
        "damas/__init__.py": "",
        "damas/records/__init__.py": "",
        "damas/records/store.py": "from ..web import routes\n",  # records never import the page
        "damas/computer/__init__.py": "",
        "damas/computer/player.py": "from damas import version\nfrom damas.records.store import Store\n",
        "damas/web/__init__.py": "",
        "damas/web/routes.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from damas.records.session import GameSession\n"
        ),
        "damas/board/__init__.py": "from damas.web.routes import build_app\nfrom damas.records import store\n",
        "damas/sound/__init__.py": "",
        "board_hal/speech.py": "from board_hal.leds import Role\n",  # the voice imports nothing of ours
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert sorted(problems(tmp_path)) == [
        "board_hal/speech.py:1: board_hal.speech may not import board_hal.leds (board_hal)",
        "damas/board/__init__.py:1: damas.board may not import damas.web.routes (damas.web)",
        "damas/computer/player.py:2: damas.computer may not import damas.records.store (damas.records)",
        "damas/records/store.py:1: damas.records may not import damas.web.routes (damas.web)",
        "damas/sound/__init__.py: damas.sound has no place in the map (tests/test_layout.py MAY_IMPORT)",
        "damas/web/routes.py:3: damas.web may not import damas.records.session (damas.records)",
        "hall/__init__.py:1: hall may not import firmware_bridge.link (firmware_bridge)",
        "referee/core.py:2: referee may not import board_hal.simulated (board_hal)",
        "rules/board.py:1: rules may not import referee (referee)",
    ]
