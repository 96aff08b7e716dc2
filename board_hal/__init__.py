"""The hardware abstraction layer: the physical board (sensors, LEDs, layouts).

This package is pure where it can be: :mod:`board_hal.debounce` turns raw switch
transitions into settled square events without any hardware.
"""
