"""Choose the tests that leave CI's default run, so that ``.ci/run`` keeps to its budget.

CI must finish in under 8 minutes on 2 cores from an empty compile cache. The suite is
compile-bound: most of a test's time is tracing and compiling its model's programs, once per
process. This script reads the durations of a full run (pytest's ``--durations=0`` output) and
writes ``tests/slow_tests.txt``: the tests that ``tests/conftest.py`` then marks ``slow``, so
that README's test command skips them and ``python -m pytest -m slow`` runs them.

It takes the most expensive tests first, until what is left sums to ``--budget`` seconds
(setup + call + teardown, summed over both workers), and never takes the tests named in
``KEEP``: the physical invariants the project promises above all, one test each.

A test's time depends on what ran before it in its file (the first test to need a program
compiles it; the next ones load it), so taking one test out moves part of its time to its
neighbours. So measure twice: every test (``-m ""``, so that a listed test that became cheap can
come back), write the list, then CI's set with the list applied, and write it again from
both logs (the later log's numbers win)::

    XDG_CACHE_HOME=$(mktemp -d) python -m pytest -m "" --durations=0 -q > all.log
    python .ci/slow_tests.py all.log --budget 310
    XDG_CACHE_HOME=$(mktemp -d) python -m pytest --durations=0 -q > ci.log
    python .ci/slow_tests.py all.log ci.log --budget 310

The budget is in this script's own accounting (the logs' seconds, which overcount what the
moved time adds back): 310 gave a default set of 210 s wall from an empty cache and CI's
whole run in 446 s (2026-11-26; 340 gave 256 s and 497 s).
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "slow_tests.txt"

# one test per promise, kept in CI whatever they cost (README: what stickslip guarantees)
KEEP = (
    # static friction holds without creep; slips at the kinetic level (1-DOF, planar, 3-D)
    "tests/systems/test_two_blocks_levels_moreau_jean.py::test_held_below_the_static_level_without_drift",
    "tests/planar/test_planar_mixed_elements.py::test_a_cart_and_pendulum_below_both_static_levels_are_held_exactly",
    "tests/spatial/test_link_moreau_jean.py::test_gripper_holds_the_box_without_drift",
    "tests/spatial/test_link_moreau_jean.py::test_gripper_with_a_weak_grip_slides_at_the_closed_form_acceleration",
    "tests/spatial/test_link_moreau_jean.py::test_revolute_friction_holds_exactly_below_the_level_and_slips_above",
    # energy without dissipation; the joints stay closed
    "tests/spatial/test_link_systems.py::test_double_pendulum_conserves_energy",
    "tests/spatial/test_link_systems.py::test_closed_four_bar_conserves_energy_with_redundant_rows_removed",
    # rolling from slip (seed 001), gradients through a contact run
    "tests/spatial/test_link_systems.py::test_sphere_slip_turns_into_rolling_at_five_sevenths",
    "tests/spatial/test_link_systems.py::test_gradient_through_a_contact_run_matches_the_closed_form",
)

# CI's documentation stage runs these with `-m slow` or `-m ""` anyway: listing them moves
# nothing out of CI
DOCS = "tests/docs/"

_LINE = re.compile(r"\s*([\d.]+)s (?:setup|call|teardown)\s+(.+?)\s*$")


def durations(logs: list[pathlib.Path]) -> dict[str, float]:
    """Seconds per test id (setup + call + teardown) from pytest's ``--durations`` lines; a
    later log's number for a test replaces an earlier one's."""
    seconds: dict[str, float] = {}
    for log in logs:
        total: dict[str, float] = collections.defaultdict(float)
        for line in log.read_text().splitlines():
            match = _LINE.match(line)
            if match:
                total[match.group(2)] += float(match.group(1))
        if not total:
            raise SystemExit(f"{log}: no durations in it; run pytest with --durations=0")
        seconds.update(total)
    return seconds


def choose(seconds: dict[str, float], budget: float) -> list[tuple[str, float]]:
    """The tests to mark slow: the most expensive first, ``KEEP`` never, until the rest
    sums to ``budget``."""
    left = sum(seconds.values())
    chosen = []
    for test, s in sorted(seconds.items(), key=lambda kv: -kv[1]):
        if left <= budget:
            break
        if test in KEEP or test.startswith(DOCS):
            continue
        chosen.append((test, s))
        left -= s
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", type=pathlib.Path, nargs="+",
                        help="pytest --durations=0 outputs (a later one's number wins)")
    parser.add_argument("--budget", type=float, default=310.0,
                        help="seconds of test time CI keeps (both workers summed)")
    args = parser.parse_args()
    seconds = durations(args.logs)
    missing = [k for k in KEEP if k not in seconds]
    if missing:
        raise SystemExit(f"KEEP names tests the log does not have: {missing}")
    chosen = choose(seconds, args.budget)
    kept = sum(seconds.values()) - sum(s for _, s in chosen)
    lines = [
        "# Tests marked `slow` for CI's time budget (README: `.ci/run` in under 8 minutes on",
        "# 2 cores from an empty compile cache). Written by `python .ci/slow_tests.py` (its",
        "# docstring says how to remeasure); read by tests/conftest.py. Each line: a test id,",
        "# then its seconds in the measured run. `python -m pytest -m slow` runs them.",
        f"# Measured: {sum(seconds.values()):.0f} s of test time; these {len(chosen)} "
        f"take {sum(s for _, s in chosen):.0f} s, CI keeps {kept:.0f} s.",
    ]
    lines += [f"{test}  # {s:.1f} s" for test, s in sorted(chosen)]
    LIST.write_text("\n".join(lines) + "\n")
    print(f"{LIST.relative_to(ROOT)}: {len(chosen)} tests, CI keeps {kept:.0f} s "
          f"of {sum(seconds.values()):.0f} s")


if __name__ == "__main__":
    main()
