"""``tests/slow_tests.txt`` (CI's time budget, written by ``.ci/slow_tests.py``) names tests
that exist: a renamed or deleted test left in it would silently stop nothing, and its
successor would run in CI unmeasured."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_listed_test_is_defined_where_the_list_says():
    listed = [line.split("#")[0].strip()
              for line in (ROOT / "tests" / "slow_tests.txt").read_text().splitlines()]
    listed = [test for test in listed if test]
    assert listed, "the list is empty: rerun .ci/slow_tests.py"
    stale = []
    for test in listed:
        path, _, name = test.partition("::")
        source = ROOT / path
        if not source.is_file():
            stale.append(test)
            continue
        if path.startswith("src/"):             # a doctest: module[.Class][.function]
            if name.rsplit(".", 1)[-1] == source.stem:
                continue                         # the module's own docstring
            defined = name.rsplit(".", 1)[-1]
        else:
            defined = re.sub(r"\[.*\]$", "", name).split("::")[-1]
        if not re.search(rf"^\s*(async\s+def|def|class) {re.escape(defined)}\b", source.read_text(),
                         re.M):
            stale.append(test)
    assert not stale, f"tests/slow_tests.txt names tests that are gone: {stale}"
