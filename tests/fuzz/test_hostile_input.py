"""The hostile inputs of issue 16 (items 3 and 7), each at the surface a person meets it:
what the command printed, what the HTTP API answered, what the downloaded PDN holds."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from board_hal.config import ConfigError, load_config, parse_config
from damas.board.loop import PlayApp
from rules.pdn import read_pdn
from tests.conftest import ROOT
from tests.fuzz.app import post, with_client

GOOD_LOG = '{"format": 1, "variant": "brazilian"}\n{"t": 0.0, "square": 22, "event": "lift"}\n'


def _limit_memory() -> None:  # a regression must fail the test, not exhaust the machine (/dev/zero)
    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))


def damas(*args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "damas", *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        cwd=ROOT,
        preexec_fn=_limit_memory,
    )


def one_line_error(r: subprocess.CompletedProcess[bytes], *needles: str) -> str:
    err = r.stderr.decode()
    assert r.returncode == 2, (r.returncode, err[-2000:])
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("damas: error: "), err[-2000:]
    for needle in needles:
        assert needle in err, err
    return err


# -- damas replay ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"t": ' + "1" * 5000 + ', "square": 22, "event": "lift"}', "4300 digits"),
        ("[" * 100_000 + "]" * 100_000, "longer than 64 KiB"),
        ("[" * 30_000 + "]" * 30_000, "nested too deeply"),
        ('{"t": NaN, "square": 22, "event": "lift"}', "NaN is not a number"),
        ('{"t": 1e999, "square": 22, "event": "lift"}', "finite number"),
        ('{"t": 1' + "0" * 400 + ', "square": 22, "event": "lift"}', "finite number"),
        ('{"t": 0.5, "square": 17, "event": "place"}\n{"t": 0.1, "square": 22, "event": "place"}', "goes backwards"),
        ('{"format": 1, "fen": "W:W²:B1"}', "no square '²'"),
        ('{"format": 1, "board": [22, 999]}\n{"t": 0, "square": 22, "event": "lift"}', "not on the board"),
    ],
)
def test_replay_refuses_hostile_logs_in_one_line(tmp_path: Path, line: str, why: str) -> None:
    log = tmp_path / "bad.log"
    log.write_text(line + "\n", encoding="utf-8")
    err = one_line_error(damas("replay", str(log)), why)
    assert f"{log}:" in err  # names the file (and the line)


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "-inf", "1e9"])
def test_replay_debounce_must_be_finite_and_sane(tmp_path: Path, value: str) -> None:
    log = tmp_path / "ok.log"
    log.write_text(GOOD_LOG, encoding="utf-8")
    one_line_error(damas("replay", str(log), f"--debounce={value}", timeout=60), "--debounce must be seconds")


def test_replay_debounce_bounds_are_allowed(tmp_path: Path) -> None:
    log = tmp_path / "ok.log"
    log.write_text(GOOD_LOG, encoding="utf-8")
    for value in ("0", "1"):
        r = damas("replay", str(log), f"--debounce={value}")
        assert r.returncode == 0 and b"lift" not in r.stderr, r.stderr


def test_replay_of_an_endless_file_is_bounded() -> None:
    one_line_error(damas("replay", "/dev/zero"), "/dev/zero:1: line longer than 64 KiB")


def test_replay_game_id_takes_ascii_digits_only(tmp_path: Path) -> None:
    one_line_error(damas("replay", "²", "--db", str(tmp_path / "g.sqlite3")), "cannot read ²: No such file")


# -- FEN with a digit that is not ASCII, non-UTF-8 input -----------------------------------------
def test_unicode_digit_in_fen_is_one_line_everywhere(tmp_path: Path) -> None:
    one_line_error(damas("moves", "--variant", "brazilian", "--fen", "W:W²:B1"), "invalid fen", "'²'")
    one_line_error(damas("perft", "--variant", "brazilian", "--fen", "W:W١:B1", "--depth", "1"), "invalid fen")
    db = str(tmp_path / "g.sqlite3")
    one_line_error(damas("play", "--fen", "W:W²:B1", "--db", db, "--no-browser", "--no-resume"), "invalid fen")
    pdn = tmp_path / "g.pdn"
    pdn.write_text('[FEN "W:W²:B1"]\n1. 32-28 *\n', encoding="utf-8")
    r = damas("pdn", "check", str(pdn))
    out = r.stdout.decode()
    assert r.returncode == 1 and "Traceback" not in r.stderr.decode(), r.stderr
    assert f"{pdn}:1: " in out and "'²'" in out, out


def test_moves_reads_stdin_that_is_not_utf8() -> None:
    stdin = b"W:W14:B18,K19\n\xff\xfe\x00bad\n" + "W:W²:B1\n".encode() + b"W:W14:B10\n"
    r = damas("moves", "--variant", "portuguese", stdin=stdin)
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 1 and not r.stderr, r.stderr
    assert len(lines) == 4  # one answer per input line
    assert lines[1] == "error: line 2 is not UTF-8 text"
    assert lines[2].startswith("error: invalid fen") and lines[3] and not lines[3].startswith("error")


# -- pdn check on files too big for their own good ---------------------------------------------------
def test_pdn_check_names_file_and_line_of_a_too_long_tag(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pdn"
    bad.write_text('[Event "x"]\n[Site "' + "y" * 300_000 + '"]\n1. 32-28 *\n', encoding="utf-8")
    r = damas("pdn", "check", str(bad))
    out = r.stdout.decode()
    assert r.returncode == 1 and not r.stderr, r.stderr
    assert f"{bad}:2: game 1 (? - ?): tag 'Site': value longer than 64 KiB [the game loads]" in out, out


def test_pdn_check_refuses_an_endless_file() -> None:
    r = damas("pdn", "check", "/dev/zero")
    assert r.returncode == 1 and not r.stderr, r.stderr[-500:]
    assert r.stdout.decode() == "/dev/zero: larger than 64 MiB: split the collection\n"


# -- the configuration ------------------------------------------------------------------------------
BASE = 'variant = "brazilian"\n[board]\nbackend = "simulated"\n'


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        (BASE + "rotation = 90.0\n", "board.rotation"),
        (BASE + "rotation = true\n", "board.rotation"),
        (BASE + "size = 8.0\n", "board.size"),
        (BASE + "debounce = true\n", "board.debounce"),
        (BASE + "white_side = ['near']\n", "board.white_side"),
        ("[board]\nbackend = 5\n", "board.backend"),
        (BASE + "[leds]\ncolours = 5\n", "leds.colours"),
        (BASE + "[leds.colours]\nfrom = 5\n", "leds.colours.from"),
        (BASE + "[leds.colours]\nfrom = ['#00ff00']\n", "leds.colours.from"),
        (BASE + "[leds.colours]\nfrom = '#+1+2+3'\n", "leds.colours.from"),
        (BASE + "[leds.colours]\nfrom = '#١٢٣٤٥٦'\n", "leds.colours.from"),
        (BASE + "[app]\nport = 'abc'\n", "app.port"),
        (BASE + "[app]\nport = 8080.5\n", "app.port"),
        (BASE + "[app]\nport = 70000\n", "app.port"),
        (BASE + "[app]\nhost = 5\n", "app.host"),
        (BASE + "[app]\nhost = ['127.0.0.1']\n", "app.host"),
        (BASE + "[app]\nresume = 'yes'\n", "app.resume"),
        (BASE + "[app]\nmode = 5\n", "app.mode"),
        (BASE + "[app]\nvariant = 'chess'\n", "app.variant"),
        (BASE + "[app]\ndatabase = {}\n", "app.database"),
        (BASE + "[pico]\nbaudrate = true\n", "pico.baudrate"),
        ("variant = 5\n", "variant"),
        ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
        ("x = " + "9" * 5000 + "\n", "not a valid TOML file"),
        ("board = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n", "not a valid TOML file"),
    ],
)
def test_config_wrong_types_are_one_line_naming_the_setting(text: str, setting: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "board.toml", env={})
    msg = str(info.value)
    assert msg.startswith("board.toml: ") and setting in msg and "\n" not in msg, msg
    assert len(msg) < 300, msg


def test_damas_play_reports_a_bad_app_port_in_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "board.toml"
    cfg.write_text(BASE + "[app]\nport = 'abc'\n", encoding="utf-8")
    db = str(tmp_path / "g.sqlite3")
    one_line_error(damas("play", "--config", str(cfg), "--db", db, "--no-browser"), f"{cfg}: app.port")


def test_damas_play_reports_an_unknown_app_mode_in_one_line(tmp_path: Path) -> None:
    # the mode's names are the referee's: the app checks them when it reads [app] (board_hal does not)
    cfg = tmp_path / "board.toml"
    cfg.write_text(BASE + "[app]\nmode = 'blitz'\n", encoding="utf-8")
    db = str(tmp_path / "g.sqlite3")
    for extra in ([], ["--mode", "casual"]):  # the file is wrong whatever --mode says
        r = damas("play", "--config", str(cfg), "--db", db, "--no-browser", *extra)
        one_line_error(r, f"{cfg}: app.mode must be casual or tournament, not 'blitz'")


def test_config_files_are_read_in_a_bounded_way(tmp_path: Path) -> None:
    one_line_error(damas("selftest", "--config", "/dev/zero"), "/dev/zero: larger than 1024 KiB")
    big = tmp_path / "big.toml"
    big.write_text(BASE + "# " + "x" * 2**20 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="larger than 1024 KiB"):
        load_config(big, env={})


# -- the HTTP API -------------------------------------------------------------------------------------
def api(tmp_path: Path, *requests: tuple[str, Any]) -> list[tuple[int, Any]]:
    """POST each (path, body) in turn (bytes are sent as they are); GET when body is None."""

    async def work(client: TestClient[Any, Any], _play: PlayApp) -> list[tuple[int, Any]]:
        out = []
        for path, body in requests:
            if body is None:
                async with client.get(path) as resp:
                    out.append((resp.status, await resp.text()))
            elif isinstance(body, bytes):
                out.append(await post(client, path, None, raw=body))
            else:
                out.append(await post(client, path, body))
        return out

    return with_client(tmp_path / "db.sqlite3", work)


def _error(answer: tuple[int, Any], status: int = 400) -> str:
    code, body = answer
    assert code == status and isinstance(body, dict) and "\n" not in body["error"], answer
    return str(body["error"])


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 60_000,
        b"[" * 5_000 + b"]" * 5_000,
        b'{"action": ' + b"1" * 5000 + b"}",
        b'{"action": "draw", "x": NaN}',
        b"\xff\xfe",
        b"",
        b"[1, 2]",
    ],
)
def test_hostile_json_bodies_are_400_json(tmp_path: Path, raw: bytes) -> None:
    for answer in api(tmp_path, ("/api/action", raw), ("/api/games/1/tags", raw), ("/api/sim", raw)):
        assert _error(answer).startswith("expected a JSON")


def test_huge_body_is_refused(tmp_path: Path) -> None:
    (answer,) = api(tmp_path, ("/api/action", {"action": "draw", "pad": "x" * 100_000}))
    assert "larger than 64 KiB" in _error(answer, 413)


@pytest.mark.parametrize("fen", [5, ["W:W21:B1"], {"a": 1}, True, "W:W²:B1"])
def test_new_game_fen_must_be_a_fen(tmp_path: Path, fen: Any) -> None:
    (answer, (status, state)) = api(tmp_path, ("/api/action", {"action": "new-game", "fen": fen}), ("/api/state", None))
    assert "fen" in _error(answer)
    assert status == 200 and json.loads(state)["game"] == 1  # no new game was started


@pytest.mark.parametrize("game_id", ["99999999999999999999999", "%201", "+1", "١", "1.0", "-1", "0x1"])
def test_game_ids_are_ascii_digits(tmp_path: Path, game_id: str) -> None:
    (pdn, tags) = api(tmp_path, (f"/games/{game_id}.pdn", None), (f"/api/games/{game_id}/tags", {"result": "1-0"}))
    assert pdn[0] == 404 and "damas-" not in pdn[1]
    assert tags[0] == 404


@pytest.mark.parametrize("result", ["", "?", "0-0", "1-0 ", 1, None, ["1-0"], "3-0"])
def test_only_real_results_are_stored(tmp_path: Path, result: Any) -> None:
    answers = api(
        tmp_path,
        ("/api/games/1/tags", {"result": result}),
        ("/api/action", {"action": "result", "result": result}),
        ("/games/1.pdn", None),
    )
    if result == "1-0 ":  # surrounding spaces are forgiven
        assert answers[0][0] == 200 and '[Result "1-0"]' in answers[2][1]
        return
    if result is None:  # no result given: nothing to correct
        assert answers[0][0] == 200
    else:
        assert "invalid result" in _error(answers[0])
    assert "invalid result" in _error(answers[1])
    assert '[Result "*"]' in answers[2][1]


@pytest.mark.parametrize(
    ("tags", "named"),
    [
        ({'X"]\n[Y': "v"}, 'X"]\\n[Y'),
        ({"white": "Ana"}, "'white'"),
        ({"": "Ana"}, "''"),
        ({"White": 5}, "White"),
        ({"White": ["Ana"]}, "White"),
        ({"White": "Ana\nBeto"}, "White"),
        ({"Event": "x" * 70_000}, "larger than 64 KiB"),
    ],
)
def test_bad_tags_are_refused_naming_the_tag(tmp_path: Path, tags: dict[str, Any], named: str) -> None:
    (answer, new_game, (status, pdn), (_s, live)) = api(
        tmp_path,
        ("/api/games/1/tags", {"tags": tags}),
        ("/api/action", {"action": "new-game", "tags": tags}),
        ("/games/1.pdn", None),
        ("/live.pdn", None),
    )
    for a in (answer, new_game):
        assert named in _error(a, a[0] if a[0] == 413 else 400)
    assert status == 200
    (game,) = read_pdn(pdn, "1.pdn")
    assert game.tags["White"] == "Ana" and game.moves == [] and game.result == "*"
    assert len(read_pdn(live, "live.pdn")) == 1


def test_tag_values_with_backslashes_survive_the_api_and_the_next_game(tmp_path: Path) -> None:
    value = 'Ana \\"o\\" \\'
    answers = api(
        tmp_path,
        ("/api/games/1/tags", {"tags": {"White": value, "Annotator": '"]\\'}}),
        ("/api/action", {"action": "new-game", "tags": {"Round": "2"}}),
        ("/games/1.pdn", None),
        ("/games/2.pdn", None),
        ("/live.pdn", None),
    )
    assert [a[0] for a in answers] == [200] * 5, answers
    (first,) = read_pdn(answers[2][1], "1.pdn")
    assert first.tags["White"] == value and first.tags["Annotator"] == '"]\\'
    (second,) = read_pdn(answers[3][1], "2.pdn")
    assert second.tags["White"] == value and second.tags["Round"] == "2"  # copied to the next game, intact
    assert "Annotator" not in second.tags
    assert [g.tags["White"] for g in read_pdn(answers[4][1], "live.pdn")] == [value, value]


def test_bad_tags_stored_before_the_checks_do_not_break_the_downloads(tmp_path: Path) -> None:
    """A database written by an older damas may hold tags the writer refuses: the downloads
    leave them out (naming them in a comment) and a new game does not copy them."""

    async def work(client: TestClient[Any, Any], play: PlayApp) -> list[str]:
        play.store.correct(1, {'X"]\n[Y': "v", "White": "Ana\nBeto", "Black": 'Rui \\"'})
        status, _ = await post(client, "/api/action", {"action": "new-game"})
        assert status == 200
        out = []
        for url in ("/games/1.pdn", "/games/2.pdn", "/live.pdn"):
            async with client.get(url) as resp:
                assert resp.status == 200, url
                out.append(await resp.text())
        return out

    one, two, live = with_client(tmp_path / "db.sqlite3", work)
    (first,) = read_pdn(one, "1.pdn")
    assert first.tags["White"] == "Ana Beto" and first.tags["Black"] == 'Rui \\"'
    assert "X" not in first.tags and first.intro[0].startswith("tag left out: bad tag name 'X\"]\\n[Y'")
    (second,) = read_pdn(two, "2.pdn")
    assert "White" not in second.tags or second.tags["White"] == "?"  # the line break is not copied on
    assert second.tags["Black"] == 'Rui \\"'
    assert len(read_pdn(live, "live.pdn")) == 2
