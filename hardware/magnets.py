"""The magnet/reed placement figure of ``magnets.md``, as text: ``python hardware/magnets.py``
writes ``magnet-placement.svg`` (plain SVG, no library: side views of a square, the piece's
magnet above and the sensor under the board's top).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
W, H = 1000, 560
PANEL_W = 250


def _text(x: float, y: float, s: str, size: int = 13, anchor: str = "middle", weight: str = "normal") -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}">{s}</text>'
    )


def _arrow(x1: float, y1: float, x2: float, y2: float, colour: str = "#1f5fbf") -> str:
    return (
        f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}" stroke-width="1.5" '
        f'marker-end="url(#arrow)"/>'
    )


def _reed(cx: float, y: float, poles: tuple[str, str] | None = None) -> list[str]:
    """A horizontal reed switch (glass, two blades overlapping in the middle) centred at cx."""
    out = [
        f'<rect x="{cx - 60:g}" y="{y - 9:g}" width="120" height="18" rx="9" fill="#eef6f8" stroke="#555"/>',
        f'<line x1="{cx - 80:g}" y1="{y:g}" x2="{cx - 60:g}" y2="{y:g}" stroke="#555" stroke-width="2"/>',
        f'<line x1="{cx + 60:g}" y1="{y:g}" x2="{cx + 80:g}" y2="{y:g}" stroke="#555" stroke-width="2"/>',
        f'<line x1="{cx - 60:g}" y1="{y - 2:g}" x2="{cx + 8:g}" y2="{y - 2:g}" stroke="#333" stroke-width="3"/>',
        f'<line x1="{cx - 8:g}" y1="{y + 2:g}" x2="{cx + 60:g}" y2="{y + 2:g}" stroke="#333" stroke-width="3"/>',
    ]
    if poles:
        out.append(_text(cx - 30, y + 26, poles[0], 11))
        out.append(_text(cx + 30, y + 26, poles[1], 11))
    return out


def _disc(cx: float, y: float, diametric: bool = False) -> list[str]:
    """A disc magnet in a piece's base, seen from the side: poles top/bottom (axial) or left/right (diametric)."""
    out = [f'<rect x="{cx - 36:g}" y="{y - 10:g}" width="72" height="20" fill="#ddd" stroke="#333"/>']
    if diametric:
        out.append(f'<rect x="{cx - 36:g}" y="{y - 10:g}" width="36" height="20" fill="#d9534f" stroke="#333"/>')
        out.append(f'<rect x="{cx:g}" y="{y - 10:g}" width="36" height="20" fill="#5b8bd9" stroke="#333"/>')
        out.append(_text(cx - 18, y + 5, "N", 12, weight="bold"))
        out.append(_text(cx + 18, y + 5, "S", 12, weight="bold"))
    else:
        out.append(f'<rect x="{cx - 36:g}" y="{y - 10:g}" width="72" height="10" fill="#5b8bd9" stroke="#333"/>')
        out.append(f'<rect x="{cx - 36:g}" y="{y:g}" width="72" height="10" fill="#d9534f" stroke="#333"/>')
        out.append(_text(cx + 48, y - 1, "S", 11, weight="bold"))
        out.append(_text(cx + 48, y + 11, "N", 11, weight="bold"))
    return out


def _panel(i: int, title: str, verdict: str, ok: bool, body: list[str], note: str) -> list[str]:
    x0 = i * PANEL_W
    cx = x0 + PANEL_W / 2
    colour = "#2e7d32" if ok else "#c62828"
    out = [
        f'<rect x="{x0 + 6:g}" y="6" width="{PANEL_W - 12}" height="{H - 12}" fill="none" stroke="#bbb"/>',
        _text(cx, 32, title, 14, weight="bold"),
        # the board's top (3 mm plywood) and the piece above it
        f'<rect x="{x0 + 20:g}" y="230" width="{PANEL_W - 40}" height="14" fill="#e8d3a9" stroke="#8a6d3b"/>',
        _text(x0 + 26, 226, "board top", 10, "start"),
        f'<rect x="{cx - 50:g}" y="150" width="100" height="60" rx="8" fill="#f7f7f7" stroke="#777"/>',
        _text(cx, 168, "piece", 10),
        *body,
        _text(cx, 430, verdict, 15, weight="bold").replace("<text ", f'<text fill="{colour}" '),
    ]
    for k, line in enumerate(note.split("|")):
        out.append(_text(cx, 460 + 18 * k, line, 12))
    return out


def draw() -> str:
    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#1f5fbf"/></marker></defs>',
        '<rect width="100%" height="100%" fill="white"/>',
    ]
    # 1: a flat (axially magnetised) disc centred over a horizontal reed: the field crosses the blades
    c = PANEL_W / 2
    body = _disc(c, 200) + _reed(c, 290, ("S", "S"))
    body += [_arrow(c + dx, 212, c + dx, 330) for dx in (-45, -15, 15, 45)]
    parts += _panel(
        0,
        "1. flat disc, centred",
        "may not close",
        False,
        body,
        "the field crosses both blades:|both tips take the same pole|and repel (no closure over|the centre)",
    )
    # 2: the same disc over one end of the reed: the field runs along it
    c = PANEL_W + PANEL_W / 2
    body = _disc(c - 45, 200) + _reed(c + 10, 290, ("S", "N"))
    body += [_arrow(c - 45, 212, c - 45, 282), _arrow(c - 40, 298, c + 60, 298)]
    parts += _panel(
        1,
        "2. flat disc, reed offset",
        "closes",
        True,
        body,
        "one end of the glass under the|magnet's centre (about half the|"
        "reed's length off): the field|runs along the blades",
    )
    # 3: a diametrically magnetised disc centred, its N-S axis along the reed
    c = 2 * PANEL_W + PANEL_W / 2
    body = _disc(c, 200, diametric=True) + _reed(c, 290, ("S", "N"))
    body += [_arrow(c - 50, 270, c + 50, 270)]
    parts += _panel(
        2,
        "3. diametric disc, centred",
        "closes (strongest)",
        True,
        body,
        "poles on the rim, N-S along|the reed: the centre lobe,|the longest reach; mark the|axis on the piece",
    )
    # 4: a Hall switch under a flat disc: it senses the vertical field itself
    c = 3 * PANEL_W + PANEL_W / 2
    body = _disc(c, 200)
    body += [
        f'<rect x="{c - 14:g}" y="262" width="28" height="16" fill="#333"/>',
        _text(c, 298, "Hall switch (SOT-23 / TO-92)", 10),
    ]
    body += [_arrow(c + dx, 212, c + dx, 258) for dx in (-10, 10)]
    parts += _panel(
        3,
        "4. Hall switch, centred",
        "switches",
        True,
        body,
        "an omnipolar switch senses|the field straight through|the top; centred is best|(needs 3.3 V, no diode)",
    )
    first = "Build one test square first: a piece on it, lifted 5 mm, slid to each edge."
    parts.append(_text(W / 2, H - 14, first, 13))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> int:
    path = HERE / "magnet-placement.svg"
    path.write_text(draw())
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
