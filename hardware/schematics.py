"""The schematics of the plugged-in designs, as text: ``python hardware/schematics.py``
writes ``schematic-pico.svg``, ``schematic-mcp23017.svg``, ``schematic-74hc165.svg``,
``schematic-ws2812.svg``, ``schematic-hall-pairs.svg`` and ``schematic-hall-linear.svg``.

Drawn with schemdraw like ``schematic.py`` (the direct-GPIO build), so a change to a
circuit is a change to this file that can be reviewed in a diff. Each shows the first
chip (or the first LEDs) and how the next ones join; the wiring-*.md files have the full
tables.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import schemdraw
import schemdraw.elements as elm

HERE = Path(__file__).resolve().parent


def _drawing(title: str) -> schemdraw.Drawing:
    schemdraw.use("svg")
    d = schemdraw.Drawing(show=False, fontsize=11)
    d.config(unit=2.0)
    d += elm.Label().label(title, loc="right").at((0, 13))
    d += elm.Label().label(" ").at((-3, 0))  # room on the left for the pins' names
    return d


def _switch_to_ground(d: schemdraw.Drawing, at: object, label: str, lead: float = 1.0) -> None:
    """An input: a reed switch from the pin to ground (the pull-up holds it high when open)."""
    d += elm.Line().at(at).right(lead)
    d += elm.Switch().right(1.6).label(label, fontsize=9)
    d += elm.Ground(lead=False)


def draw_mcp23017() -> bytes:
    d = _drawing("MCP23017 sensors (wiring-mcp23017.md)")
    ic = (
        elm.Ic(
            pins=[
                # left pins are listed from the bottom up
                elm.IcPin(name="VSS", side="L", pin="10"),
                elm.IcPin(name="A2", side="L", pin="17"),
                elm.IcPin(name="A1", side="L", pin="16"),
                elm.IcPin(name="A0", side="L", pin="15"),
                elm.IcPin(name="VDD", side="L", pin="9"),
                elm.IcPin(name="~RESET", side="L", pin="18"),
                elm.IcPin(name="INTA", side="L", pin="20"),
                elm.IcPin(name="SCL", side="L", pin="12"),
                elm.IcPin(name="SDA", side="L", pin="13"),
                elm.IcPin(name="GPB7", side="R", pin="8"),
                elm.IcPin(name="GPB6", side="R", pin="7"),
                elm.IcPin(name="GPB0", side="R", pin="1"),
                elm.IcPin(name="GPA7", side="R", pin="28"),
                elm.IcPin(name="GPA6", side="R", pin="27"),
                elm.IcPin(name="GPA0", side="R", pin="21"),
            ],
            edgepadW=1.5,
            pinspacing=1.1,
            size=(3.5, 12),
        )
        .at((9, 0))
        .label("MCP23017 (0x20)", loc="top")
    )
    d += ic
    d += elm.Line().at(ic.SDA).left(5).label("SDA (GPIO 2, pin 3)", loc="left")
    d += elm.Line().at(ic.SCL).left(5).label("SCL (GPIO 3, pin 5)", loc="left")
    d += elm.Line().at(ic.INTA).left(5).label("INT (GPIO 17, pin 11)", loc="left")
    d += elm.Line().at(getattr(ic, "~RESET")).left(1.5)
    d += elm.Vdd().label("3V3")
    d += elm.Line().at(ic.VDD).left(1.0)
    d += elm.Vdd().label("3V3")
    d += elm.Line().at(ic.A0).left(1.0)
    d += elm.Ground(lead=False)
    d += elm.Line().at(ic.A1).left(2.0)
    d += elm.Ground(lead=False)
    d += elm.Line().at(ic.A2).left(3.0)
    d += elm.Ground(lead=False)
    d += elm.Line().at(ic.VSS).left(0.8)
    d += elm.Ground(lead=False)
    # 14 inputs: GPA0-6 (a1-g1), GPB0-6 (h1, a2-f2); GPA7 and GPB7 are output-only (DS20001952D)
    for pin, label in (("GPA0", "a1"), ("GPA6", "g1"), ("GPB0", "h1"), ("GPB6", "f2")):
        _switch_to_ground(d, getattr(ic, pin), f"reed {label}")
    for pin in ("GPA7", "GPB7"):
        d += elm.Line().at(getattr(ic, pin)).right(0.8)
        d += elm.Label().label("output-only: not connected", loc="right", fontsize=9)
    d += elm.Label().label(" ").at((21, 0))  # room on the right for the last labels
    return bytes(d.get_imagedata("svg"))


def draw_74hc165() -> bytes:
    d = _drawing("74HC165 sensors (wiring-74hc165.md)")
    ic = (
        elm.Ic(
            pins=[
                elm.IcPin(name="SER", side="L", pin="10"),
                elm.IcPin(name="QH", side="L", pin="9"),
                elm.IcPin(name="CLK INH", side="L", pin="15"),
                elm.IcPin(name="CLK", side="L", pin="2"),
                elm.IcPin(name="SH/~LD", side="L", pin="1"),
                elm.IcPin(name="A", side="R", pin="11"),
                elm.IcPin(name="B", side="R", pin="12"),
                elm.IcPin(name="H", side="R", pin="6"),
            ],
            edgepadW=1.5,
            pinspacing=2.2,
            size=(3.5, 11),
        )
        .at((9, 0))
        .label("74HC165 #1 (nearest the Pi)", loc="top")
    )
    d += ic
    d += elm.Line().at(getattr(ic, "SH/~LD")).left(5).label("LOAD (GPIO 22, pin 15)", loc="left")
    d += elm.Line().at(ic.CLK).left(5).label("CLOCK (GPIO 27, pin 13)", loc="left")
    d += elm.Line().at(getattr(ic, "CLK INH")).left(1.0)
    d += elm.Ground(lead=False)
    d += elm.Line().at(ic.QH).left(5).label("DATA (GPIO 17, pin 11)", loc="left")
    d += elm.Line().at(ic.SER).left(1.5)
    d += elm.Label().label("QH of #2 (…#n: SER to GND)", loc="left")
    for pin, label in (("H", "h1"), ("B", "b1"), ("A", "a1")):
        at = getattr(ic, pin)
        d += elm.Dot().at(at)
        d += elm.Line().at(at).right(0.8)
        d += elm.Resistor().up(1.2).label("10 kΩ", fontsize=9, loc="top")
        d += elm.Vdd().label("3V3", fontsize=9)
        _switch_to_ground(d, at, f"reed {label}", lead=2.0)
    return bytes(d.get_imagedata("svg"))


def draw_ws2812() -> bytes:
    d = _drawing("WS2812 LEDs on the Pi's SPI (wiring-ws2812.md)")
    buf = (
        elm.Ic(
            pins=[
                elm.IcPin(name="1A", side="L", pin="2"),
                elm.IcPin(name="1~OE", side="L", pin="1"),
                elm.IcPin(name="1Y", side="R", pin="3"),
            ],
            edgepadW=1.2,
            pinspacing=1.2,
            size=(3, 3),
        )
        .at((6, 4))
        .label("74AHCT125 (5 V)", loc="top")
    )
    d += buf
    d += elm.Line().at(buf["1A"]).left(4).label("MOSI (GPIO 10, pin 19)", loc="left")
    d += elm.Line().at(buf["1~OE"]).left(1.0)
    d += elm.Ground(lead=False)
    d += elm.Resistor().at(buf["1Y"]).right(2.5).label("330 Ω", fontsize=9)
    x = 12.0
    for i, label in enumerate(("LED 0 (a1)", "LED 1 (b1)", "LED n-1")):
        led = elm.Ic(
            pins=[
                elm.IcPin(name="DIN", side="L"),
                elm.IcPin(name="DOUT", side="R"),
                elm.IcPin(name="VDD", side="T"),
                elm.IcPin(name="GND", side="B"),
            ],
            size=(3.2, 2.0),
            plblsize=10,
        ).at((x + i * 5, 4.5))
        d += led
        d += elm.Label().at((x + i * 5 + 1.8, 3.2)).label(label, loc="right", fontsize=9)
        d += elm.Line().at(led.VDD).up(0.8)
        d += elm.Vdd().label("5V")
        d += elm.Line().at(led.GND).down(0.6)
        d += elm.Ground(lead=False)
        if i < 2:
            d += elm.Line().at(led.DOUT).right(1.8 if i == 0 else 0.6)
            if i == 1:
                d += elm.Line().linestyle(":").right(2.0)
    cap = elm.Capacitor(polar=True).at((x - 1.5, 9.8)).down(2).label("1000 µF", fontsize=9, loc="bottom")
    d += cap
    d += elm.Vdd().at(cap.start).label("5V")
    d += elm.Ground(lead=False).at(cap.end)
    return bytes(d.get_imagedata("svg"))


def draw_pico() -> bytes:
    d = _drawing("Pi + Pico build (wiring-pico.md): 8x8 shown, 10x10 adds GP10-11, GP20-21")
    pico = (
        elm.Ic(
            pins=[
                # left pins are listed from the bottom up
                elm.IcPin(name="GND", side="L", pin="38"),
                elm.IcPin(name="VBUS", side="L", pin="40"),
                elm.IcPin(name="GP28", side="L", pin="34"),
                elm.IcPin(name="GP27", side="L", pin="32"),
                elm.IcPin(name="GP26", side="L", pin="31"),
                # right pins are listed from the bottom up too
                elm.IcPin(name="GP19", side="R", pin="25"),
                elm.IcPin(name="GP9", side="R", pin="12"),
                elm.IcPin(name="GP12", side="R", pin="16"),
                elm.IcPin(name="GP2", side="R", pin="4"),
                elm.IcPin(name="GP22", side="R", pin="29"),
            ],
            edgepadW=1.5,
            pinspacing=1.6,
            size=(4, 12),
        )
        .at((6, 0))
        .label("Raspberry Pi Pico", loc="top")
    )
    d += pico
    d += elm.Line().at(pico.VBUS).left(3).label("USB from the Pi (5 V)", loc="left")
    d += elm.Line().at(pico.GND).left(1.0)
    d += elm.Ground(lead=False).label("common ground", loc="bottom", fontsize=9)
    for pin, label in (("GP26", "white's clock"), ("GP27", "black's clock")):
        d += elm.Line().at(getattr(pico, pin)).left(1.0)
        d += elm.Button().left(1.5).label(label, fontsize=9)
        d += elm.Ground(lead=False)
    d += elm.Line().at(pico.GP28).left(1.0)
    d += elm.Switch().left(1.5).label("escape jumper", fontsize=9)
    d += elm.Ground(lead=False)
    # one cell of the matrix: column a (GP12) -> reed switch -> diode, cathode to the row -> row 1 (GP2)
    d += elm.Line().at(pico.GP2).right(5.0).label("row 1 (GP2-GP9: rows 1-8)", loc="top", fontsize=9)
    col = elm.Line().at(pico.GP12).right(2.5).label("column a", loc="bottom", fontsize=9)
    d += col
    d += elm.Switch().at(col.end).up(0.8).label("reed a1", fontsize=9, loc="bottom")
    d += elm.Diode().up(0.8).label("1N4148", fontsize=9, loc="top")
    d += elm.Dot()
    d += elm.Line().at(pico.GP9).right(5.0).label("row 8", loc="top", fontsize=9)
    d += elm.Line().at(pico.GP19).right(5.0).label("column h (GP12-GP19: columns a-h)", loc="bottom", fontsize=9)
    # the LED data through the level shifter
    buf = (
        elm.Ic(
            pins=[
                elm.IcPin(name="1A", side="L", pin="2"),
                elm.IcPin(name="1~OE", side="L", pin="1"),
                elm.IcPin(name="1Y", side="R", pin="3"),
            ],
            edgepadW=1.2,
            pinspacing=1.2,
            size=(3, 3),
        )
        .at((14, 14.5))
        .label("74AHCT125 (VCC 5 V)", loc="top")
    )
    d += buf
    d += elm.Line().at(pico.GP22).right(3.0)
    d += elm.Line().toy(buf["1A"])
    d += elm.Line().to(buf["1A"]).label("LED data", loc="bottom", fontsize=9)
    d += elm.Line().at(buf["1~OE"]).left(0.8)
    d += elm.Ground(lead=False)
    d += elm.Resistor().at(buf["1Y"]).right(2.5).label("330 Ω", fontsize=9)
    d += elm.Line().right(1.0).label("DIN, LED 0 (a1)", loc="right", fontsize=9)
    cap = elm.Capacitor(polar=True).at((19, 11.0)).down(2).label("1000 µF", fontsize=9, loc="bottom")
    d += cap
    d += elm.Vdd().at(cap.start).label("5 V supply: strip +5V, 74AHCT125 pin 14", fontsize=10)
    d += elm.Ground(lead=False).at(cap.end).label("strip GND = common ground", loc="bottom", fontsize=9)
    d += elm.Label().label(" ").at((26, 0))  # room on the right for the last labels
    return bytes(d.get_imagedata("svg"))


def _hall(d: schemdraw.Drawing, at: tuple[float, float], part: str, how: str) -> elm.Ic:
    """A 3-pin Hall sensor (VCC, GND, OUT) at ``at``, its supply and ground drawn."""
    ic = (
        elm.Ic(
            pins=[
                # (no pin numbers: the packages differ; the datasheet's pin table has them)
                elm.IcPin(name="OUT", side="L"),
                elm.IcPin(name="GND", side="R"),
                elm.IcPin(name="VCC", side="R"),
            ],
            edgepadW=1.0,
            pinspacing=1.0,
            size=(2.2, 2.2),
        )
        .at(at)
        .theta(0)  # whatever way the last line went
        .label(f"{part}\n{how}", loc="top", fontsize=9)
    )
    d += ic
    d += elm.Line().at(ic.VCC).right(0.8)
    d += elm.Vdd().label("3V3", fontsize=9)
    d += elm.Line().at(ic.GND).right(1.6)
    d += elm.Ground(lead=False)
    return ic


def draw_hall_pairs() -> bytes:
    d = _drawing("Hall build, two switches per square (wiring-hall.md): cell a1 shown")
    reg = (
        elm.Ic(
            pins=[
                elm.IcPin(name="SER", side="L", pin="10"),
                elm.IcPin(name="QH", side="L", pin="9"),
                elm.IcPin(name="CLK INH", side="L", pin="15"),
                elm.IcPin(name="CLK", side="L", pin="2"),
                elm.IcPin(name="SH/~LD", side="L", pin="1"),
                elm.IcPin(name="F", side="R", pin="4"),
                elm.IcPin(name="G", side="R", pin="5"),
                elm.IcPin(name="H", side="R", pin="6"),
            ],
            edgepadW=1.5,
            pinspacing=2.0,
            size=(3.5, 10),
        )
        .at((8, 0))
        .label("74HC165 #1 (VCC 3V3)", loc="top")
    )
    d += reg
    d += elm.Line().at(getattr(reg, "SH/~LD")).left(4).label("SH/LD (Pico GP2)", loc="left")
    d += elm.Line().at(reg.CLK).left(4).label("CLK (Pico GP3)", loc="left")
    d += elm.Line().at(getattr(reg, "CLK INH")).left(1.0)
    d += elm.Ground(lead=False)
    d += elm.Line().at(reg.QH).left(4).label("QH (Pico GP4)", loc="left")
    d += elm.Line().at(reg.SER).left(1.5)
    d += elm.Label().label("QH of #2 (last chip: SER to GND)", loc="left")
    white = _hall(d, (17, 8.0), "DRV5032DU", "marked side UP: white pieces")
    black = _hall(d, (17, 1.5), "DRV5032DU", "marked side DOWN: black pieces")
    d += elm.Line().at(reg.H).to(white.OUT).label("bit 0: a1 white", fontsize=9, loc="top")
    d += elm.Line().at(reg.G).to(black.OUT).label("bit 1: a1 black", fontsize=9, loc="bottom")
    d += elm.Line().at(reg.F).right(1.0)
    d += elm.Label().label("F, E…: b1's pair, and so on", loc="right", fontsize=9)
    d += elm.Label().label(" ").at((26, 0))
    return bytes(d.get_imagedata("svg"))


def draw_hall_linear() -> bytes:
    d = _drawing("Hall build, a linear sensor per square (wiring-hall.md): cells a1, b1 shown")
    mux = (
        elm.Ic(
            pins=[
                elm.IcPin(name="~E", side="L", pin="15"),
                elm.IcPin(name="Z", side="L", pin="1"),
                elm.IcPin(name="S3", side="L", pin="13"),
                elm.IcPin(name="S2", side="L", pin="14"),
                elm.IcPin(name="S1", side="L", pin="11"),
                elm.IcPin(name="S0", side="L", pin="10"),
                elm.IcPin(name="Y15", side="R", pin="16"),
                elm.IcPin(name="Y1", side="R", pin="8"),
                elm.IcPin(name="Y0", side="R", pin="9"),
            ],
            edgepadW=1.5,
            pinspacing=1.5,
            size=(3.5, 10),
        )
        .at((8, 0))
        .label("CD74HC4067 #1 (VCC 3V3)", loc="top")
    )
    d += mux
    for pin, label in (("S0", "GP2"), ("S1", "GP3"), ("S2", "GP4"), ("S3", "GP5")):
        d += elm.Line().at(getattr(mux, pin)).left(4).label(f"{pin} (Pico {label}, every chip)", loc="left")
    d += elm.Line().at(mux.Z).left(4).label("Z (Pico GP26 = ADC0, every chip)", loc="left")
    d += elm.Line().at(getattr(mux, "~E")).left(4).label("~E (Pico GP6; chip #2 GP7...)", loc="left")
    a1 = _hall(d, (17, 6.0), "DRV5055A3", "a1, marked side up")
    b1 = _hall(d, (17, 0.5), "DRV5055A3", "b1, marked side up")
    d += elm.Line().at(mux.Y0).to(a1.OUT).label("cell 0", fontsize=9, loc="top")
    d += elm.Line().at(mux.Y1).to(b1.OUT).label("cell 1", fontsize=9, loc="bottom")
    d += elm.Line().at(mux.Y15).right(1.0)
    d += elm.Label().label("Y15: cell 15", loc="right", fontsize=9)
    d += elm.Label().label(" ").at((26, 0))
    return bytes(d.get_imagedata("svg"))


DRAWINGS: dict[str, Callable[[], bytes]] = {
    "schematic-hall-pairs.svg": draw_hall_pairs,
    "schematic-hall-linear.svg": draw_hall_linear,
    "schematic-pico.svg": draw_pico,
    "schematic-mcp23017.svg": draw_mcp23017,
    "schematic-74hc165.svg": draw_74hc165,
    "schematic-ws2812.svg": draw_ws2812,
}


def main() -> int:
    for name, draw in DRAWINGS.items():
        (HERE / name).write_bytes(draw())
        print(f"wrote {HERE / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
