"""PDN 3.0: read real-world files tolerantly, write strictly.

Reading (``iter_games``/``read_pdn``/``load_pdn``) accepts what real collections
contain (``PDN.md``): CRLF and literal ``\\r``/``\\n`` between tags, move numbers glued
to moves, ``1. ... 35-40``, spaces inside moves, ``:`` captures, start-end captures
that are ambiguous (resolved by legality, then by the moves that follow), partial or
full paths, every result style, ``*`` with the result only in the tag, FEN with a
trailing dot or algebraic squares, missing ``GameType`` (inferred), several tags on
one line, ``[Empty]`` lines, clock comments, ``$n`` NAGs, ``%`` line comments,
nested variations (kept with the move they replace: ``PdnMove.variations``), ``!``/``?``
marks, and ``/FEN "..."/`` set-ups.

Also: localised tag names with spaces and HTML entities (``[Type de jeu "20"]``,
``[R&#x00e9;sultat "1-1"]``; French, Dutch, Portuguese and Russian names of the roster
tags and ``GameType`` are read as the standard ones), ``[[Event``, a result written ``-``
(unknown, as ``*``) and a tag that lost its ``[`` at the start of a line.

What cannot be read is reported with ``file:line`` and the game it belongs to; one broken
spot costs at most that game: a broken tag costs its line (``PdnGame.warnings``), text that
cannot be read in the move text ends the game there (``PdnGame.error``, the moves before it
kept) and reading starts again at the next line that starts a tag.

Writing (``PdnGame.pdn()``/``write_pdn``) gives the roster tags, ``GameType`` and
``FEN``, the variant's notation (algebraic for Brazilian), the complete capture path
only where origin and destination would be ambiguous, and the variant's result style.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from rules.errors import (
    AmbiguousMoveError,
    DraughtsError,
    InvalidMoveError,
    InvalidResultError,
    PdnSyntaxError,
    PdnTagError,
    shown,
)
from rules.game import Game, parse_result
from rules.move import Move
from rules.position import Position
from rules.variants import BRAZILIAN, INTERNATIONAL, Color, Variant, find_variant, variant_for_gametype

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")

# -- tokens ------------------------------------------------------------------------------------
#: the reader's limits: beyond them it stops with one line naming file:line (time and memory
#: stay linear in the input; benchmarks/pdn_limits.py measures them)
MAX_TAG_VALUE = 64 * 1024  # characters of one tag value or comment
MAX_GAME_CHARS = 1024 * 1024  # characters of one game, tags to result
MAX_GAME_TOKENS = 100_000  # moves, numbers, comments, marks and tags of one game
MAX_VARIATION_DEPTH = 32  # variations nested deeper than this are skipped (never a recursion without end)
MAX_FILE_BYTES = 64 * 1024 * 1024  # a PDN file (split bigger collections)
_MAX_PATH = 40  # squares of one move's path (a capture takes at most ~20)

_SQ = r"(?:[a-jA-J](?:10|[1-9])|[0-9]{1,2})"
_ALG = r"[a-j](?:10|[1-9])"
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+|\\[rn])
  | (?P<setup>/\s*FEN\s*"(?P<sfen>[^"]{0,4096})"\s*/)
  | (?P<strength>\(\s*[!?]+\s*\))
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$[0-9]{1,6})
  | (?P<result>(?:1/2-1/2|½-½|1-0|0-1|2-0|0-2|1-1|0-0|\*|-)(?![\w\-x:/.]))
  | (?P<number>[0-9]+\s*\.+|\.\.\.)
  | (?P<move>(?:"""
    + _SQ
    + r"(?:[ \t]*[-x:X][ \t]*"
    + _SQ
    + r"){1,"
    + str(_MAX_PATH)
    + r"}|"
    + _ALG
    + r"(?:"
    + _ALG
    + r"){1,"
    + str(_MAX_PATH)
    + r"""})(?![\w]))(?P<marks>[!?]{1,3})?
  | (?P<marks_alone>[!?]{1,3})
    """,
    re.VERBOSE,
)
#: a tag's name: anything up to the value's quote or the ']' (localised names hold spaces and
#: entities: ``[Type de jeu "20"]``, ``[R&#x00e9;sultat "1-1"]``); ``[[Event`` is read as ``[Event``
_TAG_KEY_RE = re.compile(r'\[[\s\[]*([^\s\]\["][^\]\["\n]{0,255})\s*')
_PLAIN_RE = re.compile(r'[^"\\\n]*')  # a value ends on its line: an unclosed quote costs one line
#: a tag that lost its '[' at the start of a line: ``Event "Open 2003"]``
_LONE_TAG_RE = re.compile(
    r'([^\s\[\]"{}()%;][^\[\]"{}\n]{0,255}?)[ \t]*"((?:[^"\\\n]|\\.){0,' + str(MAX_TAG_VALUE) + r'})"[ \t]*\]'
)
#: where reading starts again after text it cannot read: a line that starts a tag (or a lone tag body)
_RESYNC_RE = re.compile(r'^[ \t]*(?:\[|[^\s\[\]"{}()%;][^\[\]"{}\n]{0,255}?"[^"\n]{0,1024}"[ \t]*\])', re.M)
_UNESCAPE_RE = re.compile(r'\\(["\\])')
_SPACE_RE = re.compile(r"\s*")

#: a tag name the writer accepts: PDN's symbol, starting with a capital letter
TAG_NAME_RE = re.compile(r"[A-Z][A-Za-z0-9_+#=:-]{0,63}")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")

#: localised tag names (French, Dutch, Portuguese, Russian) and the standard ones they stand for;
#: looked up without case and accents (``_fold``)
_LOCAL_TAGS = {
    "White": ("Blanc", "Blancs", "Wit", "Brancas", "Branco", "Белые"),
    "Black": ("Noir", "Noirs", "Zwart", "Pretas", "Preto", "Черные", "Чёрные"),
    "Event": ("Événement", "Tournoi", "Evenement", "Toernooi", "Evento", "Torneio", "Турнир", "Соревнование"),
    "Site": ("Lieu", "Plaats", "Local", "Место"),
    "Date": ("Datum", "Data", "Дата"),
    "Round": ("Ronde", "Rodada", "Тур", "Раунд"),
    "Result": ("Résultat", "Uitslag", "Resultaat", "Resultado", "Результат"),
    "GameType": ("Type de jeu", "Speltype", "Spelsoort", "Tipo de jogo", "Тип игры"),
}


def _fold(name: str) -> str:
    """A tag name without case, accents or repeated spaces (``Résultat`` -> ``resultat``)."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


_STANDARD_TAG = {_fold(local): std for std, names in _LOCAL_TAGS.items() for local in names}


def standard_tag_name(name: str) -> str:
    """The standard PDN name of a localised tag name (``Blanc`` -> ``White``); others as they are."""
    return _STANDARD_TAG.get(_fold(name), name)


def _unescape_entities(text: str) -> str:
    """HTML/XML character entities decoded (``R&#x00e9;sultat`` -> ``Résultat``)."""
    return html.unescape(text) if "&" in text else text


@dataclass(slots=True)
class _Token:
    kind: str
    text: str
    line: int
    extra: str = ""
    pos: int = 0


def _tag_at(text: str, i: int, source: str, line: int) -> tuple[_Token, int]:
    """The tag starting at ``text[i] == "["`` and where it ends; bounded by MAX_TAG_VALUE."""
    m = _TAG_KEY_RE.match(text, i)
    if m is None:
        snippet = text[i : i + 20].split("\n")[0]
        raise PdnSyntaxError(f"unexpected text {snippet!r}", source=source, line=line)
    key = _unescape_entities(m.group(1).rstrip())
    j = m.end()
    value = ""
    if j < len(text) and text[j] == '"':
        start = j + 1
        limit = min(len(text), start + MAX_TAG_VALUE + 1)
        k = start
        while True:  # one step per escape: linear, whatever the value holds
            if k < limit:
                k = _PLAIN_RE.match(text, k, limit).end()  # type: ignore[union-attr]
            if k >= limit or text[k] == "\n" or (text[k] == "\\" and text[k + 1 : k + 2] in ("\n", "")):
                if limit == len(text) or (k < limit and text[k] in "\n\\"):
                    raise PdnSyntaxError(f"tag {key[:40]!r}: the value has no closing quote", source=source, line=line)
                raise PdnSyntaxError(
                    f"tag {key[:40]!r}: value longer than {MAX_TAG_VALUE // 1024} KiB", source=source, line=line
                )
            if text[k] == '"':
                break
            k += 2  # a backslash and the character it escapes
        value = _unescape_entities(_UNESCAPE_RE.sub(r"\1", text[start:k]))
        j = _SPACE_RE.match(text, k + 1).end()  # type: ignore[union-attr]
    if j >= len(text) or text[j] != "]":
        raise PdnSyntaxError(f"tag {key[:40]!r} is not closed with ']'", source=source, line=line)
    return _Token("tag", key, line, value, i), j + 1


def _resync(text: str, i: int) -> int:
    """Where reading starts again after text it cannot read at ``i``: the next line that starts
    a tag or holds a lone tag body (the end of the text if none does)."""
    eol = text.find("\n", i)
    if eol < 0:
        return len(text)
    m = _RESYNC_RE.search(text, eol + 1)
    return len(text) if m is None else m.start()


def _at_line_start(text: str, i: int) -> bool:
    """Only spaces or tabs before ``text[i]`` on its line."""
    k = i
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return k == 0 or text[k - 1] == "\n"


def _tokenize(text: str, source: str) -> Iterator[_Token]:
    """The tokens of a PDN text. Text that cannot be read gives an ``error`` token (the message
    in ``text``; ``extra`` is ``"tag"`` for a broken tag) and reading goes on at the next line that
    starts a tag: one broken spot costs at most the game it is in."""
    i = 0
    line = 1
    n = len(text)
    no_brace_before = 0  # no '}' in text[..no_brace_before]: unclosed comments stay linear
    while i < n:
        # '%' at the start of a line and ';' anywhere: rest-of-line comments
        ch = text[i]
        at_line_start = i == 0 or text[i - 1] == "\n"
        if (ch == "%" and at_line_start) or ch == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        problem: PdnSyntaxError | None = None
        if ch == "[":
            try:
                tok, end = _tag_at(text, i, source, line)
            except PdnSyntaxError as exc:
                problem = exc
            else:
                yield tok
                line += text.count("\n", i, end)
                i = end
                continue
        elif ch == "{":
            limit = min(n, i + 1 + MAX_TAG_VALUE + 1)
            lo = max(i + 1, no_brace_before)
            end = text.find("}", lo, limit) if lo < limit else -1
            if end >= 0:
                yield _Token("comment", text[i + 1 : end].strip(), line, "", i)
                line += text.count("\n", i, end)
                i = end + 1
                continue
            no_brace_before = max(no_brace_before, limit)
            why = "comment without a closing '}'" if limit == n else f"comment longer than {MAX_TAG_VALUE // 1024} KiB"
            problem = PdnSyntaxError(why, source=source, line=line)
        else:
            m = _TOKEN_RE.match(text, i)
            if m is None:
                lone = _LONE_TAG_RE.match(text, i) if _at_line_start(text, i) else None
                if lone is not None:  # a tag that lost its '['
                    key = _unescape_entities(lone.group(1).rstrip())
                    value = _unescape_entities(_UNESCAPE_RE.sub(r"\1", lone.group(2)))
                    yield _Token("tag", key, line, value, i)
                    yield _Token("warning", f"tag {key[:40]!r} without its '[': read as a tag", line, "", i)
                    i = lone.end()
                    continue
                snippet = text[i : i + 20].split("\n")[0]
                problem = PdnSyntaxError(f"unexpected text {snippet!r}", source=source, line=line)
        if problem is not None:
            yield _Token("error", problem.reason, line, "tag" if ch == "[" else "", i)
            if ch == "[":  # a broken tag costs its line
                j = text.find("\n", i)
                j = n if j < 0 else j
            else:
                j = _resync(text, i)
            line += text.count("\n", i, j)
            i = j
            continue
        assert m is not None
        kind = m.lastgroup or ""
        for name in ("setup", "move", "result", "number", "ws"):
            if m.group(name) is not None:
                kind = name
                break
        else:
            for name in ("strength", "open", "close", "nag", "marks_alone"):
                if m.group(name) is not None:
                    kind = name
                    break
        token_text = m.group(0)
        if kind == "setup":
            yield _Token("setup", m.group("sfen"), line, "", i)
        elif kind == "move":
            yield _Token("move", m.group("move"), line, m.group("marks") or "", i)
        elif kind == "result":
            text_ = token_text.strip()
            yield _Token(kind, "*" if text_ == "-" else text_, line, "", i)  # '-': the result is unknown
        elif kind in ("number", "open", "close", "nag"):
            yield _Token(kind, token_text.strip(), line, "", i)
        elif kind in ("strength", "marks_alone"):
            yield _Token("nag", token_text.strip("() \t"), line, "", i)
        line += token_text.count("\n")
        i = m.end()


# -- games -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Clock:
    """Clock times from a ``{[%clock w0:12:10 B0:11:03]}`` comment (seconds)."""

    white: float | None
    black: float | None
    running: Color | None  # the side whose letter is upper case

    def comment(self) -> str:
        def fmt(letter: str, seconds: float | None) -> str:
            if seconds is None:
                return ""
            s = round(seconds)
            return f"{letter}{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"

        w = fmt("W" if self.running is Color.WHITE else "w", self.white)
        b = fmt("B" if self.running is Color.BLACK else "b", self.black)
        return "[%clock " + " ".join(x for x in (w, b) if x) + "]"


_CLOCK_RE = re.compile(r"\[%clock\s+([^\]]*)\]")
_TIME_RE = re.compile(r"([wWbB])\s*([0-9]{1,7}(?::[0-9]{1,2}){0,2}(?:\.[0-9]{1,6})?)(?![0-9])")


def parse_clock(comment: str) -> Clock | None:
    """The clock in a comment, if it has one."""
    m = _CLOCK_RE.search(comment)
    if not m:
        return None
    white = black = None
    running = None
    for letter, value in _TIME_RE.findall(m.group(1)):
        seconds = 0.0
        for part in value.split(":"):
            seconds = seconds * 60 + float(part)
        if letter in "wW":
            white = seconds
        else:
            black = seconds
        if letter.isupper():
            running = Color.WHITE if letter == "W" else Color.BLACK
    return Clock(white, black, running)


@dataclass
class PdnMove:
    """A move of a PDN game with what the file said about it."""

    move: Move
    text: str = ""
    nags: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    line: int = 0
    #: the lines played instead of this move (PDN's ``( ... )`` after it), each with variations of its own
    variations: list[list[PdnMove]] = field(default_factory=list)

    @property
    def clock(self) -> Clock | None:
        for c in self.comments:
            clock = parse_clock(c)
            if clock:
                return clock
        return None


@dataclass
class PdnGame:
    """One game of a PDN file: tags, start position, moves, comments, set-ups, result."""

    variant: Variant
    tags: dict[str, str] = field(default_factory=dict)
    start: Position | None = None
    moves: list[PdnMove] = field(default_factory=list)
    #: PDN 3.0 ``/FEN "..."/`` set-ups, by the index of the move they come before
    setups: dict[int, Position] = field(default_factory=dict)
    intro: list[str] = field(default_factory=list)
    result: str = "*"
    source: str = "<string>"
    line: int = 0
    index: int = 0
    #: set when part of the game could not be read (the moves before it are kept)
    error: PdnSyntaxError | None = None
    #: problems read around that cost no move (a broken tag line skipped, a tag without its '[')
    warnings: list[PdnSyntaxError] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.start is None:
            self.start = Position.start(self.variant)

    @property
    def start_position(self) -> Position:
        assert self.start is not None
        return self.start

    def title(self) -> str:
        white = self.tags.get("White", "?")
        black = self.tags.get("Black", "?")
        return f"game {self.index} ({white} - {black})"

    def game(self) -> Game:
        """Replay into a :class:`rules.Game` (set-ups included)."""
        g = Game(self.variant, self.start_position)
        for i, pm in enumerate(self.moves):
            if i in self.setups:
                g.setup(self.setups[i])
            g.push(pm.move, after_end=True)
        if len(self.moves) in self.setups:
            g.setup(self.setups[len(self.moves)])
        winner = parse_result(self.result)
        if winner != "*" and g.outcome() is None:
            g.set_result(self.result)
        return g

    @classmethod
    def from_game(cls, game: Game, tags: dict[str, str] | None = None, result: str | None = None) -> PdnGame:
        """A PDN record of a game (moves and set-ups as played).

        A tag the writer would refuse (:func:`check_tag`; say, one stored before names were
        checked) is left out and named in a comment before the moves, so that the record
        can always be written."""
        kept: dict[str, str] = {}
        left_out: list[str] = []
        for key, value in (tags or {}).items():
            try:
                check_tag(key, value)
            except PdnTagError as exc:
                left_out.append("tag left out: " + str(exc).translate({ord("{"): "(", ord("}"): ")"}))
                continue
            kept[key] = value
        pg = cls(game.variant, kept, game.start, intro=left_out)
        for entry in game.history():
            if isinstance(entry, Position):
                pg.setups[len(pg.moves)] = entry
            else:
                pg.moves.append(PdnMove(entry))
        pg.result = result if result is not None else game.result()
        return pg

    # -- writing ------------------------------------------------------------------------
    def pdn(self, result_style: str = "variant", width: int = 79) -> str:
        """The game as strict PDN 3.0 text (``result_style="2-0"`` for lidraughts style)."""
        variant = self.variant
        for key, value in self.tags.items():
            check_tag(key, value)
        result = _styled_result(self.result, variant, result_style)
        tags: dict[str, str] = {}
        for key in ROSTER:
            tags[key] = self.tags.get(key) or "?"
        tags["Result"] = result
        tags["GameType"] = variant.pdn_gametype
        start = self.start_position
        if start != Position.start(variant):
            tags["FEN"] = start.fen()
        for key, value in self.tags.items():
            if key not in tags and key not in ("GameType", "FEN"):
                tags[key] = value
        lines = [f'[{k} "{_escape(v)}"]' for k, v in tags.items()]
        words: list[str] = [f"{{{c}}}" for c in self.intro]
        words += _line_words(start, self.moves, 1, self.setups)
        if len(self.moves) in self.setups:
            words.append(f'/FEN "{self.setups[len(self.moves)].fen()}"/')
        words.append(result)
        text_lines: list[str] = []
        cur = ""
        for w in words:
            if cur and len(cur) + 1 + len(w) > width:
                text_lines.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}" if cur else w
        if cur:
            text_lines.append(cur)
        return "\n".join(lines) + "\n\n" + "\n".join(text_lines) + "\n"


def _line_words(
    pos: Position, moves: list[PdnMove], number: int, setups: dict[int, Position] | None = None
) -> list[str]:
    """The words of a line of moves from ``pos`` (move ``number``), each move's variations in
    parentheses after it, set-ups (the main line's) before the move they precede."""
    words: list[str] = []
    need_number = True
    for i, pm in enumerate(moves):
        if setups and i in setups:
            pos = setups[i]
            words.append(f'/FEN "{pos.fen()}"/')
            need_number = True
        if pos.turn is Color.WHITE:
            words.append(f"{number}.")
        elif need_number:
            words.append(f"{number}...")
        need_number = bool(pm.comments or pm.variations)
        words.append(pos.pdn(pm.move) + "".join(n for n in pm.nags if not n.startswith("$")))
        words.extend(n for n in pm.nags if n.startswith("$"))
        words.extend(f"{{{c}}}" for c in pm.comments)
        for line in pm.variations:
            inner = _line_words(pos, line, number)
            if inner:
                inner[0], inner[-1] = "(" + inner[0], inner[-1] + ")"
                words += inner
        if pos.turn is Color.BLACK:
            number += 1
        pos = pos.apply(pm.move)
    return words


def check_tag(key: object, value: object, *, strict: bool = False) -> None:
    """Raise :class:`PdnTagError` unless the writer can write this tag and a reader get it back.

    A tag name is a PDN symbol starting with a capital letter (``[A-Z][A-Za-z0-9_+#=:-]*``,
    at most 64 characters); a value is a string of at most ``MAX_TAG_VALUE`` characters.
    Quotes and backslashes in a value are escaped; control characters (line breaks, tabs)
    are written as spaces (``strict``: refused, as the HTTP API does)."""
    if not isinstance(key, str) or not TAG_NAME_RE.fullmatch(key):
        raise PdnTagError(
            f"bad tag name {shown(key)}: a tag name starts with a capital letter A-Z and holds only "
            "letters A-Z a-z, digits and _ + # = : - (at most 64)"
        )
    if not isinstance(value, str):
        raise PdnTagError(f"tag {key}: the value must be text, not {shown(value)}")
    if len(value) > MAX_TAG_VALUE:
        raise PdnTagError(f"tag {key}: the value is longer than {MAX_TAG_VALUE // 1024} KiB ({len(value):,} chars)")
    if strict and _CONTROL_RE.search(value):
        raise PdnTagError(f"tag {key}: the value holds a control character (a line break or a tab): {shown(value)}")


def _escape(value: str) -> str:
    """A tag value between quotes: backslash and quote escaped, control characters as spaces,
    and ``&`` as ``&amp;`` in a value where the reader would take what follows it for a
    character entity (``&quot;``, ``&#10;``): every value reads back as it was written."""
    if "&" in value and html.unescape(value) != value:
        value = value.replace("&", "&amp;")
    return _CONTROL_RE.sub(" ", value).replace("\\", "\\\\").replace('"', '\\"')


def _styled_result(result: str, variant: Variant, style: str) -> str:
    try:
        winner = parse_result(result)
    except InvalidResultError:
        return "*"
    if winner == "*":
        return "*"
    if style == "2-0":
        return {Color.WHITE: "2-0", Color.BLACK: "0-2", None: "1-1"}[winner]  # type: ignore[index]
    if style == "1-0":
        return {Color.WHITE: "1-0", Color.BLACK: "0-1", None: "1/2-1/2"}[winner]  # type: ignore[index]
    white, draw, black = variant.results
    return draw if winner is None else white if winner is Color.WHITE else black


RESULT_STYLES = ("variant", "2-0", "1-0")


def write_pdn(games: Iterable[PdnGame], result_style: str = "variant", *, compat: bool = False) -> str:
    """A multi-game PDN file (``result_style``: the variant's own, ``"2-0"`` or ``"1-0"``).

    ``compat=True`` writes a game with mid-game set-ups as consecutive games
    (:func:`split_at_setups`), for readers that do not know PDN 3.0's ``/FEN "..."/``.
    """
    if result_style not in RESULT_STYLES:
        raise ValueError(f"unknown result style {result_style!r} (one of {', '.join(RESULT_STYLES)})")
    if compat:
        games = [part for g in games for part in split_at_setups(g)]
    return "\n".join(g.pdn(result_style) for g in games)


def split_at_setups(game: PdnGame) -> list[PdnGame]:
    """A game with mid-game set-ups as consecutive games, each later part starting from its set-up
    position (a ``FEN`` tag), every part with an ``Annotator`` note saying which part of the game
    it is; the result belongs to the last part, the earlier ones end ``*``. A game without
    set-ups is returned as it is."""
    if not game.setups:
        return [game]
    bounds = sorted({0, *game.setups, len(game.moves)})
    segments = [(game.setups.get(a, game.start_position), game.moves[a:b]) for a, b in pairwise(bounds)]
    if len(game.moves) in game.setups:  # the position set up after the last move
        segments.append((game.setups[len(game.moves)], []))
    segments = [seg for i, seg in enumerate(segments) if seg[1] or i == len(segments) - 1]
    parts: list[PdnGame] = []
    for k, (start, moves) in enumerate(segments):
        tags = {key: value for key, value in game.tags.items() if key != "FEN"}
        tags["Annotator"] = f"part {k + 1} of {len(segments)}" + (
            ": continues the game above after a set-up" if k else ": the game goes on after a set-up"
        )
        part = PdnGame(game.variant, tags, start, list(moves), source=game.source, index=game.index)
        part.intro = list(game.intro) if k == 0 else []
        part.result = game.result if k == len(segments) - 1 else "*"
        parts.append(part)
    return parts


# -- reading -----------------------------------------------------------------------------------
@dataclass
class _RawGame:
    line: int
    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)  # the tag names as written (a repeated one starts a game)
    body: list[_Token] = field(default_factory=list)
    result: str | None = None
    has_moves: bool = False
    #: text that could not be read in the move text: the game ends there (its moves before it load)
    cut: _Token | None = None
    #: problems that cost no move: a broken tag line skipped, a tag without its '['
    warnings: list[_Token] = field(default_factory=list)

    def empty(self) -> bool:
        return not self.tags and not self.body and self.result is None and self.cut is None and not self.warnings


def _split_games(tokens: Iterable[_Token], source: str = "<string>") -> Iterator[_RawGame]:
    cur: _RawGame | None = None
    depth = 0
    count = 0
    start = 0
    for tok in tokens:
        if cur is None:
            cur = _RawGame(tok.line)
            count, start = 0, tok.pos
        if tok.kind == "tag" and depth == 0 and (cur.has_moves or cur.cut is not None or tok.text in cur.names):
            yield cur
            cur = _RawGame(tok.line)
            count, start = 0, tok.pos
        count += 1
        if count > MAX_GAME_TOKENS or tok.pos - start > MAX_GAME_CHARS:
            what = f"more than {MAX_GAME_TOKENS:,} tokens" if count > MAX_GAME_TOKENS else "longer than 1 MiB"
            raise PdnSyntaxError(
                f"the game starting at line {cur.line} is {what} (is its result missing?)", source=source, line=tok.line
            )
        if tok.kind == "warning" or (
            tok.kind == "error" and not cur.body and cur.cut is None and (tok.extra == "tag" or not cur.tags)
        ):
            # a broken tag line in the header (that tag is lost, not the game), or stray text between games
            cur.warnings.append(tok)
            continue
        if tok.kind == "error":
            if cur.cut is None:
                cur.cut = tok
            depth = 0
            continue
        if cur.cut is not None:
            continue  # what follows a cut, up to the next tag, belongs to no game
        if tok.kind == "tag" and depth == 0:
            cur.names.add(tok.text)
            if tok.extra or tok.text not in ("Empty",):
                key = standard_tag_name(tok.text)
                if key != tok.text and key in cur.tags:  # a localised name never hides the standard one
                    key = tok.text
                value = tok.extra
                if key == "Result" and value.strip() == "-":
                    value = "*"
                cur.tags[key] = value
                cur.tag_lines[key] = tok.line
            continue
        if tok.kind == "open":
            depth += 1
        elif tok.kind == "close":
            depth = max(0, depth - 1)
        elif tok.kind == "result" and depth == 0:
            cur.result = tok.text
            yield cur
            cur = None
            continue
        elif tok.kind == "move" and depth == 0:
            cur.has_moves = True
        cur.body.append(tok)
    if cur is not None and not cur.empty() and (cur.tags or cur.has_moves or cur.cut or cur.warnings):
        yield cur


def _infer_variant(raw: _RawGame) -> Variant:
    gametype = raw.tags.get("GameType")
    if gametype:
        v = variant_for_gametype(gametype)
        if v is None:
            raise PdnSyntaxError(f"unsupported GameType {gametype!r}", line=raw.tag_lines.get("GameType", raw.line))
        return v
    # no GameType: algebraic squares mean 8x8; otherwise PDN's default, International
    texts = [t.text for t in raw.body if t.kind == "move"]
    for fen in [raw.tags.get("FEN", "")] + [t.text for t in raw.body if t.kind == "setup"]:
        texts.extend(field[1:].replace("K", "") for field in fen.split(":")[1:])
    if any(re.search(r"[a-jA-J][0-9]", t) for t in texts):
        return BRAZILIAN
    return INTERNATIONAL


def _replay(pg: PdnGame, moves: list[tuple[_Token, list[_Token]]], setups: dict[int, tuple[_Token, str]]) -> None:
    """Resolve the move texts against the rules; ambiguous ones by the moves that follow."""
    source = pg.source

    def position_after_setup(i: int, pos: Position) -> Position:
        if i in setups:
            tok, fen = setups[i]
            try:
                new = Position.from_fen(fen, pg.variant)
            except DraughtsError as exc:
                raise PdnSyntaxError(f"{pg.title()}: bad set-up: {exc}", source=source, line=tok.line) from None
            pg.setups[i] = new
            return new
        return pos

    def candidates(pos: Position, text: str) -> list[Move]:
        try:
            return pos.match_moves(text)
        except InvalidMoveError:
            return []

    def fits(pos: Position, i: int, budget: int) -> bool:
        """Can moves i.. (up to ``budget`` of them) be played from ``pos``?"""
        while i < len(moves) and budget > 0:
            pos = position_after_setup(i, pos) if i in setups else pos
            cands = candidates(pos, moves[i][0].text)
            if not cands:
                return False
            if len(cands) > 1:
                return any(fits(pos.apply(c), i + 1, budget - 1) for c in cands)
            pos = pos.apply(cands[0])
            i += 1
            budget -= 1
        return True

    pos = pg.start_position
    for i, (tok, notes) in enumerate(moves):
        pos = position_after_setup(i, pos)
        try:
            cands = pos.match_moves(tok.text)
        except InvalidMoveError as exc:
            raise PdnSyntaxError(
                f"{pg.title()}: move {_move_label(pos, pg, i)}{tok.text!r}: {exc}", source=source, line=tok.line
            ) from None
        if len(cands) > 1:
            cands = [c for c in cands if fits(pos.apply(c), i + 1, 8)] or cands[:0]
        if not cands:
            why = "illegal move" if not pos.match_moves(tok.text) else "no reading of it lets the game go on"
            legal = " ".join(pos.pdn(m) for m in pos.legal_moves) or "none"
            raise PdnSyntaxError(
                f"{pg.title()}: move {_move_label(pos, pg, i)}{tok.text!r}: {why} (legal: {legal})",
                source=source,
                line=tok.line,
            )
        move = cands[0]
        pm = PdnMove(move, tok.text, [tok.extra] if tok.extra else [], [], tok.line)
        for note in notes:
            if note.kind == "nag":
                pm.nags.append(note.text)
            elif note.kind == "comment":
                pm.comments.append(note.text)
        pg.moves.append(pm)
        pos = pos.apply(move)
    position_after_setup(len(moves), pos)


def _read_variations(pg: PdnGame, variations: dict[int, list[list[_Token]]]) -> None:
    """Each variation read against the position it branches from: before the move it follows
    (PDN's rule: the line played instead of that move), or, when its first move cannot be played
    there, after it (files that write a continuation so). A move that cannot be read ends its
    variation there (the moves before it are kept); a variation after the main line's last move,
    or in a game that has set-ups, is not read."""
    if not variations or pg.setups:
        return
    positions = [pg.start_position]
    for pm in pg.moves:
        positions.append(positions[-1].apply(pm.move))
    for i, groups in variations.items():
        if i >= len(pg.moves):
            continue
        for tokens in groups:
            line = _variation(positions[i], tokens)
            if line:
                pg.moves[i].variations.append(line)
            elif i + 1 < len(pg.moves) and (line := _variation(positions[i + 1], tokens)):
                pg.moves[i + 1].variations.append(line)


def _variation(pos: Position, tokens: list[_Token], depth: int = 1) -> list[PdnMove]:
    """A variation's moves from ``pos``, its nested variations attached to the moves they replace
    (nested up to ``MAX_VARIATION_DEPTH``: deeper ones are not read)."""
    line: list[PdnMove] = []
    before = pos
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "open":
            open_, j = 1, i + 1  # the parenthesis that closes this one
            while j < len(tokens) and open_:
                open_ += {"open": 1, "close": -1}.get(tokens[j].kind, 0)
                j += 1
            if line and depth < MAX_VARIATION_DEPTH and (inner := _variation(before, tokens[i + 1 : j - 1], depth + 1)):
                line[-1].variations.append(inner)
            i = j
            continue
        if tok.kind == "move":
            try:
                cands = pos.match_moves(tok.text)
            except InvalidMoveError:
                cands = []
            if not cands:
                break
            line.append(PdnMove(cands[0], tok.text, [tok.extra] if tok.extra else [], [], tok.line))
            before, pos = pos, pos.apply(cands[0])
        elif tok.kind == "nag" and line:
            line[-1].nags.append(tok.text)
        elif tok.kind == "comment" and line:
            line[-1].comments.append(tok.text)
        elif tok.kind == "setup":
            break
        i += 1
    return line


def _move_label(pos: Position, pg: PdnGame, i: int) -> str:
    first_black = pg.start_position.turn is Color.BLACK
    number = (i + (1 if first_black else 0)) // 2 + 1
    return f"{number}. " if pos.turn is Color.WHITE else f"{number}... "


def _build(raw: _RawGame, source: str, index: int, variant: Variant | None) -> PdnGame:
    try:
        v = variant or _infer_variant(raw)
    except PdnSyntaxError as exc:
        v = INTERNATIONAL
        pg = PdnGame(v, dict(raw.tags), source=source, line=raw.line, index=index)
        pg.warnings = [PdnSyntaxError(f"{pg.title()}: {w.text}", source=source, line=w.line) for w in raw.warnings]
        pg.error = PdnSyntaxError(f"{pg.title()}: {exc.reason}", source=source, line=exc.line)
        return pg
    pg = PdnGame(v, dict(raw.tags), source=source, line=raw.line, index=index)
    pg.warnings = [PdnSyntaxError(f"{pg.title()}: {w.text}", source=source, line=w.line) for w in raw.warnings]
    fen = raw.tags.get("FEN", "").strip()
    try:
        if fen:
            pg.start = Position.from_fen(fen, v)
        # collect the main line: moves with their notes, set-ups; the variations after each move aside
        moves: list[tuple[_Token, list[_Token]]] = []
        setups: dict[int, tuple[_Token, str]] = {}
        variations: dict[int, list[list[_Token]]] = {}
        depth = 0
        for tok in raw.body:
            if tok.kind == "open":
                depth += 1
                if depth == 1 and moves:
                    variations.setdefault(len(moves) - 1, []).append([])
                    continue
            elif tok.kind == "close":
                depth = max(0, depth - 1)
                if depth == 0:
                    continue
            if depth:
                if moves and len(moves) - 1 in variations:
                    variations[len(moves) - 1][-1].append(tok)
                continue
            if tok.kind == "move":
                moves.append((tok, []))
            elif tok.kind in ("comment", "nag"):
                if moves:
                    moves[-1][1].append(tok)
                elif tok.kind == "comment":
                    pg.intro.append(tok.text)
            elif tok.kind == "setup":
                setups[len(moves)] = (tok, tok.text)
        _replay(pg, moves, setups)
        _read_variations(pg, variations)
        if raw.cut is not None:
            cut = raw.cut
            raise PdnSyntaxError(f"{pg.title()}: {cut.text}; the game is cut here", source=source, line=cut.line)
    except PdnSyntaxError as exc:
        pg.error = exc
    except DraughtsError as exc:  # a bad FEN tag
        pg.error = PdnSyntaxError(f"{pg.title()}: {exc}", source=source, line=raw.tag_lines.get("FEN", raw.line))
    result = raw.result or "*"
    tag_result = raw.tags.get("Result", "").strip()
    if result in ("*", "0-0") and tag_result:
        try:
            if parse_result(tag_result) != "*":
                result = tag_result
        except InvalidResultError:
            pass
    pg.result = result
    return pg


def iter_games(text: str, source: str = "<string>", variant: Variant | str | None = None) -> Iterator[PdnGame]:
    """Every game of a PDN text, in order; a game that could not be read whole has
    ``error`` set (with file and line) and keeps the moves read before the error.

    A syntax error that stops the tokenizer (say, an unclosed comment) is raised as
    :class:`PdnSyntaxError` after the games before it have been yielded.
    """
    v = find_variant(variant) if variant is not None else None
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    for index, raw in enumerate(_split_games(_tokenize(text, source), source), start=1):
        yield _build(raw, source, index, v)


def read_pdn(text: str, source: str = "<string>", variant: Variant | str | None = None) -> list[PdnGame]:
    """All games of a PDN text; raises :class:`PdnSyntaxError` on the first problem."""
    games = []
    for g in iter_games(text, source, variant):
        if g.error:
            raise g.error
        games.append(g)
    return games


def read_game(text: str, variant: Variant | str | None = None) -> PdnGame:
    games = read_pdn(text, variant=variant)
    if not games:
        raise PdnSyntaxError("no game found")
    return games[0]


def load_pdn(path: str | Path, variant: Variant | str | None = None) -> list[PdnGame]:
    """Read a PDN file (UTF-8, falling back to Latin-1 for old files)."""
    p = Path(path)
    return read_pdn(read_pdn_file(p), str(p), variant)


def read_pdn_file(path: str | Path) -> str:
    """A PDN file's text, read in a bounded way: a file above ``MAX_FILE_BYTES`` (or an
    endless one such as ``/dev/zero``) raises :class:`PdnSyntaxError`; ``OSError`` passes."""
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise PdnSyntaxError(f"larger than {MAX_FILE_BYTES // 2**20} MiB: split the collection", source=str(path))
    return decode_pdn(data)


def decode_pdn(data: bytes) -> str:
    """PDN file contents as text: UTF-8, falling back to Latin-1 for old files."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_GAME_CHARS",
    "MAX_GAME_TOKENS",
    "MAX_TAG_VALUE",
    "ROSTER",
    "TAG_NAME_RE",
    "AmbiguousMoveError",
    "Clock",
    "PdnGame",
    "PdnMove",
    "PdnTagError",
    "check_tag",
    "decode_pdn",
    "iter_games",
    "load_pdn",
    "parse_clock",
    "read_game",
    "read_pdn",
    "read_pdn_file",
    "standard_tag_name",
    "write_pdn",
]
