"""A link that drops: the cable pulled out while the players go on, a port path that leads
somewhere else, a noisy line. Through real pseudo-terminals: the emulated firmware, the
host bridge, and ``damas play`` with its page state, journal and PDN."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from board_hal.backends import BoardIO, LinkStatus
from board_hal.layout import Layout
from board_hal.leds import DEFAULT_LOOKS, Role
from firmware_bridge import link
from firmware_bridge.bridge import PicoBoard
from firmware_bridge.emulator import Emulator, Faults, led_label
from referee.core import RECONSTRUCTED_COMMENT
from rules import Position
from rules.pdn import read_pdn
from tests.app.server import Server
from tests.conftest import ROOT, random_game, wait_until

LAYOUT = Layout("brazilian")


def start_cells() -> set[tuple[int, int]]:
    return {LAYOUT.cell_of(sq) for sq in Position.start("brazilian").occupied()}


class ForeignPty:
    """A pseudo-terminal held by some other program, behind a port path: it writes valid
    frames of its own (here: a snapshot with 23 pieces on non-playing cells), and answers
    HELLO only if it is given a hello to answer with."""

    def __init__(self, path: str, hello: bytes | None = None) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = path
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(os.ttyname(self.slave), path)
        dark = [r * 8 + c for r in range(8) for c in range(8) if (r + c) % 2 == 1][:23]
        self.snapshot = link.encode(link.SNAPSHOT, 0, link.pack_snapshot(8, 8, dark, 0))
        self.hello = hello
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        seq = 0
        while not self.stop.is_set():
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, OSError):
                data = b""
            try:
                if data and self.hello is not None and b"\x00" in data:
                    os.write(self.master, link.encode(link.HELLO, seq, self.hello))
                os.write(self.master, self.snapshot)
            except OSError:
                pass
            seq += 1
            self.stop.wait(0.05)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        os.close(self.master)
        os.close(self.slave)


# -- the emulator's cable ---------------------------------------------------------------------------
def test_unplug_removes_the_port_and_plug_makes_a_new_one() -> None:
    with Emulator(8, cells=start_cells()) as emu:
        first = os.readlink(emu.port)
        emu.unplug()
        assert not os.path.lexists(emu.port)  # nothing can open a freed pseudo-terminal by this path
        assert not emu.plugged
        emu.plug()
        assert os.path.exists(emu.port) and emu.plugged
        assert os.readlink(emu.port).startswith("/dev/")
        assert first  # (the new one may reuse the number; it is a fresh terminal either way)


def test_the_host_trusts_no_snapshot_before_the_firmware_says_hello(tmp_path: Path) -> None:
    """Whatever took the port's path sends well-formed snapshots but is not our firmware:
    not one of its 23 phantom pieces may reach the board."""
    port = str(tmp_path / "pico")
    foreign = ForeignPty(port)
    board = PicoBoard(port, 8, silence=0.5, hello_every=0.1, backoff=(0.05, 0.1))
    try:
        with BoardIO(LAYOUT, board, board) as io:
            board.start(wait=1.5)
            assert board.snapshot() == frozenset() and io.occupied() == (set(), set())
            assert board.link == io.link == "down"
            assert board.stats["untrusted"] > 0 and board.stats["snapshots"] == 0
            assert io.poll_events() == []
    finally:
        foreign.close()


def test_a_board_of_another_size_is_refused(tmp_path: Path) -> None:
    port = str(tmp_path / "pico")
    foreign = ForeignPty(port, hello=link.pack_hello((1, 0), 10, 10, 100))
    board = PicoBoard(port, 8, silence=0.5, hello_every=0.1, backoff=(0.05, 0.1))
    try:
        board.start(wait=1.5)
        assert board.snapshot() == frozenset() and board.link == "down"
        assert board.last_error is not None and "10x10" in board.last_error[1] and "8x8" in board.last_error[1]
        board.close()
    finally:
        foreign.close()


def test_after_unplug_a_foreign_port_then_the_real_board(tmp_path: Path) -> None:
    """The issue's case: unplugged, the path taken by another program, plugged back."""
    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        board = PicoBoard(emu.port, 8, silence=0.6, hello_every=0.1, backoff=(0.05, 0.2))
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            assert io.link == "up"
            emu.unplug()
            wait_until(lambda: io.link == "down")
            foreign = ForeignPty(emu.port)
            try:
                time.sleep(1.5)  # the host opens it, hears no HELLO, gives up, again and again
                assert board.stats["untrusted"] > 0
                assert io.link == "down"
                assert {LAYOUT.key_of(*c) for c in board.snapshot()} == set(Position.start("brazilian").occupied())
            finally:
                foreign.close()
            emu.lift(LAYOUT.cell_of(22))
            emu.place(LAYOUT.cell_of(18))
            emu.plug()
            wait_until(lambda: io.link == "up", timeout=8)
            events = io.poll_events()
            assert [e for e in events if not isinstance(e, LinkStatus)] == []
            ups = [e for e in events if isinstance(e, LinkStatus)]
            assert [e.up for e in ups] == [False, True]
            expected = set(Position.start("brazilian").occupied()) - {22} | {18}
            assert ups[-1].squares == expected and ups[-1].cells == frozenset()


# -- damas emulator: what the LEDs show ------------------------------------------------------------
def test_damas_emulator_board_shows_the_leds() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "damas", "emulator"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        first = proc.stdout.readline()
        port = first.split(" on ")[-1].strip()
        assert os.path.exists(port), first
        for _ in range(2):
            proc.stdout.readline()
        board = PicoBoard(port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            io.show([(22, Role.FROM), (17, Role.HINT), (18, Role.HINT), (11, Role.MUST_CAPTURE)])
            time.sleep(0.5)
            proc.stdin.write("board\n")
            proc.stdin.flush()
            lines = [proc.stdout.readline().rstrip("\n") for _ in range(15)]
        grid = lines[:9]
        assert grid[0].split() == list("abcdefgh")
        row3 = next(line for line in grid if line.startswith(" 3"))
        row4 = next(line for line in grid if line.startswith(" 4"))
        row6 = next(line for line in grid if line.startswith(" 6"))
        # c3 holds a piece and its LED says "from"; b4 and d4 are empty and hinted; f6 blinks must-capture
        col = grid[0].index("c")
        assert row3[col : col + 6] == "o from"
        assert row4[grid[0].index("b") : grid[0].index("b") + 6] == ". hint"
        assert row4[grid[0].index("d") : grid[0].index("d") + 6] == ". hint"
        assert row6[grid[0].index("f") : grid[0].index("f") + 6] == "o must"
        listing = "\n".join(lines[9:])
        assert "LEDs lit: 4" in listing
        assert "c3: from (#0050ff, steady)" in listing and "f6: must-capture (#ff8c00, fast blink)" in listing
        proc.stdin.write("unplug\nboard\n")
        proc.stdin.flush()
        said = proc.stdout.readline()
        assert "unplugged" in said and not os.path.lexists(port)
        tail = [proc.stdout.readline() for _ in range(11)]
        assert any("UNPLUGGED" in line for line in tail)
        assert "LEDs lit: 0 (no power while unplugged)" in tail[-1] and not any("from" in line for line in tail)
        proc.stdin.write("plug\nquit\n")
        proc.stdin.flush()
        out, _ = proc.communicate(timeout=10)
        assert "plugged in" in out and proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_led_labels_name_the_default_roles_and_show_other_colours() -> None:
    from firmware_bridge.bridge import PATTERNS

    for role, look in DEFAULT_LOOKS.items():
        assert led_label(*look.colour, PATTERNS[look.pattern]) == role.value
    assert led_label(1, 2, 3, link.STEADY) == "#010203"


# -- damas play on an emulated Pico whose cable is pulled out -----------------------------------------
@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[Emulator, Server]]:
    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        server = Server(tmp_path / "g.sqlite3", "--config", str(cfg)).start()
        try:
            yield emu, server
        finally:
            server.stop()


def hands(emu: Emulator, pos: Position, texts: str, gap: float = 0.12) -> Position:
    """The players' hands on the emulated board: each move lifted, placed, captures removed."""
    for text in texts.split():
        m = pos.parse_pdn(text)
        for op, sq in [("lift", m.from_square), ("place", m.to_square), *(("lift", c) for c in m.captured)]:
            (emu.lift if op == "lift" else emu.place)(LAYOUT.cell_of(sq))
            time.sleep(gap)
        pos = pos.apply(m)
    return pos


def pdns(state: dict[str, Any]) -> list[str]:
    return [m["pdn"] for m in state["moves"] if "pdn" in m]


def lit_roles(emu: Emulator) -> dict[int, str]:
    """What the emulated firmware was told to light, by square, as role names."""
    out = {}
    for index, entry in emu.leds().items():
        sq = LAYOUT.square_of(*divmod(index, 8))
        assert sq is not None
        out[sq] = led_label(*entry)
    return out


def gap(emu: Emulator, server: Server, pos: Position, texts: str) -> Position:
    """Unplug, play ``texts``, plug back in."""
    emu.unplug()
    state = server.wait_for(lambda s: s["link"]["state"] == "down" and s["link"]["since"] is not None)
    assert state["ui"]["link_down"].startswith("The board is not connected")
    pos = hands(emu, pos, texts)
    emu.plug()
    return pos


def test_moves_made_while_unplugged_are_reconstructed(played: tuple[Emulator, Server], tmp_path: Path) -> None:
    emu, server = played
    pos = hands(emu, Position.start("brazilian"), "g3-h4 h6-g5")
    server.wait_for(lambda s: len(s["moves"]) == 2)
    # one plain move while the cable is out
    pos = gap(emu, server, pos, "e3-f4")
    state = server.wait_for(lambda s: len(s["moves"]) == 3 and s["link"]["state"] == "up", timeout=15)
    assert pdns(state) == ["g3-h4", "h6-g5", "e3-f4"]
    assert state["reports"][-1]["kind"] == "reconstructed" and "e3-f4" in state["reports"][-1]["message"]
    # two moves, a capture and its recapture
    pos = gap(emu, server, pos, "g5xe3 f2xd4")
    server.wait_for(lambda s: len(s["moves"]) == 5, timeout=15)
    pos = hands(emu, pos, "b6-c5")
    server.wait_for(lambda s: len(s["moves"]) == 6)
    # three moves with two captures
    pos = gap(emu, server, pos, "d4xb6 a7xc5 c3-b4")
    state = server.wait_for(lambda s: len(s["moves"]) == 9, timeout=15)
    assert pdns(state) == ["g3-h4", "h6-g5", "e3-f4", "g5xe3", "f2xd4", "b6-c5", "d4xb6", "a7xc5", "c3-b4"]
    assert state["active"] is None and state["turn"] == "black"
    # the LEDs, reachable again, light every move the reconnect recorded
    squares = {LAYOUT.geometry.parse_square(sq) for sq in ("d4", "b6", "a7", "c5", "c3", "b4")}
    wait_until(lambda: set(lit_roles(emu)) == squares)
    assert set(lit_roles(emu).values()) == {"last"}
    # the record: a PDN comment on each reconstructed move, and only on those
    game = read_pdn(server.get(f"/games/{state['game']}.pdn"))[0]
    marked = [bool(pm.comments) and pm.comments[0] == RECONSTRUCTED_COMMENT for pm in game.moves]
    assert marked == [False, False, True, True, True, False, True, True, True]
    # the journal: link lines; a replay of it gives the same game, marks included
    db = server.db
    server.stop()
    journal = [json.loads(line) for line in replay(db, state["game"], "--json")]
    moves = [v for v in journal if v["type"] == "move"]
    assert [v["move"] for v in moves] == pdns(state)
    assert [v.get("reconstructed", False) for v in moves] == marked
    lines = subprocess.run(
        [sys.executable, "-m", "damas", "export", str(state["game"]), "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert lines.count(RECONSTRUCTED_COMMENT) == 6
    events = journal_events(db)
    kinds = [e["link"] for e in events if "link" in e]
    assert kinds == ["down", "up", "reconstructed"] * 3
    assert [e["moves"] for e in events if e.get("link") == "reconstructed"] == [
        ["e3-f4"],
        ["g5xe3", "f2xd4"],
        ["d4xb6", "a7xc5", "c3-b4"],
    ]


def replay(db: Path, game: int, *args: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "damas", "replay", "--game", str(game), "--db", str(db), *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return out.splitlines()


def test_an_ambiguous_gap_is_not_recorded_and_says_what_to_restore(played: tuple[Emulator, Server]) -> None:
    emu, server = played
    pos = hands(emu, Position.start("brazilian"), "c3-d4")
    server.wait_for(lambda s: len(s["moves"]) == 1)
    # f6-e5 d4xf6 and b6-c5 d4xb6 leave the same squares occupied: nothing is recorded
    gap(emu, server, pos, "f6-e5 d4xf6")
    state = server.wait_for(lambda s: s["active"] is not None, timeout=15)
    assert pdns(state) == ["c3-d4"] and state["turn"] == "black"
    assert state["active"]["kind"] == "link-gap"
    assert "d4" in state["active"]["message"]
    assert state["leds"] == {"18": "missing"}
    wait_until(lambda: lit_roles(emu) == {18: "missing"})  # the real LEDs say it too
    # the players put the last known position back: play goes on from there
    emu.place(LAYOUT.cell_of(18))
    state = server.wait_for(lambda s: s["active"] is None)
    hands(emu, pos, "f6-g5")
    state = server.wait_for(lambda s: len(s["moves"]) == 2)
    assert pdns(state) == ["c3-d4", "f6-g5"]
    assert RECONSTRUCTED_COMMENT not in server.get(f"/games/{state['game']}.pdn")


def test_a_noisy_line_records_the_whole_game_or_asks_for_a_restore(tmp_path: Path) -> None:
    """``--faults 0.01``: whatever the line loses, the record never holds a wrong or merged
    move; when the board cannot be read back, the players restore and go on."""
    _start, moves = random_game("brazilian", 8, 40)
    truth = [Position.start("brazilian")]
    texts = []
    for m in moves:
        texts.append(truth[-1].pdn(m))
        truth.append(truth[-1].apply(m))
    faults = Faults(seed=1, flip=0.01, drop=0.01)
    with Emulator(8, faults=faults, heartbeat_ms=200, cells=start_cells()) as emu:
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        server = Server(tmp_path / "g.sqlite3", "--config", str(cfg)).start()
        restores = 0
        try:
            for i, text in enumerate(texts):
                for _attempt in range(4):
                    hands(emu, truth[i], text, gap=0.1)
                    try:
                        state = server.wait_for(lambda s, n=i + 1: len(s["moves"]) >= n, timeout=4)
                        break
                    except AssertionError:
                        state = server.get("/api/state")
                    recorded = pdns(state)
                    assert recorded == texts[: len(recorded)]  # never a wrong or merged move
                    # not recorded: the page says what to restore; the players do, and play again
                    assert state["active"] is not None, state
                    restores += 1
                    emu.set_cells({LAYOUT.cell_of(int(q)) for q in state["pieces"]})
                    server.wait_for(lambda s: s["active"] is None, timeout=8)
                else:
                    raise AssertionError(f"move {i + 1} ({text}) never recorded")
                recorded = pdns(state)
                assert recorded == texts[: len(recorded)]
            state = server.wait_for(lambda s: len(s["moves"]) == len(texts), timeout=8)
            assert pdns(state) == texts
            journal = server.get(f"/games/{state['game']}.pdn")
        finally:
            server.stop()
    ups = [e for e in journal_events(tmp_path / "g.sqlite3") if "link" in e]
    assert any(u["link"] == "up" and u.get("lost", 0) >= 1 for u in ups)  # frames were lost and reconciled
    lost = emu.stream.written if emu.stream else []
    assert lost  # the firmware did talk
    assert read_pdn(journal)[0].moves and len(read_pdn(journal)[0].moves) == len(texts)
    print(f"noisy line: {len(texts)} moves recorded, {restores} restores asked")


def test_the_page_shows_the_link_state(tmp_path: Path) -> None:
    """In Chromium: a banner while the cable is out, gone (board connected) once it is back,
    and the reconstructed moves in the record — without a reload."""
    from tests.conftest import _browser_available

    missing = _browser_available()
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import expect, sync_playwright

    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        server = Server(tmp_path / "g.sqlite3", "--config", str(cfg)).start()
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=os.environ.get("DAMAS_CHROMIUM", "/usr/bin/chromium"),
                args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
            )
            page = browser.new_page(viewport={"width": 1280, "height": 860}, locale="en-US")
            try:
                page.goto(server.url + "/?lang=en")
                banner = page.locator("#link")
                expect(banner).to_have_attribute("data-state", "up")
                expect(banner).to_have_text("Board connected")
                emu.unplug()
                expect(banner).to_have_attribute("data-state", "down", timeout=10_000)
                expect(banner).to_contain_text("The board is not connected")
                expect(banner).to_be_visible()
                out = Path(__file__).resolve().parents[2] / "test-output"
                out.mkdir(exist_ok=True)
                page.screenshot(path=str(out / "link-down.png"))
                hands(emu, Position.start("brazilian"), "c3-d4 f6-g5")
                emu.plug()
                expect(banner).to_have_attribute("data-state", "up", timeout=15_000)
                expect(page.locator("#moves")).to_have_text("1. c3-d4 f6-g5")
                expect(page.locator('#reports li[data-kind="reconstructed"]')).to_have_count(1)
                page.screenshot(path=str(out / "link-back.png"))
            finally:
                browser.close()
        server.stop()


def test_the_link_in_board_hal_is_generic() -> None:
    """Backends wired directly are always up; a link change reaches ``poll_events`` in its
    place among the transitions, and ``poll`` (older callers) as the cells that changed."""
    from board_hal.backends import LinkChange
    from board_hal.simulated import SimulatedBoard

    sim = SimulatedBoard(LAYOUT)
    io = sim.io()
    assert io.link == sim.link == "up"
    sim.lift(22, t=1.0)
    sim._link_change(False, 2.0)
    assert io.link == "down"
    sim._link_change(True, 3.0, frozenset({LAYOUT.cell_of(18), (0, 1)}), {LAYOUT.cell_of(22), LAYOUT.cell_of(18)})
    assert io.link == "up"
    events = io.poll_events()
    assert [type(e).__name__ for e in events] == ["Transition", "LinkStatus", "LinkStatus"]
    assert events[2] == LinkStatus(3.0, True, frozenset({18}), frozenset({LAYOUT.geometry.cell_name(1, 0)}))
    sim.transitions.put(LinkChange(4.0, True, frozenset(), ()))
    sim._link_change(True, 5.0, frozenset({LAYOUT.cell_of(18)}), {LAYOUT.cell_of(22), LAYOUT.cell_of(18)})
    assert [(t.key, t.occupied) for t in io.poll()] == [(22, False), (18, True)]


def test_moves_made_while_the_program_was_away_are_reconstructed(tmp_path: Path) -> None:
    """A restart is a gap too: damas play stopped, the players went on, damas play --resume."""
    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        server = Server(tmp_path / "g.sqlite3", "--config", str(cfg)).start()
        try:
            pos = hands(emu, Position.start("brazilian"), "c3-d4")
            server.wait_for(lambda s: len(s["moves"]) == 1)
        finally:
            server.stop()
        hands(emu, pos, "b6-a5 g3-f4")
        server.start("--resume")
        try:
            state = server.wait_for(lambda s: len(s["moves"]) == 3)
            assert pdns(state) == ["c3-d4", "b6-a5", "g3-f4"] and state["active"] is None
            assert state["reports"][-1]["kind"] == "reconstructed"
            text = server.get(f"/games/{state['game']}.pdn")
            assert [bool(m.comments) for m in read_pdn(text)[0].moves] == [False, True, True]
        finally:
            server.stop()
        # restarted while the port leads to something else: nothing is judged from it, the
        # page says the board is not connected; once the board answers, it catches up
        emu.unplug()
        hands(emu, Position.from_fen(pdn_fen(text), "brazilian"), "a5-b4")
        foreign = ForeignPty(emu.port)
        try:
            server.start("--resume")
        finally:
            foreign.close()
        try:
            state = server.wait_for(lambda s: s["link"]["state"] == "down")
            assert len(state["moves"]) == 3 and state["active"] is None
            emu.plug()
            state = server.wait_for(lambda s: len(s["moves"]) == 4, timeout=15)
            assert pdns(state)[-1] == "a5-b4" and state["link"]["state"] == "up"
        finally:
            server.stop()


def test_play_waits_for_a_pico_that_is_not_plugged_in_yet(tmp_path: Path) -> None:
    """pico.port names a port that does not exist yet (the Pico not plugged in when damas play
    starts, e.g. at boot): it serves the page, which says the board is not connected, and the
    board connects when the Pico appears, as after an unplug (it used to refuse to start)."""
    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        emu.unplug()
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        server = Server(tmp_path / "g.sqlite3", "--config", str(cfg)).start()
        try:
            assert f"{cfg}: pico.port: {emu.port} does not exist yet: waiting for the Pico" in server.output
            state = server.get("/api/state")
            assert state["link"]["state"] == "down" and state["ui"]["link_down"].startswith("The board is not")
            emu.plug()
            # the link comes up, then the board's first snapshot settles: no report is left
            state = server.wait_for(lambda s: s["link"]["state"] == "up" and s["active"] is None, timeout=15)
            assert state["moves"] == []  # the pieces stand where a new game starts
            hands(emu, Position.start("brazilian"), "c3-d4")
            state = server.wait_for(lambda s: len(s["moves"]) == 1)
            assert pdns(state) == ["c3-d4"] and state["active"] is None
        finally:
            server.stop()


def pdn_fen(text: str) -> str:
    return read_pdn(text)[0].game().fen()


def test_frame_numbers_reveal_lost_frames(tmp_path: Path) -> None:
    """A scripted board on a pty: a jump in its frame numbers turns the next changed snapshot
    into a link-up with the whole occupancy and the number of frames lost; a duplicate is
    dropped; a restart (HELLO numbered 0) makes the loss unknown."""
    master, slave = os.openpty()
    tty.setraw(slave)
    port = str(tmp_path / "pico")
    os.symlink(os.ttyname(slave), port)
    hello = link.pack_hello((1, 0), 8, 8, 64)

    def send(kind: int, seq: int, cells: list[int] | None = None) -> None:
        payload = hello if kind == link.HELLO else link.pack_snapshot(8, 8, cells or [], 0)
        os.write(master, link.encode(kind, seq, payload))

    board = PicoBoard(port, 8)
    io = BoardIO(LAYOUT, board, board)
    try:
        threading.Timer(0.2, lambda: (send(link.HELLO, 10), send(link.SNAPSHOT, 11, [0, 2]))).start()
        board.start(wait=3)
        assert io.link == "up" and board.snapshot() == {(0, 0), (0, 2)}
        send(link.SNAPSHOT, 12, [0])  # seen: one change
        send(link.SNAPSHOT, 15, [2, 4])  # frames 13 and 14 lost
        send(link.SNAPSHOT, 15, [2, 4])  # a duplicate
        send(link.SNAPSHOT, 16, [2, 4])  # a heartbeat, nothing changed
        send(link.HELLO, 0)  # the board restarted...
        send(link.SNAPSHOT, 1, [4])  # ...and a piece went meanwhile
        got: list[object] = []
        wait_until(lambda: got.extend(io.poll_events()) or len(got) >= 3)
        first, second, third = got[:3]
        assert not isinstance(first, LinkStatus) and (first.key, first.occupied) == (LAYOUT.key_of(0, 2), False)
        assert isinstance(second, LinkStatus) and second.up and second.lost == 2
        assert second.squares == {LAYOUT.key_of(0, 2), LAYOUT.key_of(0, 4)}
        assert isinstance(third, LinkStatus) and third.lost is None and third.squares == {LAYOUT.key_of(0, 4)}
        assert board.stats["duplicates"] == 1 and board.stats["gaps"] >= 2
    finally:
        io.close()
        os.close(master)
        os.close(slave)


def journal_events(db: Path) -> list[dict[str, Any]]:
    """Every event of the database's journal, in order (the connection closed at once: Python
    3.13 warns of one left to the garbage collector)."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return [json.loads(e) for (e,) in con.execute("SELECT event FROM journal ORDER BY game_id, seq")]
    finally:
        con.close()


def pico_server(tmp_path: Path, emu: Emulator) -> Server:
    """``damas play`` on the emulated Pico (a configuration naming its port), started."""
    cfg = tmp_path / "pico.toml"
    cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
    return Server(tmp_path / "g.sqlite3", "--config", str(cfg)).start()


def test_resume_on_a_real_board_compares_it_with_the_journal(tmp_path: Path) -> None:
    """damas play --resume on the (emulated) Pico: a board that still holds what the journal
    says adds nothing to the journal; one no sequence of moves explains (a piece gone from the
    back rank) is journalled as the link coming back with that board, no move is made up, and
    the page says what to restore; putting the piece back is enough to go on."""
    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        server = pico_server(tmp_path, emu)
        db = server.db
        try:
            pos = hands(emu, Position.start("brazilian"), "c3-d4")
            server.wait_for(lambda s: len(s["moves"]) == 1)
        finally:
            server.stop()
        before = journal_events(db)
        server.start("--resume")
        try:
            state = server.wait_for(lambda s: s["link"]["state"] == "up")
            assert pdns(state) == ["c3-d4"] and state["active"] is None
        finally:
            server.stop()
        assert journal_events(db) == before  # the same board: nothing to reconcile
        emu.lift(LAYOUT.cell_of(1))  # black's b8 man is gone while the program was away
        server.start("--resume")
        try:
            state = server.wait_for(lambda s: s["active"] is not None)
            assert pdns(state) == ["c3-d4"] and 1 not in state["occupied"]
            assert "1" in state["leds"]  # the square to restore is lit
            emu.place(LAYOUT.cell_of(1))
            state = server.wait_for(lambda s: s["active"] is None)
            hands(emu, pos, "f6-e5")
            state = server.wait_for(lambda s: len(s["moves"]) == 2)
            assert pdns(state) == ["c3-d4", "f6-e5"]
        finally:
            server.stop()
        ups = [e for e in journal_events(db)[len(before) :] if e.get("link") == "up"]
        assert len(ups) == 1 and 1 not in ups[0]["board"] and len(ups[0]["board"]) == 23
