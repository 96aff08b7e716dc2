"""The page's languages: Brazilian Portuguese, European Portuguese and English.

Every word the page shows comes from here: its labels, the report messages (rendered from
each report's kind and squares, so each language reads naturally; the referee's own
English sentence is the English text), the names of the report kinds, the LED legend, the
ends of games and the errors the server answers the page with. ``tests/app/test_i18n.py``
fails when a key is missing in any language.

``pt`` (and a Brazilian browser) means ``pt-BR``: the users of the Brazilian rules and of
the FENACEF regulation; ``pt-PT`` is for Portugal's players of Portuguese draughts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hall.lang import ALIASES, LANGUAGES, NATIVE, language, pick_language  # (shared with the hall's page)
from referee import Report, ReportKind

__all__ = ["ALIASES", "LANGUAGES", "NATIVE", "language", "pick_language"]

_UI_EN = {
    "title": "Draughts board",
    "turn_white": "White to move",
    "turn_black": "Black to move",
    "result": "Result",
    "moves": "Moves",
    "reports": "Reports",
    "no_reports": "Nothing to report",
    "flip": "Flip board",
    "download": "Download PDN",
    "resign_white": "White resigns",
    "resign_black": "Black resigns",
    "draw": "Agreed draw",
    "new_game": "New game",
    "new_game_start": "Start the new game",
    "variant": "Variant",
    "players": "Players",
    "fen_label": "Start position (FEN, optional)",
    "fen_hint": "FEN, K for kings (e.g. {example})",
    "fen_note": "Empty: the variant's start position",
    "white": "White",
    "black": "Black",
    "event": "Event",
    "save_tags": "Save tags and result",
    "help": "Drag a piece to move it (drop on intermediate squares to touch down). "
    "Click a piece to take it off, click an empty square to put a piece there. "
    "With the keyboard: arrow keys on the board, Enter to take off or put a piece.",
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
    "language": "Language",
    "legend": "What the lights mean",
    "steady": "steady",
    "slow": "slow blink",
    "fast": "fast blink",
    "live": "Back to the live position",
    "viewing": "Position after {move}",
    "viewing_start": "Start position",
    "first": "First move",
    "previous": "Previous move",
    "next": "Next move",
    "last": "Last move",
    "fen_shown": "FEN of the shown position",
    "copy": "Copy",
    "copied": "Copied",
    "history_hint": "Click a move, or use the arrow keys, to see the position after it.",
    "board": "Board",
    "white_man": "white man",
    "white_king": "white king",
    "black_man": "black man",
    "black_king": "black king",
    "unknown_piece": "a piece not in the game",
    "empty": "empty",
    "last_move": "last move",
    "resolved": "resolved",
    "open": "still open",
    "no_moves": "No moves yet",
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
}

_UI_BR = {
    "title": "Tabuleiro de damas",
    "turn_white": "Vez das brancas",
    "turn_black": "Vez das pretas",
    "result": "Resultado",
    "moves": "Lances",
    "reports": "Avisos",
    "no_reports": "Nenhum aviso",
    "flip": "Girar o tabuleiro",
    "download": "Baixar PDN",
    "resign_white": "Brancas desistem",
    "resign_black": "Pretas desistem",
    "draw": "Empate combinado",
    "new_game": "Nova partida",
    "new_game_start": "Começar a nova partida",
    "variant": "Modalidade",
    "players": "Jogadores",
    "fen_label": "Posição inicial (FEN, opcional)",
    "fen_hint": "FEN, K para damas (ex.: {example})",
    "fen_note": "Em branco: a posição inicial da modalidade",
    "white": "Brancas",
    "black": "Pretas",
    "event": "Evento",
    "save_tags": "Salvar dados e resultado",
    "help": "Arraste uma peça para movê-la (solte nas casas intermediárias para tocá-las). "
    "Clique em uma peça para tirá-la, em uma casa vazia para colocar uma peça. "
    "Pelo teclado: setas no tabuleiro, Enter para tirar ou colocar uma peça.",
    "game": "Partida",
    "mode": "Modo",
    "casual": "amistoso",
    "tournament": "torneio",
    "over": "Fim da partida",
    "token": "As ações precisam do código mostrado ao iniciar o damas",
    "setup_mode": "Montar uma posição",
    "setup_start": "Começar desta posição",
    "setup_cancel": "Cancelar",
    "setup_clear": "Esvaziar o tabuleiro",
    "setup_hint": "Clique em uma casa: peça branca, dama branca, peça preta, dama preta, vazia.",
    "to_move": "jogam",
    "variant_brazilian": "Damas brasileiras",
    "variant_international": "Damas internacionais",
    "variant_portuguese": "Damas clássicas (portuguesas)",
    "link_up": "Tabuleiro conectado",
    "link_down": "O tabuleiro não está conectado: as luzes não podem ser atualizadas, e os lances feitos agora "
    "serão conferidos quando ele voltar (se não puderem ser distinguidos, a posição terá de ser refeita)",
    "language": "Idioma",
    "legend": "O que as luzes indicam",
    "steady": "fixa",
    "slow": "pisca devagar",
    "fast": "pisca rápido",
    "live": "Voltar à posição atual",
    "viewing": "Posição após {move}",
    "viewing_start": "Posição inicial",
    "first": "Primeiro lance",
    "previous": "Lance anterior",
    "next": "Próximo lance",
    "last": "Último lance",
    "fen_shown": "FEN da posição mostrada",
    "copy": "Copiar",
    "copied": "Copiado",
    "history_hint": "Clique em um lance, ou use as setas, para ver a posição depois dele.",
    "board": "Tabuleiro",
    "white_man": "peça branca",
    "white_king": "dama branca",
    "black_man": "peça preta",
    "black_king": "dama preta",
    "unknown_piece": "uma peça fora do jogo",
    "empty": "vazia",
    "last_move": "último lance",
    "resolved": "resolvido",
    "open": "pendente",
    "no_moves": "Nenhum lance ainda",
    "vs_computer": "Contra o computador",
    "opponent": "Adversário",
    "opponent_human": "uma pessoa",
    "opponent_engine": "o computador",
    "computer_side": "O computador joga com",
    "level": "Nível",
    "thinking": "O computador está pensando…",
    "computer_move": "O computador joga {move}: faça o lance dele no tabuleiro",
    "hint": "Sugestão",
    "hint_is": "Sugestão: {move}",
    "hint_wait": "Procurando uma sugestão…",
    "engine_failed": "{error}. A partida continua entre os jogadores.",
    "analyze": "Analisar a partida",
    "analyzing": "Analisando… {done}/{total}",
    "analysis_done": "Análise: {count} lances marcados",
    "no_marks": "Análise: nenhum lance perde material nem a partida",
    "mark_material": "perde material",
    "mark_game": "perde a partida",
    "mark_win": "deixa escapar a vitória",
    "better": "melhor",
}

_UI_PT = {
    "title": "Tabuleiro de damas",
    "turn_white": "Jogam as brancas",
    "turn_black": "Jogam as pretas",
    "result": "Resultado",
    "moves": "Lances",
    "reports": "Avisos",
    "no_reports": "Sem avisos",
    "flip": "Virar o tabuleiro",
    "download": "Descarregar PDN",
    "resign_white": "Brancas abandonam",
    "resign_black": "Pretas abandonam",
    "draw": "Empate acordado",
    "new_game": "Nova partida",
    "new_game_start": "Começar a nova partida",
    "variant": "Variante",
    "players": "Jogadores",
    "fen_label": "Posição inicial (FEN, opcional)",
    "fen_hint": "FEN, K para damas (ex.: {example})",
    "fen_note": "Em branco: a posição inicial da variante",
    "white": "Brancas",
    "black": "Pretas",
    "event": "Evento",
    "save_tags": "Guardar dados e resultado",
    "help": "Arraste uma peça para a mover (largue nas casas intermédias para tocar). "
    "Clique numa peça para a retirar, numa casa vazia para pôr uma peça. "
    "Com o teclado: setas no tabuleiro, Enter para retirar ou pôr uma peça.",
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
    "to_move": "jogam",
    "variant_brazilian": "Damas brasileiras",
    "variant_international": "Damas internacionais",
    "variant_portuguese": "Damas clássicas (portuguesas)",
    "link_up": "Tabuleiro ligado",
    "link_down": "O tabuleiro não está ligado: as luzes não podem ser atualizadas, e os lances feitos agora "
    "são verificados quando voltar (se não se puderem distinguir, a posição terá de ser reposta)",
    "language": "Língua",
    "legend": "O que as luzes indicam",
    "steady": "fixa",
    "slow": "pisca devagar",
    "fast": "pisca depressa",
    "live": "Voltar à posição actual",
    "viewing": "Posição depois de {move}",
    "viewing_start": "Posição inicial",
    "first": "Primeiro lance",
    "previous": "Lance anterior",
    "next": "Lance seguinte",
    "last": "Último lance",
    "fen_shown": "FEN da posição mostrada",
    "copy": "Copiar",
    "copied": "Copiado",
    "history_hint": "Clique num lance, ou use as setas, para ver a posição depois dele.",
    "board": "Tabuleiro",
    "white_man": "pedra branca",
    "white_king": "dama branca",
    "black_man": "pedra preta",
    "black_king": "dama preta",
    "unknown_piece": "uma peça fora do jogo",
    "empty": "vazia",
    "last_move": "último lance",
    "resolved": "resolvido",
    "open": "por resolver",
    "no_moves": "Ainda sem lances",
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
}

UI: dict[str, dict[str, str]] = {"en": _UI_EN, "pt-BR": _UI_BR, "pt-PT": _UI_PT}

#: the report kinds' names (the list shows them beside each message)
KINDS: dict[str, dict[str, str]] = {
    "en": {
        "setup": "set-up",
        "setup-ok": "set up",
        "required-capture": "capture is compulsory",
        "wrong-side": "not this side's move",
        "backward-man": "man moved backward",
        "illegal-square": "illegal move",
        "no-legal-move": "no legal move",
        "off-square": "off the playing squares",
        "own-piece-removed": "own piece removed",
        "wrong-piece-removed": "wrong piece removed",
        "captured-piece-left": "captured piece left",
        "knocked-over": "pieces out of place",
        "unexplained": "board does not match",
        "touch-move": "touch-move",
        "correction": "changed after release",
        "takeback": "move taken back",
        "procedure": "capture procedure",
        "irregularity-accepted": "irregularity stands",
        "restored": "restored",
        "game-over": "game over",
        "reconstructed": "moves recovered",
        "link-gap": "restore the position",
        "capture-continues": "capture not finished",
        "clock-early": "clock pressed too early",
        "clock-no-move": "clock pressed without a move",
        "clock-wrong-side": "wrong clock pressed",
        "clock-not-pressed": "clock not pressed",
        "flag-fall": "time is up",
        "clock-paused": "clocks paused",
        "clock-resumed": "clocks running",
        "clock-adjusted": "clocks set",
        "computer-move": "not the computer's move",
    },
    "pt-BR": {
        "setup": "arrumação",
        "setup-ok": "posição pronta",
        "required-capture": "captura obrigatória",
        "wrong-side": "vez do adversário",
        "backward-man": "peça para trás",
        "illegal-square": "lance ilegal",
        "no-legal-move": "sem lance",
        "off-square": "fora das casas de jogo",
        "own-piece-removed": "peça própria retirada",
        "wrong-piece-removed": "peça errada retirada",
        "captured-piece-left": "peça capturada no tabuleiro",
        "knocked-over": "peças fora do lugar",
        "unexplained": "tabuleiro diferente do jogo",
        "touch-move": "peça tocada",
        "correction": "mexida depois de solta",
        "takeback": "lance desfeito",
        "procedure": "procedimento de captura",
        "irregularity-accepted": "irregularidade mantida",
        "restored": "corrigido",
        "game-over": "partida encerrada",
        "reconstructed": "lances recuperados",
        "link-gap": "refaça a posição",
        "capture-continues": "captura não terminada",
        "clock-early": "relógio apertado cedo demais",
        "clock-no-move": "relógio apertado sem lance",
        "clock-wrong-side": "relógio errado",
        "clock-not-pressed": "relógio não apertado",
        "flag-fall": "tempo esgotado",
        "clock-paused": "relógios pausados",
        "clock-resumed": "relógios correndo",
        "clock-adjusted": "relógios ajustados",
        "computer-move": "lance do computador",
    },
    "pt-PT": {
        "setup": "arrumação",
        "setup-ok": "posição pronta",
        "required-capture": "captura obrigatória",
        "wrong-side": "vez do adversário",
        "backward-man": "pedra para trás",
        "illegal-square": "lance ilegal",
        "no-legal-move": "sem lance",
        "off-square": "fora das casas de jogo",
        "own-piece-removed": "peça própria retirada",
        "wrong-piece-removed": "peça errada retirada",
        "captured-piece-left": "peça capturada no tabuleiro",
        "knocked-over": "peças fora do lugar",
        "unexplained": "tabuleiro diferente do jogo",
        "touch-move": "peça tocada",
        "correction": "mexida depois de solta",
        "takeback": "lance desfeito",
        "procedure": "procedimento de captura",
        "irregularity-accepted": "irregularidade mantida",
        "restored": "corrigido",
        "game-over": "partida terminada",
        "reconstructed": "lances recuperados",
        "link-gap": "reponha a posição",
        "capture-continues": "captura por acabar",
        "clock-early": "relógio carregado cedo demais",
        "clock-no-move": "relógio carregado sem lance",
        "clock-wrong-side": "relógio errado",
        "clock-not-pressed": "relógio não carregado",
        "flag-fall": "tempo esgotado",
        "clock-paused": "relógios parados",
        "clock-resumed": "relógios a correr",
        "clock-adjusted": "relógios acertados",
        "computer-move": "lance do computador",
    },
}

Names = Callable[[tuple[int, ...]], str]

#: report messages; ``en`` keeps the referee's own sentence
REPORTS: dict[str, dict[str, str]] = {
    "pt-BR": {
        "setup": "Arrume a posição: coloque peças em {missing}; retire as peças de {extra}",
        "setup-ok": "Posição pronta: pode começar",
        "required-capture": "Captura obrigatória: capture com {squares}",
        "wrong-side": "Não é a vez dessa cor: devolva a peça para {missing}",
        "backward-man": "A peça não anda para trás: devolva-a para {missing}",
        "illegal-square": "Lance ilegal: devolva a peça para {missing}",
        "no-legal-move": "Essa peça não tem lance: devolva-a para {squares}",
        "off-square": "Há uma peça em uma casa que não é de jogo ({cells})",
        "own-piece-removed": "Peça própria retirada: recoloque-a em {missing}",
        "wrong-piece-removed": "Essa peça não foi capturada: recoloque-a em {missing}",
        "captured-piece-left": "Retire a peça capturada em {extra} antes do próximo lance",
        "knocked-over": "Peças fora do lugar: recoloque em {missing}",
        "unexplained": "O tabuleiro não corresponde ao jogo: recoloque em {missing}; retire de {extra}",
        "touch-move": "Peça tocada, peça jogada: {squares}",
        "correction": "A peça foi mexida de novo depois de solta: refaça {missing}",
        "takeback": "O lance anterior foi desfeito: refaça-o",
        "procedure": "Peças capturadas retiradas antes do fim da captura ou fora de ordem",
        "irregularity-accepted": "O adversário continuou: a posição irregular fica valendo",
        "restored": "O tabuleiro voltou a corresponder ao jogo",
        "game-over": "A partida terminou: não há mais lances",
        "reconstructed": "O tabuleiro esteve desconectado: lances feitos nesse meio-tempo registrados ({moves})",
        "link-gap": "Os lances feitos com o tabuleiro desconectado não podem ser distinguidos: refaça a última "
        "posição conhecida (a do jogo na página): coloque peças em {missing}; retire as peças de {extra}",
        "capture-continues": "Continue a captura a partir de {at}: próximo salto para {next}",
        "computer-move": "Faça o lance do computador {move}: devolva as peças para {missing}; retire as de {extra}",
        "computer-wait": "Espere o lance do computador: devolva as peças para {missing}; retire as de {extra}",
    },
    "pt-PT": {
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
        "irregularity-accepted": "O adversário continuou: a posição irregular fica a valer",
        "restored": "O tabuleiro voltou a corresponder ao jogo",
        "game-over": "A partida terminou: não há mais lances",
        "reconstructed": "O tabuleiro esteve desligado: lances feitos entretanto registados ({moves})",
        "link-gap": "Os lances feitos com o tabuleiro desligado não se distinguem: reponha a última posição "
        "conhecida (a do jogo na página): coloque peças em {missing}; retire as peças de {extra}",
        "capture-continues": "Continue a captura a partir de {at}: próximo salto para {next}",
        "computer-move": "Faça o lance do computador {move}: devolva as peças a {missing}; retire as de {extra}",
        "computer-wait": "Espere pelo lance do computador: devolva as peças a {missing}; retire as de {extra}",
    },
}

#: the LED legend: what each role means (the same colours and patterns as the board's LEDs)
LEGEND: dict[str, dict[str, str]] = {
    "en": {
        "from": "the piece lifted",
        "to": "where it lands",
        "path": "a square touched on the way",
        "hint": "where the lifted piece can go",
        "must-capture": "this piece must capture",
        "capturable": "a piece that can be captured",
        "remove": "captured: take it off",
        "missing": "put a piece back here",
        "extra": "take this piece off (wrong square)",
        "error": "the move is not allowed",
    },
    "pt-BR": {
        "from": "a peça levantada",
        "to": "onde ela pousa",
        "path": "casa tocada no caminho",
        "hint": "para onde a peça levantada pode ir",
        "must-capture": "esta peça tem de capturar",
        "capturable": "peça que pode ser capturada",
        "remove": "capturada: retire-a",
        "missing": "recoloque uma peça aqui",
        "extra": "retire esta peça (casa errada)",
        "error": "o lance não é permitido",
    },
    "pt-PT": {
        "from": "a peça levantada",
        "to": "onde pousa",
        "path": "casa tocada pelo caminho",
        "hint": "para onde a peça levantada pode ir",
        "must-capture": "esta peça tem de capturar",
        "capturable": "peça que pode ser capturada",
        "remove": "capturada: retire-a",
        "missing": "reponha uma peça aqui",
        "extra": "retire esta peça (casa errada)",
        "error": "o lance não é permitido",
    },
}

# the banner (and the answer to an action) while the records cannot be written
RECORDS_ERROR = {
    "en": "Cannot write the records: {reason}. The board is paused and keeps what it saw; play resumes by itself "
    "when writing works again.",
    "pt-BR": "Não é possível gravar os registros: {reason}. O tabuleiro está em pausa e guarda o que viu; o jogo "
    "continua sozinho quando a gravação voltar a funcionar.",
    "pt-PT": "Não é possível gravar os registos: {reason}. O tabuleiro está em pausa e guarda o que viu; o jogo "
    "continua sozinho quando a gravação voltar a funcionar.",
}

#: the errors the server answers the page with (``PageError.key``)
ERRORS: dict[str, dict[str, str]] = {
    "en": {
        "board-size": "this board is {size}x{size}: {variant} needs {needed}x{needed}",
        "bad-fen": "this FEN is not a {variant} position: {detail}",
        "bad-mode": "unknown mode {mode} (casual or tournament)",
        "bad-variant": "unknown variant {variant}",
        "token": "this action needs the token printed at start-up",
    },
    "pt-BR": {
        "board-size": "este tabuleiro é {size}x{size}: {variant} pedem {needed}x{needed}",
        "bad-fen": "esta FEN não é uma posição de {variant}: {detail}",
        "bad-mode": "modo desconhecido {mode} (amistoso ou torneio)",
        "bad-variant": "modalidade desconhecida {variant}",
        "token": "esta ação precisa do código mostrado ao iniciar o damas",
    },
    "pt-PT": {
        "board-size": "este tabuleiro é {size}x{size}: {variant} pedem {needed}x{needed}",
        "bad-fen": "esta FEN não é uma posição de {variant}: {detail}",
        "bad-mode": "modo desconhecido {mode} (amigável ou torneio)",
        "bad-variant": "variante desconhecida {variant}",
        "token": "esta ação precisa do código mostrado ao iniciar o damas",
    },
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
    "pt-BR": {
        "no-pieces": "sem peças",
        "no-moves": "sem lances",
        "kings-only": "empate: só damas",
        "small-ending": "empate: final curto",
        "repetition": "empate: repetição",
        "resignation": "desistência",
        "agreement": "empate combinado",
        "result-entered": "resultado registrado",
        "time-forfeit": "derrota por tempo",
    },
    "pt-PT": {
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

#: every table above: language -> key -> text (what the completeness test walks)
TABLES: dict[str, dict[str, dict[str, str]]] = {
    "UI": UI,
    "KINDS": KINDS,
    "LEGEND": LEGEND,
    "ERRORS": ERRORS,
    "TERMINATIONS": TERMINATIONS,
}


class PageError(ValueError):
    """A refusal the page shows, in its language: ``key`` names the sentence in :data:`ERRORS`
    (``str()`` is the English one, as the API always answered)."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        """The sentence in ``lang``; a ``variant`` given by name is written as that language names it."""
        params = dict(self.params)
        variant = params.get("variant")
        if isinstance(variant, str) and f"variant_{variant}" in UI["en"]:
            title = UI.get(lang, UI["en"])[f"variant_{variant}"]
            params["variant"] = title if lang == "en" else title[0].lower() + title[1:]  # mid-sentence
        return ERRORS.get(lang, ERRORS["en"])[self.key].format(**params)


def kind_of(report: Report) -> str:
    """The report's kind as the page names it: a required capture paused on a touch-down square
    (the referee's ``at``: where the capture goes on) is ``capture-continues``."""
    if report.kind is ReportKind.REQUIRED_CAPTURE and "at" in report.params:
        return "capture-continues"
    return report.kind.value


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
    "pt-BR": {
        "clock": "Relógio",
        "press_white": "Botão do relógio das brancas",
        "press_black": "Botão do relógio das pretas",
        "press_hint": "Barra de espaço: o botão do lado cujo relógio está correndo",
        "pause": "Pausar os relógios",
        "resume": "Retomar os relógios",
        "adjust": "Ajustar os relógios",
        "paused": "Relógios pausados",
        "paused_power": "Relógios pausados após uma queda de energia: o jogador da vez aperta o relógio, "
        "ou o árbitro retoma",
        "flag": "Tempo esgotado",
        "not_started": "O primeiro toque inicia o relógio de quem joga",
        "took": "tempo gasto",
        "control": "Ritmo de jogo",
        "auto": "acionado pelos lances",
        "white_time": "Tempo das brancas (m:ss)",
        "black_time": "Tempo das pretas (m:ss)",
    },
    "pt-PT": {
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

TABLES["CLOCK_WORDS"] = CLOCK_WORDS

#: the clock's reports, by kind: ``{side}`` is the side named in the report, ``{other}`` its opponent
CLOCK_MESSAGES: dict[str, dict[str, str]] = {
    "en": {},  # the referee's own sentences
    "pt-BR": {
        "clock-early": "As {side} apertaram o relógio antes de retirar as peças capturadas ({squares}): "
        "o relógio não mudou",
        "clock-no-move": "As {side} apertaram o relógio sem ter jogado: o relógio não mudou",
        "clock-wrong-side": "As {side} apertaram o relógio, mas é o relógio das {other} que está correndo",
        "clock-not-pressed": "Jogou-se com o relógio das {side} correndo: as {side} não apertaram o relógio",
        "flag-fall": "Acabou o tempo das {side}: perdem por tempo",
        "clock-paused": "Relógios pausados",
        "clock-resumed": "Os relógios voltaram a correr",
        "clock-adjusted": "O árbitro ajustou os relógios",
    },
    "pt-PT": {
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
_PT_SIDES = {"white": ("brancas", "pretas"), "black": ("pretas", "brancas")}
_SIDES = {"pt-BR": _PT_SIDES, "pt-PT": _PT_SIDES}


def message(report: Report, lang: str, names: Names) -> str:
    """A report's sentence in ``lang`` (``en`` keeps the referee's own words; ``pt`` is pt-BR)."""
    lang = language(lang) or "en"
    clock = CLOCK_MESSAGES.get(lang, {}).get(report.kind.value)
    if clock is not None:
        side, other = _SIDES.get(lang, {}).get(str(report.params.get("side")), ("-", "-"))
        return clock.format(side=side, other=other, squares=names(report.squares) or "-")
    key = kind_of(report)
    if key == "computer-move" and not report.params.get("move"):
        key = "computer-wait"  # the computer is still thinking
    template = REPORTS.get(lang, {}).get(key)
    if template is None:
        return report.message
    at = report.params.get("at")
    nxt = report.params.get("next")
    return template.format(
        squares=names(report.squares) or "-",
        missing=names(report.missing) or "-",
        extra=names(report.extra) or "-",
        cells=", ".join(report.cells) or "-",
        moves=" ".join(str(m) for m in report.params.get("moves", ())) or "-",
        at=names((at,)) if isinstance(at, int) else "-",
        next=" ou ".join(names((q,)) for q in nxt) if isinstance(nxt, (list, tuple)) and nxt else "-",
        move=report.params.get("move") or "-",
    )
