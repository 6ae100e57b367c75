"""Identify μ_s, μ_k and the bristle stiffness σ0 (k0) of a LuGre block (SPEC §8) from a
noisy measured trajectory: the "measurement" is a synthetic run with the tutorial's
parameters plus 1 % Gaussian noise on position, velocity and friction force; the fit
starts from other parameters (μ_s 0.35, μ_k 0.15, k0 5e4) and recovers the true ones
within its 95 % intervals.

    PYTHONPATH=src python examples/studies/lugre_identification.py [--out DIR]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import stickslip as ss
from stickslip.studies import lugre_block

TRUE = dict(mu_s=0.3, mu_k=0.2, k0=1e5)                 # what the "measurement" used
KNOWN = dict(vs=1e-3, k1=math.sqrt(1e5), k2=0.4, amplitude=4.0)
START = dict(mu_s=0.35, mu_k=0.15, k0=5e4)               # the engineer's first guess


def measured(seed: int = 0):
    """2 s of the block under a 4 N sine push, sampled every ms, with 1 % noise."""
    res = ss.simulate(lugre_block(**TRUE, **KNOWN), 2.0, dt=1e-4, dt_out=1e-3)
    rng = np.random.default_rng(seed)
    data = {"t": res.t}
    for name in ("p", "v", "f"):
        data[name] = res[name] + 0.01 * np.std(res[name]) * rng.standard_normal(res.t.size)
    return data


def main(out: Path):
    import matplotlib

    matplotlib.use("Agg")
    result = ss.fit(lugre_block, measured(), START, fixed=KNOWN, dt=1e-4)
    print(result)
    for name, value in TRUE.items():
        lo, hi = result.intervals[name]
        print(f"{name}: true {value:g} {'inside' if lo <= value <= hi else 'OUTSIDE'} "
              f"[{lo:.6g}, {hi:.6g}]")
    print(f"{result.wall_time:.1f} s")
    out.mkdir(parents=True, exist_ok=True)
    result.plot().savefig(out / "lugre_identification.png", dpi=120)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples_out/studies"))
    main(parser.parse_args().out)
