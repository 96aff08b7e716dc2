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
        "vs_computer": "Against the computer",
        "opponent": "Opponent",
        "opponent_human": "a person",
        "opponent_engine": "the computer",
        "computer_side": "The computer plays",
        "level": "Level",
        "thinking": "The computer is thinking…",
        "computer_move": "The computer plays {move}: make its move on the board",
        "hint": "Hint",
        "hint_is": "Hint: {move}",
        "hint_wait": "Looking for a hint…",
        "engine_failed": "{error}. The game goes on between the players.",
        "analyze": "Analyse the game",
        "analyzing": "Analysing… {done}/{total}",
        "analysis_done": "Analysis: {count} marked moves",
        "no_marks": "Analysis: no move loses material or the game",
        "mark_material": "loses material",
        "mark_game": "loses the game",
        "mark_win": "lets the win go",
        "better": "better",
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
        "vs_computer": "Contra o computador",
        "opponent": "Adversário",
        "opponent_human": "uma pessoa",
        "opponent_engine": "o computador",
        "computer_side": "O computador joga com",
        "level": "Nível",
        "thinking": "O computador está a pensar…",
        "computer_move": "O computador joga {move}: faça o lance dele no tabuleiro",
        "hint": "Sugestão",
        "hint_is": "Sugestão: {move}",
        "hint_wait": "À procura de uma sugestão…",
        "engine_failed": "{error}. A partida continua entre os jogadores.",
        "analyze": "Analisar a partida",
        "analyzing": "A analisar… {done}/{total}",
        "analysis_done": "Análise: {count} lances assinalados",
        "no_marks": "Análise: nenhum lance perde material nem a partida",
        "mark_material": "perde material",
        "mark_game": "perde a partida",
        "mark_win": "deixa escapar a vitória",
        "better": "melhor",
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
    "computer-move": "Faça o lance do computador {move}: devolva as peças a {missing}; retire as de {extra}",
    "computer-wait": "Espere pelo lance do computador: devolva as peças a {missing}; retire as de {extra}",
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
    },
}


def message(report: Report, lang: str, names: Names) -> str:
    """A report's sentence in ``lang`` (``en`` keeps the referee's own words)."""
    if lang != "pt":
        return report.message
    key = report.kind.value
    if key == "computer-move" and not report.params.get("move"):
        key = "computer-wait"  # the computer is still thinking
    template = _PT.get(key)
    if template is None:
        return report.message
    return template.format(
        squares=names(report.squares) or "-",
        missing=names(report.missing) or "-",
        extra=names(report.extra) or "-",
        cells=", ".join(report.cells) or "-",
        moves=" ".join(str(m) for m in report.params.get("moves", ())) or "-",
        move=report.params.get("move") or "-",
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
