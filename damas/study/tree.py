"""A game as a tree of moves, as lidraughts' analysis board keeps it: the main line, and from any
of its positions the moves a player tries, kept as variations (each with variations of its
own). It is read from a recorded game or a PDN (its variations too) and written back as PDN,
the variations in parentheses after the move they replace.

>>> study = Study.from_pdn(read_game("1. c3-d4 f6-g5 *", "brazilian"))
>>> tried = study.play(study.main_line()[0].id, "b6-a5")  # instead of 1... f6-g5
>>> study.pdn().split("\\n\\n")[1].strip()
'1. c3-d4 f6-g5 (1... b6-a5) *'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from rules import Color, DraughtsError, Game, Move, Position
from rules.errors import shown
from rules.pdn import PdnGame, PdnMove
from rules.variants import Variant

MAX_NODES = 5000  # moves one study keeps (a page cannot grow the server's memory without bound)
TREE_FORMAT = 1  # the stored tree's format (``Study.to_json``)


class StudyError(ValueError):
    """A request the study cannot follow (a move that is not legal there, no such move): one line."""


@dataclass(eq=False)
class Node:
    """A position of the study: the move that led to it (None at the start), what follows it
    (``children[0]`` is the line's continuation, the others are variations)."""

    id: int
    position: Position
    parent: Node | None = None
    move: Move | None = None
    text: str = ""  # the move in the variant's notation
    nags: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    ply: int = 0  # moves from the study's start

    def number(self, first_black: bool) -> str:
        """``12.`` for a White move, ``12...`` for Black's (this node's move)."""
        index = self.ply - 1 + (1 if first_black else 0)
        return f"{index // 2 + 1}." if index % 2 == 0 else f"{index // 2 + 1}..."

    def path(self) -> list[Node]:
        """The nodes from the start (excluded) to this one."""
        out: list[Node] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            out.append(node)
            node = node.parent
        return out[::-1]


class Study:
    """A tree of moves from a start position; ``current`` is the position shown."""

    def __init__(
        self, variant: Variant, start: Position, tags: dict[str, str] | None = None, result: str = "*"
    ) -> None:
        self.variant = variant
        self.tags = dict(tags or {})
        self.result = result
        self.root = Node(0, start)
        self.nodes: dict[int, Node] = {0: self.root}
        self.current = self.root
        self._next = 1
        self.source: int | None = None  # the recorded game it was opened from (its analysis: the graph)

    # -- building -------------------------------------------------------------------------------
    @classmethod
    def from_pdn(cls, pg: PdnGame) -> Study:
        """A study of a PDN game: its moves the main line, its variations kept. A game with set-ups
        starts at its last set-up (the moves after it)."""
        start, moves = pg.start_position, pg.moves
        if pg.setups:
            at = max(pg.setups)
            start, moves = pg.setups[at], moves[at:]
        study = cls(pg.variant, start, pg.tags, pg.result)
        study._add_line(study.root, moves)
        return study

    @classmethod
    def from_game(cls, game: Game, tags: dict[str, str] | None = None) -> Study:
        """A study of a game as played (its result kept)."""
        return cls.from_pdn(PdnGame.from_game(game, tags))

    def _add_line(self, node: Node, moves: list[PdnMove]) -> None:
        for pm in moves:
            child = self._child(node, pm.move)
            child.nags, child.comments = list(pm.nags), list(pm.comments)
            for line in pm.variations:
                self._add_line(node, line)
            node = child

    def extend(self, node: Node, move: Move) -> Node:
        """The node after ``move`` (legal in ``node``'s position) from ``node``: there already, or new."""
        return self._child(node, move)

    def _child(self, node: Node, move: Move) -> Node:
        """The node after ``move`` from ``node``: the one there already, or a new one."""
        for child in node.children:
            if child.move == move:
                return child
        if len(self.nodes) >= MAX_NODES:
            raise StudyError(f"a study keeps at most {MAX_NODES} moves")
        child = Node(self._next, node.position.apply(move), node, move, node.position.pdn(move), ply=node.ply + 1)
        self._next += 1
        node.children.append(child)
        self.nodes[child.id] = child
        return child

    # -- what the page asks -----------------------------------------------------------------------
    def node(self, node_id: object) -> Node:
        if not isinstance(node_id, int) or isinstance(node_id, bool) or node_id not in self.nodes:
            raise StudyError(f"no move {shown(node_id)} in this study")
        return self.nodes[node_id]

    def play(self, node_id: object, text: object) -> Node:
        """Play ``text`` (a move in the variant's notation) from the position of ``node_id``: the
        move there already, or a new variation. It becomes the position shown."""
        node = self.node(node_id)
        if not isinstance(text, str) or not text.strip():
            raise StudyError(f"a move must be text, not {shown(text)}")
        try:
            matches = node.position.match_moves(text.strip())
        except DraughtsError as exc:
            raise StudyError(f"{shown(text)}: {exc}") from None
        if len(matches) != 1:
            legal = " ".join(node.position.pdn(m) for m in node.position.legal_moves) or "none"
            what = "not a legal move" if not matches else "more than one move: give the whole path"
            raise StudyError(f"{shown(text)} is {what} here (legal: {legal})")
        self.current = self._child(node, matches[0])
        return self.current

    def goto(self, node_id: object) -> Node:
        self.current = self.node(node_id)
        return self.current

    def delete(self, node_id: object) -> None:
        """Take a move and everything after it out of the study (its position's parent is shown)."""
        node = self.node(node_id)
        if node.parent is None:
            raise StudyError("the start of a study cannot be deleted")
        node.parent.children.remove(node)
        for gone in self._subtree(node):
            del self.nodes[gone.id]
        if self.current.id not in self.nodes:
            self.current = node.parent

    def promote(self, node_id: object) -> None:
        """Make a variation the line it branches from (first among the moves played there)."""
        node = self.node(node_id)
        if node.parent is not None:
            siblings = node.parent.children
            siblings.insert(0, siblings.pop(siblings.index(node)))

    def main_line(self, node: Node | None = None) -> list[Node]:
        """The line from ``node`` (default the start) following each first continuation."""
        out: list[Node] = []
        node = node or self.root
        while node.children:
            node = node.children[0]
            out.append(node)
        return out

    def _subtree(self, node: Node) -> Iterator[Node]:
        yield node
        for child in node.children:
            yield from self._subtree(child)

    def _preorder(self) -> list[Node]:
        """Every node, each after its parent and a position's moves in their order (no recursion:
        a line may be 5,000 moves long)."""
        order: list[Node] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(reversed(node.children))
        return order

    def with_lines(self, lines: Iterable[tuple[Position, list[Move]]]) -> Study | None:
        """A study of this one's start holding ``lines`` (each a position of this study and the
        moves played from it: an analysis session's lines on the board) and the moves of this
        study that lead to them, in this study's order (its main line first), with their NAGs and
        comments; a line's moves this study lacks (deleted on the page since) follow it. A line
        whose start is no position of this study is left out; None when none is one, or the
        lines make more moves than a study keeps."""
        order = self._preorder()
        first: dict[Position, Node] = {}
        for node in order:
            first.setdefault(node.position, node)
        keep: set[int] = set()
        tails: list[tuple[int, list[Move]]] = []
        for start, moves in lines:
            found = first.get(start)
            if found is None:
                continue
            node = found
            up: Node | None = node
            while up is not None and up.id not in keep:
                keep.add(up.id)
                up = up.parent
            rest = list(moves)
            while rest and (child := next((c for c in node.children if c.move == rest[0]), None)) is not None:
                keep.add(child.id)
                node, rest = child, rest[1:]
            tails.append((node.id, rest))
        if not tails:
            return None
        out = Study(self.variant, self.root.position, self.tags, self.result)
        mapped = {self.root.id: out.root}
        try:
            for node in order[1:]:
                if node.id in keep and node.parent is not None and node.move is not None:
                    child = out._child(mapped[node.parent.id], node.move)
                    child.nags, child.comments = list(node.nags), list(node.comments)
                    mapped[node.id] = child
            for node_id, rest in tails:
                at = mapped[node_id]
                for move in rest:
                    at = out._child(at, move)
        except StudyError:
            return None
        return out

    # -- writing ----------------------------------------------------------------------------------
    def pdn_game(self) -> PdnGame:
        """The study as a PDN game: its main line, the variations after the moves they replace."""
        pg = PdnGame(self.variant, dict(self.tags), self.root.position, result=self.result)
        pg.moves = self._pdn_line(self.root)
        return pg

    def _pdn_line(self, node: Node) -> list[PdnMove]:
        line: list[PdnMove] = []
        while node.children:
            first, *others = node.children
            pm = self._pdn_move(first)
            pm.variations = [[self._pdn_move(v), *self._pdn_line(v)] for v in others]
            line.append(pm)
            node = first
        return line

    @staticmethod
    def _pdn_move(node: Node) -> PdnMove:
        assert node.move is not None  # (every node but the start)
        return PdnMove(node.move, node.text, list(node.nags), list(node.comments))

    def pdn(self) -> str:
        return self.pdn_game().pdn()

    # -- stored (the records' ``studies`` table) ----------------------------------------------------
    def to_json(self) -> dict[str, object]:
        """The whole study as JSON: its start, tags and result, every move in the tree (in
        order: each after its parent, a position's moves in their order, the first its line's
        continuation) with its id (the page's), NAGs and comments, and the position shown. Flat,
        never nested (a line of 5,000 moves is 5,000 entries, not 5,000 levels)."""
        order = self._preorder()
        index = {node.id: i for i, node in enumerate(order)}
        moves: list[dict[str, object]] = []
        for node in order[1:]:
            assert node.parent is not None
            entry: dict[str, object] = {"id": node.id, "parent": index[node.parent.id], "move": node.text}
            if node.nags:
                entry["nags"] = list(node.nags)
            if node.comments:
                entry["comments"] = list(node.comments)
            moves.append(entry)
        return {
            "format": TREE_FORMAT,
            "variant": self.variant.name,
            "fen": self.root.position.fen(),
            "tags": dict(self.tags),
            "result": self.result,
            "moves": moves,
            "current": index[self.current.id],
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: object) -> Study:
        """A study as :meth:`to_json` wrote it; anything else is a :class:`StudyError` of one
        line naming what is wrong (a move that is not legal where it stands, a parent that is not
        before it...)."""
        if not isinstance(data, dict):
            raise StudyError(f"not a study (a JSON object), but {shown(data, 40)}")
        if data.get("format") != TREE_FORMAT:
            raise StudyError(f"unknown study format {shown(data.get('format'), 20)} (this reads {TREE_FORMAT})")
        tags, result, moves, current = data.get("tags"), data.get("result"), data.get("moves"), data.get("current")
        if not isinstance(tags, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items()):
            raise StudyError(f"its tags are not text: {shown(tags, 40)}")
        if not isinstance(result, str):
            raise StudyError(f"its result is not text: {shown(result, 40)}")
        if not isinstance(moves, list):
            raise StudyError(f"its moves are not a list: {shown(moves, 40)}")
        try:
            start = Position.from_fen(str(data.get("fen")), str(data.get("variant")))
        except DraughtsError as exc:
            raise StudyError(f"its start is not a position: {exc}") from None
        study = cls(start.variant, start, tags, result)
        order = [study.root]
        for i, entry in enumerate(moves, 1):
            if not isinstance(entry, dict):
                raise StudyError(f"move {i} is not an object: {shown(entry, 40)}")
            parent, text = entry.get("parent"), entry.get("move")
            if not isinstance(parent, int) or isinstance(parent, bool) or not 0 <= parent < len(order):
                raise StudyError(f"move {i}: its parent {shown(parent, 20)} is not a move before it")
            nags, comments = entry.get("nags", []), entry.get("comments", [])
            if not isinstance(nags, list) or not all(isinstance(x, str) for x in nags):
                raise StudyError(f"move {i}: its NAGs are not text: {shown(nags, 40)}")
            if not isinstance(comments, list) or not all(isinstance(x, str) for x in comments):
                raise StudyError(f"move {i}: its comments are not text: {shown(comments, 40)}")
            node_id = entry.get("id")
            if not isinstance(node_id, int) or isinstance(node_id, bool) or node_id < 1 or node_id in study.nodes:
                raise StudyError(f"move {i}: its id {shown(node_id, 20)} is not a new positive number")
            node = order[parent]
            try:
                matches = node.position.match_moves(text) if isinstance(text, str) else []
            except DraughtsError:
                matches = []
            if len(matches) != 1:
                raise StudyError(f"move {i}: {shown(text, 40)} is not one legal move after {node.position.fen()}")
            if any(c.move == matches[0] for c in node.children):
                raise StudyError(f"move {i}: {shown(text, 40)} is there twice")
            child = study._child(node, matches[0])
            del study.nodes[child.id]
            child.id = node_id  # the page's ids stay what they were
            study.nodes[node_id] = child
            study._next = max(study._next, node_id + 1)
            child.nags, child.comments = list(nags), list(comments)
            order.append(child)
        if not isinstance(current, int) or isinstance(current, bool) or not 0 <= current < len(order):
            raise StudyError(f"the position shown {shown(current, 20)} is not one of its {len(order)}")
        study.current = order[current]
        source = data.get("source")
        study.source = source if isinstance(source, int) and not isinstance(source, bool) else None
        return study

    def tokens(self) -> list[dict[str, object]]:
        """The tree as the page writes it: move numbers, moves (with their id and depth: 0 on the
        main line), and the parentheses around each variation."""
        first_black = self.root.position.turn is Color.BLACK
        out: list[dict[str, object]] = []
        self._tokens(self.root, 0, first_black, out)
        return out

    def _tokens(
        self, node: Node, depth: int, first_black: bool, out: list[dict[str, object]], need_number: bool = True
    ) -> None:
        while node.children:
            first, *others = node.children
            self._token(first, depth, first_black, need_number, out)
            need_number = bool(others)
            for v in others:
                out.append({"kind": "open", "depth": depth + 1})
                self._token(v, depth + 1, first_black, True, out)
                self._tokens(v, depth + 1, first_black, out, need_number=bool(v.comments))
                out.append({"kind": "close", "depth": depth + 1})
            node = first

    @staticmethod
    def _token(node: Node, depth: int, first_black: bool, need_number: bool, out: list[dict[str, object]]) -> None:
        number = node.number(first_black)
        if need_number or (number.endswith(".") and not number.endswith("...")):
            out.append({"kind": "number", "text": number, "depth": depth})
        out.append({"kind": "move", "id": node.id, "text": node.text + "".join(node.nags), "depth": depth})
