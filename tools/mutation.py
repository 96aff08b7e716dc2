"""``make mutation``: mutation testing of the core with mutmut 3 (not part of ``make test``).

Each target (a module or a package) is mutated in a work folder of its own,
``.mutation/<target>/``, which links the project's packages and tests and carries a
``pyproject.toml`` whose ``[tool.mutmut]`` names the files to mutate and the tests that
exercise them in-process. So each target runs only its own tests (mutmut then runs, for
each mutant, only the tests that reached the mutated function), and the results of one
target survive a run of another. A re-run only tests mutants whose function changed.

    python tools/mutation.py [target ...]      # default: every target, the small ones first
    python tools/mutation.py --sample 200 rules   # a random sample (the same every time) of 200 mutants
    python tools/mutation.py --sample 150 --seed 2 store   # another sample of the same size
    python tools/mutation.py --report          # the figures of the last runs, no new run

One worker, at low priority (``nice``): the machines this runs on are shared. The figures
and the list of surviving mutants are in docs/mutation.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutation"
PACKAGES = ["rules", "referee", "board_hal", "firmware_bridge", "damas", "engine", "wording"]
#: what some tests read beside the packages (example configurations, the firmware)
ALSO = ["hardware", "deploy"]

#: target -> (the files mutated, the tests run against them)
TARGETS: dict[str, tuple[list[str], list[str]]] = {
    "debounce": (
        ["board_hal/debounce.py"],
        ["tests/hal/test_debounce.py", "tests/hal/test_hal.py", "tests/referee/test_pipeline.py"],
    ),
    "link": (["firmware_bridge/link.py"], ["tests/bridge/test_link.py", "tests/bridge/test_firmware.py"]),
    "store": (["damas/records/store.py"], ["tests/store"]),
    "rules": (["rules/*"], ["tests/rules"]),
    "referee": (["referee/*"], ["tests/referee"]),
}

#: tests too slow to run once per mutant (minutes each with mutmut's call tracing); they
#: still run in make test, and other tests reach the same code
SLOW = [
    "tests/referee/test_campaigns.py::test_real_games_with_human_hands_reconstruct_exactly",
    "tests/referee/test_campaigns.py::test_real_games_with_sloppy_hands_quick",
    "tests/rules/test_differential.py::test_legal_moves_agree_with_pydraughts[international]",
    "tests/rules/test_differential.py::test_missing_data_or_oracle_fails_under_ci",
]


def pyproject(target: str) -> str:
    """The project's pyproject.toml (for pytest's settings) with this target's [tool.mutmut]."""
    mutate, tests = TARGETS[target]
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deselect = [arg for test in SLOW for arg in ("--deselect", test)]
    pytest_args = ["-p", "no:cacheprovider", "--hypothesis-profile=mutation", *deselect]
    return (
        text
        + "\n[tool.mutmut]\n"
        + f"source_paths = {json.dumps(PACKAGES)}\n"
        + f"only_mutate = {json.dumps(mutate)}\n"
        + f"also_copy = {json.dumps(ALSO)}\n"
        + f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        + f"pytest_add_cli_args = {json.dumps(pytest_args)}\n"
        # a mutant that loops is given up on after 5 times its tests' own time (mutmut: 15)
        + "timeout_multiplier = 5.0\n"
    )


def prepare(target: str) -> Path:
    work = WORK / target
    work.mkdir(parents=True, exist_ok=True)
    for name in [*PACKAGES, *ALSO, "tests"]:
        link = work / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    (work / "pyproject.toml").write_text(pyproject(target), encoding="utf-8")
    return work


def mutmut() -> str:
    return str(Path(sys.executable).with_name("mutmut"))


#: mutmut 3.8's own steps, to list a target's mutants without running any (for --sample)
GENERATE = """
import os
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants
os.makedirs("mutants", exist_ok=True)
copy_src_dir()
copy_also_copy_files()
create_mutants(1)
"""


def verdicts(target: str) -> dict[str, int | None]:
    """Every mutant of the target and its exit code (None: not tested yet), from mutmut's .meta files."""
    out: dict[str, int | None] = {}
    mutants = WORK / target / "mutants"
    for meta in sorted(mutants.rglob("*.py.meta")):
        if not (ROOT / meta.relative_to(mutants)).with_suffix("").exists():
            continue  # a file since removed from the project (left in mutants/)
        out.update(json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {}))
    return out


def run(target: str, sample: int | None, seed: int | None = None) -> int:
    """Test the target's mutants (or a sample of them) that no test has killed yet: new ones,
    those whose function changed, and the survivors of the last run (new tests may kill them)."""
    work = prepare(target)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", GENERATE], cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)
    # which tests reach which function: collected afresh (mutmut 3.8 only adds the new tests'
    # calls, so a function added or changed since would be tried against the new tests only)
    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    codes = verdicts(target)
    names = sorted(codes)
    if sample is not None:
        # the same sample every time, so that a re-run after new tests re-tests the same mutants
        key = f"{target}-{sample}" + (f"-{seed}" if seed is not None else "")  # no seed: the samples of before
        names = sorted(random.Random(key).sample(names, min(sample, len(names))))
        (work / "sample.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    else:
        (work / "sample.txt").unlink(missing_ok=True)
    of = f" (a random sample of {len(names)} of {len(codes)})" if sample is not None else ""
    # twice at most: a changed configuration makes mutmut itself forget results as it starts
    for _round in range(2):
        codes = verdicts(target)
        todo = [n for n in names if STATUS.get(codes[n]) not in ("killed", "timeout")]
        if _round and not [n for n in todo if codes[n] is None]:
            break
        print(f"== {target}: {', '.join(TARGETS[target][0])}: {len(todo)} of {len(names)} mutants to test{of}")
        if not todo:
            break
        cmd = ["nice", "-n", "15", mutmut(), "run", "--max-children", "1", *todo]
        code = subprocess.run(cmd, cwd=work, env=env, check=False).returncode
        if code != 0:
            return code
    return 0


STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 36: "timeout"}
STATUS |= {-24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout", None: "not checked"}


def report(targets: list[str]) -> int:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"mutation score = (killed + timeout) / mutants tested; commit {commit or '?'}")
    low = False
    for target in targets:
        codes = verdicts(target)
        sample_file = WORK / target / "sample.txt"
        if sample_file.exists():
            chosen = set(sample_file.read_text(encoding="utf-8").split())
            codes = {k: v for k, v in codes.items() if k in chosen}
        by_status: dict[str, list[str]] = {}
        for name, code in sorted(codes.items()):
            by_status.setdefault(STATUS.get(code, "suspicious"), []).append(name)
        tested = sum(len(v) for k, v in by_status.items() if k not in ("skipped", "not checked"))
        if not tested:
            print(f"  {target:9} not run")
            continue
        killed = len(by_status.get("killed", [])) + len(by_status.get("timeout", []))
        others = {k: v for k, v in sorted(by_status.items()) if k not in ("killed", "timeout")}
        rest = ", ".join(f"{len(v)} {k}" for k, v in others.items())
        score = 100.0 * killed / tested
        low |= score < 90.0
        of = f" (a sample of {len(codes)} of {len(verdicts(target))})" if sample_file.exists() else ""
        print(f"  {target:9} {score:5.1f} %  {killed} of {tested} killed{of}" + (f"; {rest}" if rest else ""))
        for status in ("survived", "no tests", "suspicious"):
            for name in by_status.get(status, []):
                print(f"      {status}: {name}")
    return 1 if low else 0


def main() -> int:
    parser = argparse.ArgumentParser(description="Mutation testing of the core (mutmut 3), one target at a time.")
    parser.add_argument("targets", nargs="*", help=f"of {', '.join(TARGETS)} (default: all, the small ones first)")
    parser.add_argument("--report", action="store_true", help="only print the figures of the last runs")
    parser.add_argument("--sample", type=int, metavar="N", help="test a random sample of N mutants of each target")
    parser.add_argument("--seed", type=int, metavar="S", help="with --sample: draw another fixed sample (seed S)")
    args = parser.parse_args()
    targets = args.targets or list(TARGETS)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r} (known: {', '.join(TARGETS)})")
    if not args.report:
        for target in targets:
            code = run(target, args.sample, args.seed)
            if code != 0:
                print(f"mutation: mutmut failed on {target} (exit status {code})", file=sys.stderr)
                return code
    return report(targets)


if __name__ == "__main__":
    sys.exit(main())
