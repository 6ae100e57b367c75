"""`import stickslip` stays light: the studies (and dask) load only when used."""

import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_import_stickslip_does_not_import_dask_or_the_studies():
    code = ("import sys, stickslip as ss; "
            "assert not [m for m in sys.modules if m.split('.')[0] in "
            "('dask', 'distributed', 'pyarrow', 'yaml')], 'heavy import'; "
            "assert 'stickslip.studies' not in sys.modules; "
            "ss.sweep, ss.fit; assert 'stickslip.studies' in sys.modules; "
            "assert 'distributed' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, env={"PYTHONPATH": SRC})
