"""The reference schematic, as text: ``python hardware/schematic.py`` writes schematic.svg.

Drawn with schemdraw, so a change to the circuit is a change to this file and can be
reviewed in a diff. It shows one corner of the direct-GPIO build (2 rows x 2 columns of
the reed-switch diode matrix, which repeats to 8x8 or 10x10) and the first 74HC595 of
the LED chain; hardware/wiring.md has the full pin table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import schemdraw
import schemdraw.elements as elm

OUT = Path(__file__).with_name("schematic.svg")


def draw() -> bytes:
    schemdraw.use("svg")
    d = schemdraw.Drawing(show=False, fontsize=11)
    d.config(unit=2.0)
    d += elm.Label().label("Raspberry Pi GPIO (3.3 V logic)", loc="top").at((0, 9))

    # the matrix: rows driven low one at a time, columns read with pull-ups
    rows = {0: ("ROW 0 (GPIO 4)", 7.0), 1: ("ROW 1 (GPIO 17)", 4.0)}
    cols = {0: ("COL 0 (GPIO 26)", 4.0), 1: ("COL 1 (GPIO 21)", 8.0)}
    for _r, (name, y) in rows.items():
        d += elm.Line().at((0, y)).right(10).label(name, loc="left")
    for _c, (name, x) in cols.items():
        d += elm.Line().at((x, 8.5)).down(7.5)
        d += elm.Resistor().at((x, 8.5)).up(1.5).label("internal\npull-up")
        d += elm.Vdd().label("3V3")
        d += elm.Label().at((x, 0.6)).label(name, loc="bottom")
    for r, (_rname, y) in rows.items():
        for c, (_cname, x) in cols.items():
            # column -> reed switch -> diode (cathode to the row) -> row
            d += elm.Dot().at((x, y + 1.4))
            d += elm.Switch().at((x, y + 1.4)).right(1.2).label(f"reed\n({r},{c})", fontsize=9)
            d += elm.Diode().down(1.4).label("1N4148", fontsize=9, loc="bottom")
            d += elm.Dot()

    # the LED chain: a 74HC595 per 8 cells
    sr = (
        elm.Ic(
            pins=[
                elm.IcPin(name="SER", side="L", pin="14"),
                elm.IcPin(name="SRCLK", side="L", pin="11"),
                elm.IcPin(name="RCLK", side="L", pin="12"),
                elm.IcPin(name="~OE", side="L", pin="13"),
                elm.IcPin(name="Q7'", side="R", pin="9"),
                elm.IcPin(name="Q7", side="R", pin="7"),
                elm.IcPin(name="Q1", side="R", pin="1"),
                elm.IcPin(name="Q0", side="R", pin="15"),
            ],
            edgepadW=1.5,
            pinspacing=1.2,
            size=(3, 5.5),
        )
        .at((18, 1.5))
        .theta(0)
        .label("74HC595", loc="top")
    )
    d += sr
    d += elm.Line().at(sr.SER).left(3).label("DATA (GPIO 10)", loc="left")
    d += elm.Line().at(sr.SRCLK).left(3).label("CLOCK (GPIO 11)", loc="left")
    d += elm.Line().at(sr.RCLK).left(3).label("LATCH (GPIO 8)", loc="left")
    d += elm.Line().at(getattr(sr, "~OE")).left(1.0)
    d += elm.Ground()
    for pin, label in (("Q0", "LED cell (0,0)"), ("Q1", "LED cell (0,1)"), ("Q7", "LED cell (0,7)")):
        d += elm.Resistor().at(getattr(sr, pin)).right(2.2).label("330 Ω", fontsize=9)
        d += elm.LED().right(1.6).label(label, fontsize=9, loc="bottom")
        d += elm.Ground(lead=False)
    d += elm.Line().at(getattr(sr, "Q7'")).right(3.8)
    d += elm.Label().label("to SER of the next 74HC595", loc="right")
    return bytes(d.get_imagedata("svg"))


def main() -> int:
    OUT.write_bytes(draw())
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
