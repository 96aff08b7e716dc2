"""A Hub engine that misbehaves on purpose (the app's engine client is tested against it).

    python tests/app/fake_hub.py MODE [GOOD]

It answers the first GOOD searches (default 0) properly, with the first legal move, then:

* ``crash-start``: exits at once, with a message on standard error;
* ``silent``: never answers ``hub``;
* ``crash``: dies on ``go`` (standard error says why);
* ``hang``: never answers ``go`` (and ignores ``stop``);
* ``stuck``: never answers ``go`` and reads nothing more (a search that never ends: even its
  input closed does not stop it);
* ``flood``: answers ``go`` with ``info`` lines without end (4,000 a second), never a move;
* ``nonsense``: answers ``done move=hello``;
* ``illegal``: answers a move that is not legal in the position;
* ``gives-up``: answers ``go`` with an ``error`` line, then ``done`` without a move (as our own
  ``damas hub`` does when its search fails);
* ``noise``: writes garbage lines before a proper answer (which the client must take);
* ``international``: has no variant parameter (Scan's International only), otherwise good;
* ``endless-line``: answers ``go`` with 300 MB and no newline (then hangs);
* ``torrent``: answers ``go`` with long ``info`` lines as fast as it can, never a move;
* ``error-torrent``: the same on its standard error;
* ``slow``: answers every ``go`` properly, after GOOD tenths of a second (a slow board computer);
* ``hog``: answers ``go`` by taking 1 GiB of memory (address space it never touches), then a move.

With ``$FAKE_HUB_PIDFILE`` set it writes its process id there first (a test that starts it
through a shell finds it so).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.hub import HUB_VARIANTS, format_line, move_text, parse_hub_move, parse_line, parse_position
from rules import Game, Position


def main() -> int:
    mode = sys.argv[1]
    good = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if "FAKE_HUB_PIDFILE" in os.environ:
        Path(os.environ["FAKE_HUB_PIDFILE"]).write_text(str(os.getpid()))
    if mode == "crash-start":
        print("fake engine: cannot load its weights", file=sys.stderr)
        return 3
    variant = "normal"
    game = Game("international")
    searches = 0

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        command, values, _flags = parse_line(line)
        if command == "hub":
            if mode == "silent":
                continue
            say(format_line("id", name="fake", version="1"))
            if mode != "international":
                say(format_line("param", name="variant", value="normal", type="enum", values=" ".join(HUB_VARIANTS)))
            say("wait")
        elif command == "set-param" and values.get("name") == "variant":
            variant = values["value"]
        elif command == "init":
            say("ready")
        elif command == "pos":
            name = HUB_VARIANTS[variant]
            start = parse_position(values["pos"], name) if "pos" in values else Position.start(name)
            game = Game(name, start)
            for text in values.get("moves", "").split():
                game.push(parse_hub_move(game.position, text))
        elif command == "go":
            searches += 1
            if mode == "slow":
                time.sleep(good / 10)
                say(format_line("done", move=move_text(next(iter(game.legal_moves)))))
            elif searches <= good or mode in ("noise", "international"):
                if mode == "noise":
                    say("%%% garbage")
                    say('info depth="unterminated')
                    say("=value-without-a-name")
                    say("bogus-command x=1")
                say(format_line("done", move=move_text(next(iter(game.legal_moves)))))
            elif mode == "crash":
                print("fake engine: segmentation fault", file=sys.stderr)
                sys.stderr.flush()
                return 139
            elif mode == "nonsense":
                say("done move=hello")
            elif mode == "gives-up":
                say(format_line("error", message="the search failed (IndexError: list index out of range)"))
                say("done")
            elif mode == "stuck":
                while True:
                    time.sleep(1)
            elif mode == "hog":
                hoard = mmap.mmap(
                    -1, 1 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
                )  # its table: beyond its bound, ENOMEM
                say(format_line("done", move=move_text(next(iter(game.legal_moves)))))
                hoard.close()
            elif mode == "illegal":
                legal = {move_text(m) for m in game.legal_moves}
                count = game.position.geometry.count
                bad = next(f"{a}-{b}" for a in range(1, count) for b in range(a + 1, count) if f"{a}-{b}" not in legal)
                say(format_line("done", move=bad))
            elif mode == "flood":
                # info lines without end, and never a move: many a second, yet well below what
                # an engine may write (RATE, 1 MiB a second; that is ``torrent``), so only the
                # timeout can end it however fast or loaded the machine is
                while True:
                    for _ in range(200):
                        say("info depth=1 score=0.00")
                    time.sleep(0.05)
            elif mode == "endless-line":
                chunk = b"x" * (1 << 20)
                with contextlib.suppress(BrokenPipeError):
                    for _ in range(300):
                        sys.stdout.buffer.write(chunk)
                    sys.stdout.buffer.flush()
                    sys.stdin.read()
            elif mode in ("torrent", "error-torrent"):
                out = sys.stdout if mode == "torrent" else sys.stderr
                line = "info depth=1 score=0.00 pv=" + "1-2 " * 1000 + "\n"
                with contextlib.suppress(BrokenPipeError):
                    while True:
                        out.write(line * 64)
            # hang: nothing
        elif command == "ping":
            say("pong")
        elif command == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
