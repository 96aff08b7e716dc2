"""English and Portuguese: the page's words and every report message.

Reports are rendered from their kind and squares, so each language reads naturally;
the referee's own English sentence is the fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from referee import Report

LANGUAGES = ("en", "pt")

UI: dict[str, dict[str, str]] = {
    "en": {
        "title": "Draughts board",
        "turn_white": "White to move",
        "turn_black": "Black to move",
        "result": "Result",
        "moves": "Moves",
        "reports": "Reports",
        "flip": "Flip board",
        "download": "Download PDN",
        "resign_white": "White resigns",
        "resign_black": "Black resigns",
        "draw": "Agreed draw",
        "new_game": "New game",
        "setup": "Set up from FEN",
        "fen_hint": "FEN, K for kings (e.g. W:W31-50:B1-20)",
        "white": "White",
        "black": "Black",
        "event": "Event",
        "save_tags": "Save tags and result",
        "board_as_sensed": "On the board (sensors)",
        "board_as_known": "In the game",
        "help": "Drag a piece to move it (drop on intermediate squares to touch down). "
        "Click a piece to take it off, click an empty square to put a piece there.",
        "game": "Game",
        "mode": "Mode",
        "casual": "casual",
        "tournament": "tournament",
        "over": "Game over",
        "token": "Actions need the token printed when damas started",
        "setup_mode": "Set up a position",
        "setup_start": "Start from this position",
        "setup_cancel": "Cancel",
        "setup_clear": "Empty the board",
        "setup_hint": "Click a square: white man, white king, black man, black king, empty.",
        "to_move": "to move",
        "variant_brazilian": "Brazilian draughts",
        "variant_international": "International draughts",
        "variant_portuguese": "Portuguese draughts",
        "link_up": "Board connected",
        "link_down": "The board is not connected: its LEDs cannot be updated, and the moves made now "
        "are checked when it is back (if they cannot be told apart, the position must be restored)",
    },
    "pt": {
        "title": "Tabuleiro de damas",
        "turn_white": "Vez das brancas",
        "turn_black": "Vez das pretas",
        "result": "Resultado",
        "moves": "Lances",
        "reports": "Avisos",
        "flip": "Virar tabuleiro",
        "download": "Descarregar PDN",
        "resign_white": "Brancas abandonam",
        "resign_black": "Pretas abandonam",
        "draw": "Empate acordado",
        "new_game": "Nova partida",
        "setup": "Posição a partir de FEN",
        "fen_hint": "FEN, K para damas (ex.: W:W31-50:B1-20)",
        "white": "Brancas",
        "black": "Pretas",
        "event": "Evento",
        "save_tags": "Guardar dados e resultado",
        "board_as_sensed": "No tabuleiro (sensores)",
        "board_as_known": "No jogo",
        "help": "Arraste uma peça para a mover (largue nas casas intermédias para tocar). "
        "Clique numa peça para a retirar, numa casa vazia para pôr uma peça.",
        "game": "Partida",
        "mode": "Modo",
        "casual": "amigável",
        "tournament": "torneio",
        "over": "Fim da partida",
        "token": "As ações precisam do código mostrado ao iniciar o damas",
        "setup_mode": "Preparar uma posição",
        "setup_start": "Começar desta posição",
        "setup_cancel": "Cancelar",
        "setup_clear": "Esvaziar o tabuleiro",
        "setup_hint": "Clique numa casa: pedra branca, dama branca, pedra preta, dama preta, vazia.",
        "to_move": "joga",
        "variant_brazilian": "Damas brasileiras",
        "variant_international": "Damas internacionais",
        "variant_portuguese": "Damas clássicas (portuguesas)",
        "link_up": "Tabuleiro ligado",
        "link_down": "O tabuleiro não está ligado: as luzes não podem ser atualizadas, e os lances feitos agora "
        "são verificados quando voltar (se não se puderem distinguir, a posição terá de ser reposta)",
    },
}

Names = Callable[[tuple[int, ...]], str]

_PT: dict[str, str] = {
    "setup": "Arrume a posição: coloque peças em {missing}; retire as peças de {extra}",
    "setup-ok": "Posição pronta: pode começar",
    "required-capture": "Captura obrigatória: capture com {squares}",
    "wrong-side": "Não é a vez dessa cor: devolva a peça a {missing}",
    "backward-man": "A pedra não anda para trás: devolva-a a {missing}",
    "illegal-square": "Lance ilegal: devolva a peça a {missing}",
    "no-legal-move": "Essa peça não tem lance: devolva-a a {squares}",
    "off-square": "Há uma peça numa casa que não se joga ({cells})",
    "own-piece-removed": "Peça própria retirada: recoloque-a em {missing}",
    "wrong-piece-removed": "Essa peça não foi capturada: recoloque-a em {missing}",
    "captured-piece-left": "Retire a peça capturada em {extra} antes do lance seguinte",
    "knocked-over": "Peças fora do lugar: recoloque em {missing}",
    "unexplained": "O tabuleiro não corresponde ao jogo: recoloque em {missing}; retire de {extra}",
    "touch-move": "Peça tocada, peça jogada: {squares}",
    "correction": "A peça foi mexida de novo depois de solta: reponha {missing}",
    "takeback": "O lance anterior foi desfeito: reponha-o",
    "procedure": "Peças capturadas retiradas antes do fim da captura ou fora de ordem",
    "irregularity-accepted": "O adversário continuou: a posição irregular fica valendo",
    "restored": "O tabuleiro voltou a corresponder ao jogo",
    "game-over": "A partida terminou: não há mais lances",
    "reconstructed": "O tabuleiro esteve desligado: lances feitos entretanto registados ({moves})",
    "link-gap": "Os lances feitos com o tabuleiro desligado não se distinguem: reponha a última posição "
    "conhecida (a do jogo na página): coloque peças em {missing}; retire as peças de {extra}",
}

# the banner (and the answer to an action) while the records cannot be written
RECORDS_ERROR = {
    "en": "Cannot write the records: {reason}. The board is paused and keeps what it saw; play resumes by itself "
    "when writing works again.",
    "pt": "Não é possível gravar os registos: {reason}. O tabuleiro está em pausa e guarda o que viu; o jogo "
    "continua sozinho quando a gravação voltar a funcionar.",
}

TERMINATIONS = {
    "en": {
        "no-pieces": "no pieces left",
        "no-moves": "no legal move",
        "kings-only": "draw: kings-only moves",
        "small-ending": "draw: small ending",
        "repetition": "draw: repetition",
        "resignation": "resignation",
        "agreement": "draw agreed",
        "result-entered": "result entered",
        "time-forfeit": "loss on time",
    },
    "pt": {
        "no-pieces": "sem peças",
        "no-moves": "sem lances",
        "kings-only": "empate: só damas",
        "small-ending": "empate: final curto",
        "repetition": "empate: repetição",
        "resignation": "abandono",
        "agreement": "empate acordado",
        "result-entered": "resultado registado",
        "time-forfeit": "derrota por tempo",
    },
}


# -- the game clock (its own block: the page's clock and its reports) ------------------------
CLOCK_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "clock": "Clock",
        "press_white": "White's clock button",
        "press_black": "Black's clock button",
        "press_hint": "Space bar: the button of the side whose clock runs",
        "pause": "Pause the clocks",
        "resume": "Resume the clocks",
        "adjust": "Set the clocks",
        "paused": "Clocks paused",
        "paused_power": "Clocks paused after a power cut: the player to move presses the clock, or the arbiter resumes",
        "flag": "Flag fallen",
        "not_started": "The first press starts the clock of the side to move",
        "took": "time taken",
        "control": "Time control",
        "auto": "pressed by the moves",
        "white_time": "White's time (m:ss)",
        "black_time": "Black's time (m:ss)",
    },
    "pt": {
        "clock": "Relógio",
        "press_white": "Botão do relógio das brancas",
        "press_black": "Botão do relógio das pretas",
        "press_hint": "Barra de espaço: o botão do lado cujo relógio corre",
        "pause": "Parar os relógios",
        "resume": "Retomar os relógios",
        "adjust": "Acertar os relógios",
        "paused": "Relógios parados",
        "paused_power": "Relógios parados após uma falha de energia: o jogador da vez carrega no relógio, "
        "ou o árbitro retoma",
        "flag": "Tempo esgotado",
        "not_started": "O primeiro toque põe a correr o relógio de quem joga",
        "took": "tempo gasto",
        "control": "Ritmo de jogo",
        "auto": "acionado pelos lances",
        "white_time": "Tempo das brancas (m:ss)",
        "black_time": "Tempo das pretas (m:ss)",
    },
}

#: the clock's reports, by kind: ``{side}`` is the side named in the report, ``{other}`` its opponent
CLOCK_MESSAGES: dict[str, dict[str, str]] = {
    "en": {},  # the referee's own sentences
    "pt": {
        "clock-early": "As {side} carregaram no relógio antes de retirar as peças capturadas ({squares}): "
        "o relógio não mudou",
        "clock-no-move": "As {side} carregaram no relógio sem ter jogado: o relógio não mudou",
        "clock-wrong-side": "As {side} carregaram no relógio, mas é o relógio das {other} que corre",
        "clock-not-pressed": "Jogou-se com o relógio das {side} a correr: as {side} não carregaram no relógio",
        "flag-fall": "Acabou o tempo das {side}: perdem por tempo",
        "clock-paused": "Relógios parados",
        "clock-resumed": "Os relógios voltaram a correr",
        "clock-adjusted": "O árbitro acertou os relógios",
    },
}
_SIDES = {"pt": {"white": ("brancas", "pretas"), "black": ("pretas", "brancas")}}


def message(report: Report, lang: str, names: Names) -> str:
    """A report's sentence in ``lang`` (``en`` keeps the referee's own words)."""
    clock = CLOCK_MESSAGES.get(lang, {}).get(report.kind.value)
    if clock is not None:
        side, other = _SIDES.get(lang, {}).get(str(report.params.get("side")), ("-", "-"))
        return clock.format(side=side, other=other, squares=names(report.squares) or "-")
    if lang != "pt":
        return report.message
    template = _PT.get(report.kind.value)
    if template is None:
        return report.message
    return template.format(
        squares=names(report.squares) or "-",
        missing=names(report.missing) or "-",
        extra=names(report.extra) or "-",
        cells=", ".join(report.cells) or "-",
        moves=" ".join(str(m) for m in report.params.get("moves", ())) or "-",
    )


def pick_language(configured: str | None, accept: str | None) -> str:
    """The configured language, else the browser's (Accept-Language), else English."""
    if configured in LANGUAGES:
        return configured
    for part in (accept or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"
