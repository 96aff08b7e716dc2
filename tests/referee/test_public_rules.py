"""The referee sees the rules through their public surface only (issue 18 §2): no private
state of a position or game, no move-generator internals (``rules.engine``), no copy of a
variant with a made-up capture law. What it needs is public: ``Position.pseudo_legal_moves``."""

from __future__ import annotations

import ast

import rules
from rules.game import Game
from rules.move import Move
from rules.position import LegalMoves, Position
from tests.conftest import ROOT

#: the modules of ``rules`` meant for its users (``rules.engine`` is the move generator's inside)
PUBLIC_MODULES = {"rules", "rules.errors", "rules.geometry", "rules.move", "rules.pdn", "rules.variants"}


def _private_names() -> set[str]:
    names: set[str] = set()
    for cls in (Position, Game, Move, LegalMoves):
        for klass in cls.__mro__:
            if klass.__module__.startswith("rules"):
                names |= {n for n in vars(klass) if n.startswith("_") and not n.endswith("__")}
    names |= {n for n in vars(Game("brazilian")) if n.startswith("_")}  # instance attributes
    return names


def test_the_referee_uses_only_the_public_rules_api() -> None:
    private = _private_names()
    assert {"_sides", "_raw_moves", "_states"} <= private  # the check knows what it looks for
    sources = sorted((ROOT / "referee").glob("*.py"))
    assert len(sources) >= 5
    problems = []
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rules":
                if node.module not in PUBLIC_MODULES:
                    problems.append(f"{where}: imports {node.module}")
                if node.module == "rules":
                    problems += [f"{where}: imports rules.{a.name}" for a in node.names if a.name not in rules.__all__]
            elif isinstance(node, ast.Import):
                problems += [f"{where}: imports {a.name}" for a in node.names if a.name.startswith("rules.engine")]
            elif isinstance(node, ast.Attribute) and node.attr in private:
                if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    problems.append(f"{where}: uses .{node.attr}")
            elif isinstance(node, ast.Name) and node.id == "CaptureLaw":
                problems.append(f"{where}: builds with the capture law")
    assert problems == []
