"""The production broker for a hall (``damas hall-setup``): Debian's Mosquitto with TLS on, a
password per board, the ACL, and the certificates.

Writes, under Mosquitto's configuration directory (``/etc/mosquitto``):

- ``conf.d/damas.conf`` and ``damas.acl``: the shipped ``hall/mosquitto.conf`` and ``.acl``;
- ``certs/damas-ca.crt`` (+ ``.key``): a certificate authority of the event's own, made by
  ``openssl``; the boards check the broker against ``damas-ca.crt`` (``tls_ca`` in their
  ``[hall]``);
- ``certs/damas-hall.crt`` (+ ``.key``): the broker's certificate, signed by that CA, for the
  hall's names and addresses (``--host``, ``--ip``; ``localhost`` and 127.0.0.1 always);
- ``damas.passwd``: the hall's and each board's password (``mosquitto_passwd``), new random ones;
- ``damas-boards.csv`` (readable by root only): each login and its password, for the organiser to
  put on the boards (``password`` in ``[hall]``, or ``$DAMAS_MQTT_PASSWORD``).

What exists is kept (a CA is made once: the boards keep trusting it; a board already in the
password file keeps its password) unless ``--renew``; new boards are added.
"""

from __future__ import annotations

import csv
import os
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SHIPPED = Path(__file__).parent
DAYS = 3650  # the CA's and the broker's certificates last ten years (an event's CA, not the web's)


class SetupError(Exception):
    """The broker cannot be set up (one line naming what is missing or failed)."""


@dataclass
class Setup:
    etc: Path  # Mosquitto's configuration directory (/etc/mosquitto)
    boards: list[str]
    hosts: list[str] = field(default_factory=list)  # DNS names of the hall (hall.local)
    ips: list[str] = field(default_factory=list)
    renew: bool = False
    owner: str | None = "mosquitto"  # who must read the key and the password file (None: leave as is)

    @property
    def certs(self) -> Path:
        return self.etc / "certs"

    def run(self) -> list[tuple[str, str]]:
        """Everything; returns the logins whose password is new (``(user, password)``)."""
        for tool in ("openssl", "mosquitto_passwd"):
            if _tool(tool) is None:
                raise SetupError(f"{tool} is not installed (sudo apt-get install openssl mosquitto)")
        (self.etc / "conf.d").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SHIPPED / "mosquitto.conf", self.etc / "conf.d" / "damas.conf")
        shutil.copyfile(SHIPPED / "mosquitto.acl", self.etc / "damas.acl")
        self.certificates()
        added = self.passwords()
        self._own(self.certs / "damas-hall.key", self.etc / "damas.passwd")
        return added

    def certificates(self) -> None:
        self.certs.mkdir(parents=True, exist_ok=True)
        ca_key, ca_crt = self.certs / "damas-ca.key", self.certs / "damas-ca.crt"
        key, crt = self.certs / "damas-hall.key", self.certs / "damas-hall.crt"
        if self.renew or not (ca_key.exists() and ca_crt.exists()):
            _openssl("req", "-x509", "-newkey", "rsa:3072", "-nodes", "-keyout", ca_key, "-out", ca_crt,
                     "-days", DAYS, "-subj", "/CN=damas hall CA", "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign")  # fmt: skip
            os.chmod(ca_key, 0o600)
        names = ["localhost", *self.hosts]
        ips = ["127.0.0.1", *self.ips]
        san = ",".join([*(f"DNS:{n}" for n in names), *(f"IP:{i}" for i in ips)])
        if self.renew or not (key.exists() and crt.exists()) or not _covers(crt, names, ips):
            with tempfile.TemporaryDirectory() as tmp:
                csr, ext = Path(tmp) / "hall.csr", Path(tmp) / "ext.cnf"
                ext.write_text(
                    f"subjectAltName={san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
                    "extendedKeyUsage=serverAuth\n"
                )
                _openssl("req", "-newkey", "rsa:3072", "-nodes", "-keyout", key, "-out", csr,
                         "-subj", f"/CN={names[-1]}")  # fmt: skip
                _openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
                         "-out", crt, "-days", DAYS, "-extfile", ext)  # fmt: skip
            os.chmod(key, 0o600)

    def passwords(self) -> list[tuple[str, str]]:
        passwd = self.etc / "damas.passwd"
        known = set() if self.renew or not passwd.exists() else _users(passwd)
        added: list[tuple[str, str]] = []
        for user in ["hall", *self.boards]:
            if user in known:
                continue
            password = secrets.token_hex(10)  # (80 bits; nothing a shell or an option parser reads otherwise)
            first = not passwd.exists() or (self.renew and not added)
            _run(_tool("mosquitto_passwd"), *(["-c"] if first else []), "-b", passwd, user, password)
            added.append((user, password))
        os.chmod(passwd, 0o600)
        logins = self.etc / "damas-boards.csv"
        rows: dict[str, str] = {}
        if logins.exists() and not self.renew:
            with open(logins, newline="", encoding="utf-8") as f:
                rows = {r["login"]: r["password"] for r in csv.DictReader(f) if r.get("login")}
        rows.update(dict(added))
        fd = os.open(logins, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["login", "password"])
            for login in sorted(rows, key=lambda u: (u != "hall", len(u), u)):
                w.writerow([login, rows[login]])
        return added

    def _own(self, *paths: Path) -> None:
        """Mosquitto drops to its own user: it must read its key and the password file."""
        if self.owner is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
            return
        try:
            shutil.chown(self.certs, group=self.owner)
            for p in paths:
                shutil.chown(p, user=self.owner, group=self.owner)
        except (LookupError, OSError) as exc:
            raise SetupError(f"cannot give {', '.join(map(str, paths))} to user {self.owner}: {exc}") from None


def parse_boards(text: str) -> list[str]:
    """``1-100``, ``1,2,7``, ``A1-A4`` is not a range: ids as given; ranges of whole numbers."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, dash, hi = part.partition("-")
        if dash and lo.isdigit() and hi.isdigit():
            if int(hi) < int(lo) or int(hi) - int(lo) > 10_000:
                raise SetupError(f"bad board range {part!r} (from 1-100 to at most 10,000 boards)")
            out += [str(i) for i in range(int(lo), int(hi) + 1)]
        else:
            out.append(part)
    from hall.validate import BOARD_RE

    bad = [b for b in out if not BOARD_RE.fullmatch(b) or b == "hall"]
    if bad:
        raise SetupError(f"bad board id {bad[0]!r} (1-40 letters, digits, _ . -; not 'hall')")
    if not out:
        raise SetupError("no boards (--boards 1-100)")
    return list(dict.fromkeys(out))


def _tool(name: str) -> str | None:
    return shutil.which(name) or next((p for p in (f"/usr/bin/{name}", f"/usr/sbin/{name}") if Path(p).is_file()), None)


def _openssl(*args: object) -> None:
    _run(_tool("openssl"), *args)


def _run(exe: str | None, *args: object) -> None:
    assert exe is not None
    r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        last = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SetupError(f"{Path(exe).name} {args[0]} failed: {last[0][:200]}")


def _users(passwd: Path) -> set[str]:
    return {line.split(":", 1)[0] for line in passwd.read_text().splitlines() if ":" in line}


def _covers(crt: Path, names: list[str], ips: list[str]) -> bool:
    """Does the broker's certificate name every host and address asked for?"""
    r = subprocess.run([str(_tool("openssl")), "x509", "-in", str(crt), "-noout", "-ext", "subjectAltName"],
                       capture_output=True, text=True)  # fmt: skip
    return (
        r.returncode == 0
        and all(f"DNS:{n}" in r.stdout for n in names)
        and all(f"IP Address:{i}" in r.stdout for i in ips)
    )
