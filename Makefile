# Two commands do all the set-up on a fresh machine:
#   make play   runs the main job (damas play on the simulated board, in the browser)
#   make test   runs the tests
# Both create .venv and install the project into it the first time (and again
# whenever pyproject.toml changes). CI also runs make test-py313.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test test-py313 pi-check test-slow coverage mutation lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# options for damas play: make play ARGS="--variant international --port 8081"
ARGS ?=
play: $(STAMP)
	$(BIN)/damas play $(ARGS)

# pytest in three worker processes (pytest-xdist), each test file in one worker: most tests wait on
# a browser, a broker or a subprocess, so three share two cores well (about half the time of one)
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 3 --dist loadfile

# the wheel check (tests/package) and the rules, referee and hardware-layer (board_hal) tests
# under Debian trixie's own Python 3.13 (Raspberry Pi OS Trixie's), in a Debian root made with
# debootstrap (needs root; the root is kept in /var/cache/damas). CI runs it after make test.
test-py313:
	tools/py313

# the Raspberry Pi install of deploy/README.md, run in arm64 Debian bookworm and trixie roots
# under qemu (needs root; slow: about half an hour a release; not part of make test or CI)
pi-check:
	tools/pi-check

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

# line coverage of the default run, counting the processes the tests start (not part of make test)
coverage: $(STAMP)
	rm -f .coverage .coverage.*
	$(BIN)/python -m coverage run -m pytest -q
	$(BIN)/python -m coverage combine -q
	$(BIN)/python -m coverage report

# mutation testing of the core with mutmut (not part of make test; long: one worker, at low
# priority). MUTATION passes options and targets, e.g. make mutation MUTATION="--sample 200 rules";
# the figures and the surviving mutants are in docs/mutation.md
MUTATION ?=
mutation: $(STAMP)
	@$(BIN)/python -c "import mutmut" 2>/dev/null || $(BIN)/python -m pip install --quiet 'mutmut==3.8.1'
	$(BIN)/python tools/mutation.py $(MUTATION)

bench: $(STAMP)
	@test -d .bench/py-draughts || $(BIN)/python -m pip install --quiet --target .bench/py-draughts py-draughts==1.10.1
	@test -d .bench/caissify || $(BIN)/python -m pip install --quiet --target .bench/caissify caissify-pairings==0.5.0
	$(BIN)/python benchmarks/perft.py
	$(BIN)/python benchmarks/referee.py
	$(BIN)/python benchmarks/sensors.py --quick
	$(BIN)/python benchmarks/hal.py
	$(BIN)/python benchmarks/bridge.py
	$(BIN)/python benchmarks/dgt.py
	$(BIN)/python benchmarks/app.py
	$(BIN)/python benchmarks/journal.py
	$(BIN)/python benchmarks/studies.py
	$(BIN)/python benchmarks/pdn.py
	$(BIN)/python benchmarks/engine.py --quick
	$(BIN)/python benchmarks/clock.py
	$(BIN)/python benchmarks/hall.py
	$(BIN)/python benchmarks/pairing.py --peer
	$(BIN)/python benchmarks/speech.py

clean:
	rm -rf $(VENV) .bench .mutation .coverage .coverage.* .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
