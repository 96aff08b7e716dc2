"""Hall-effect sensors for the damas firmware: boards that see each piece's colour (and crown).

White pieces carry their magnet north pole up, black pieces south up; a king's crown (the
second piece stacked on the man) carries a magnet of its own, north up on a white king,
south up on a black one, so the field over a king is stronger. Two builds
(hardware/wiring-hall.md):

A piece's magnet turns its other pole down, to the sensor: a white piece (north up) shows
the sensor its south pole, which the datasheets count as a positive field on the marked side.

- ``HallPairs``: two unipolar Hall switches per square (DRV5032DU, push-pull outputs), the
  *white* one mounted marked side up (a south pole at its marked side: a white piece), the
  *black* one marked side down (a north pole below the piece reads, at its back, as a south
  pole at its marked side), every output on its own input of a chain of 74HC165 shift
  registers read with three pins (load, clock, data). It sees colour, not crowns.
- ``LinearHall``: one linear Hall sensor per square, marked side up (DRV5055A3, ratiometric:
  VCC/2 with no field, higher with a south pole at its marked side: a white piece), every
  output on a channel of a CD74HC4067 16-channel multiplexer, the multiplexers' common
  outputs on one ADC input of the Pico, one multiplexer enabled at a time. It sees colour
  and crowns, by field strength: ``present`` and ``king`` thresholds (CALIBRATE sets them).

Both give each cell a state (link.EMPTY ... link.OCCUPIED) and a signed field reading
(FIELDS: positive for a north pole up). Plain MicroPython; CPython runs it in the tests.
"""

import link
import machine

#: the 12-bit ADC's reading with no field (the DRV5055's output is VCC/2, ratiometric with the ADC's 3.3 V)
ZERO = 2048
#: field thresholds in ADC counts from ZERO (hardware/wiring-hall.md: the DRV5055A3 at 3.3 V,
#: 15 mV/mT, reads a man about 530, a king about 815; a king from halfway between)
PRESENT = 200
KING = 670


class HallPairs:
    """Two unipolar switches per cell on a 74HC165 chain: the bit shifted out ``2i`` is cell
    ``i``'s white switch, ``2i + 1`` its black switch; an output reads 0 while its switch
    sees its pole (push-pull, active low)."""

    crowns = False

    def __init__(self, load, clock, data, cells):
        self.load = machine.Pin(load, machine.Pin.OUT, value=1)
        self.clock = machine.Pin(clock, machine.Pin.OUT, value=0)
        self.data = machine.Pin(data, machine.Pin.IN)
        self.cells = cells
        self.last = [0] * (2 * cells)

    def bits(self):
        """One pass over the chain: True where a switch sees its pole."""
        self.load.value(0)  # the chips copy their inputs...
        self.load.value(1)  # ...and shift from now on
        out = [False] * (2 * self.cells)
        data, clock = self.data, self.clock
        for k in range(2 * self.cells):
            out[k] = data.value() == 0
            clock.value(1)
            clock.value(0)
        self.last = out
        return out

    def read(self):
        b = self.bits()
        states = [link.EMPTY] * self.cells
        for i in range(self.cells):
            white, black = b[2 * i], b[2 * i + 1]
            if white and black:
                states[i] = link.OCCUPIED  # both at once: a piece the board cannot read
            elif white:
                states[i] = link.WHITE_MAN
            elif black:
                states[i] = link.BLACK_MAN
        return states

    def fields(self):
        b = self.last
        return [(1 if b[2 * i] else 0) - (1 if b[2 * i + 1] else 0) for i in range(self.cells)]

    def calibrate(self, present, king):
        pass  # switches have their thresholds built in


class LinearHall:
    """One linear sensor per cell, through 16-channel multiplexers to one ADC input: cell
    ``i`` is channel ``i % 16`` of multiplexer ``i // 16``. ``select``: the four pins S0-S3
    (shared), ``enable``: each multiplexer's /E (active low), ``adc``: the ADC pin."""

    crowns = True

    def __init__(self, select, enable, adc, cells, sleep_us=None):
        self.select = [machine.Pin(p, machine.Pin.OUT, value=0) for p in select]
        self.enable = [machine.Pin(p, machine.Pin.OUT, value=1) for p in enable]
        self.adc = machine.ADC(machine.Pin(adc))
        self.cells = cells
        self.present = PRESENT
        self.king = KING
        self.sleep_us = sleep_us
        self.last = [0] * cells

    def readings(self):
        """Each cell's field in ADC counts from the no-field level (positive: a white piece, north up)."""
        out = [0] * self.cells
        for m, en in enumerate(self.enable):
            en.value(0)
            for ch in range(16):
                i = m * 16 + ch
                if i >= self.cells:
                    break
                for b, pin in enumerate(self.select):
                    pin.value((ch >> b) & 1)
                if self.sleep_us is not None:
                    self.sleep_us(5)  # the multiplexer and the ADC's input settle
                out[i] = (self.adc.read_u16() >> 4) - ZERO
            en.value(1)
        self.last = out
        return out

    def read(self):
        states = [link.EMPTY] * self.cells
        for i, r in enumerate(self.readings()):
            size = r if r >= 0 else -r
            if size < self.present:
                continue
            white = r > 0
            if size >= self.king:
                states[i] = link.WHITE_KING if white else link.BLACK_KING
            else:
                states[i] = link.WHITE_MAN if white else link.BLACK_MAN
        return states

    def fields(self):
        return list(self.last)

    def calibrate(self, present, king):
        """CALIBRATE: new thresholds (0 keeps one)."""
        if present:
            self.present = present
        if king:
            self.king = king
