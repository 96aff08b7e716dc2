"""The serial bridge to the board's microcontroller (a Raspberry Pi Pico).

``link`` is the frame codec shared with the firmware; ``bridge.PicoBoard`` the host's
sensor + LED backend; ``emulator.Emulator`` the firmware on a simulated matrix behind a
pseudo-terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from board_hal.backends import BoardIO, Clock
    from board_hal.config import Config
    from board_hal.layout import Layout


def open_pico(config: Config, layout: Layout, *, clock: Clock | None = None) -> BoardIO:
    """The board of a ``backend = "pico"`` configuration (the port found by USB id if unset);
    ``clock`` stamps its events (the app's clock, so they sort with what the players enter)."""
    import time

    from board_hal.backends import BoardIO
    from board_hal.config import ConfigError, PicoConfig
    from firmware_bridge import link
    from firmware_bridge.bridge import PicoBoard, find_pico_port

    pico = config.pico
    port = pico.port if pico else None
    if not port:
        port = find_pico_port()
        if port is None:
            raise ConfigError(f"{config.source}: no Raspberry Pi Pico found on USB: plug it in, or set pico.port")
    pico = pico or PicoConfig()
    along = link.ALONG_ROWS if pico.along == "rows" else link.ALONG_COLUMNS
    order = link.SERPENTINE if pico.order == "serpentine" else link.MATRIX
    board = PicoBoard(
        port,
        layout.size,
        baudrate=pico.baudrate,
        looks=config.looks,
        clock=clock or time.monotonic,
        strip=(pico.first, along, order),
        settle_us=pico.settle_us,
        watchdog_ms=round(pico.watchdog * 1000),
        thresholds=(pico.present, pico.king),
    )
    return BoardIO(layout, board, board)


__all__ = ["open_pico"]
