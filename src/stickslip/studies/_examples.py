"""Ready-made spec files, shipped with the package: ``stickslip sweep --example NAME`` and
``stickslip fit --example NAME`` write one into the current directory.

The specs are package data (``stickslip/studies/specs/NAME.yaml``; the repository keeps the
same files in ``examples/studies/``). A fit example also needs measured data: it is made
here, by a run of the model with the true values written in :data:`SPEC_EXAMPLES` (and in
the spec's header) plus seeded noise, so the fit has a known answer to recover.

>>> sorted(name for name, ex in SPEC_EXAMPLES.items() if ex.kind == "fit")
['coulomb_fit', 'lugre_fit']
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from ..errors import ParameterError

__all__ = ["SPEC_EXAMPLES", "Measurement", "SpecExample", "write_example"]


class Measurement(NamedTuple):
    """How a fit example's measured data are made: ``model(**fixed, **truth)`` run for
    `t_end` [s] at step `dt` [s], sampled every `dt_out` [s]; each channel gets Gaussian
    noise of `noise` times its standard deviation (generator seeded with `seed`)."""

    model: str
    fixed: dict
    truth: dict
    channels: tuple
    t_end: float
    dt: float
    dt_out: float
    noise: float = 0.01
    seed: int = 0


class SpecExample(NamedTuple):
    """A ready-made spec: its kind (``"sweep"`` or ``"fit"``), a one-line title, and for a
    fit how its measured data are made."""

    kind: str
    title: str
    measurement: Measurement | None = None

    def files(self, name: str) -> list[str]:
        """The files `write_example` writes for example `name`."""
        return [f"{name}.yaml"] + ([f"{name}_measured.csv"] if self.measurement else [])


SPEC_EXAMPLES: dict[str, SpecExample] = {
    "stick_slip_map": SpecExample(
        "sweep", "stick fraction of a Coulomb block over friction level × push amplitude "
                 "(eq. 10, 20 points)"),
    "lugre_breakaway": SpecExample(
        "sweep", "breakaway of a LuGre block as the push amplitude grows (LuGre element of Altair MotionSolve tutorial MV-9003, 9 points)"),
    "coulomb_fit": SpecExample(
        "fit", "friction level F and mass M of a Coulomb block from its position "
               "(true F = 0.4 N, M = 1 kg)",
        Measurement("friction_mass", {"amplitude": 0.6}, {"F": 0.4, "M": 1.0}, ("p",),
                    t_end=2.0, dt=1e-4, dt_out=1e-2)),
    "lugre_fit": SpecExample(
        "fit", "mu_s, mu_k and k0 of a LuGre block from its position and velocity "
               "(true 0.3, 0.2, 1e5 N/m)",
        Measurement("lugre_block", {"amplitude": 4.0}, {"mu_s": 0.3, "mu_k": 0.2, "k0": 1e5},
                    ("p", "v"), t_end=1.0, dt=1e-4, dt_out=1e-3)),
}


def spec_text(name: str) -> str:
    """The text of example spec `name` (package data)."""
    return (resources.files("stickslip.studies") / "specs" / f"{name}.yaml").read_text(
        encoding="utf-8")


def write_example(name: str, directory: str | os.PathLike = ".", *,
                  kind: str | None = None) -> list[Path]:
    """Write example spec `name` into `directory` — for a fit example also its measured data
    (a CSV, simulated from the true values) — and return the paths written. Existing files
    are overwritten: the command line checks first."""
    example = _example(name, kind)
    directory = Path(directory)
    spec = directory / f"{name}.yaml"
    spec.write_text(spec_text(name), encoding="utf-8")
    written = [spec]
    if example.measurement is not None:
        written.append(_write_measurement(example.measurement,
                                          directory / f"{name}_measured.csv", name))
    return written


def _example(name: str, kind: str | None) -> SpecExample:
    known = sorted(n for n, ex in SPEC_EXAMPLES.items() if kind in (None, ex.kind))
    if name not in known:
        raise ParameterError(f"unknown {kind or 'spec'} example {name!r}; known: "
                             f"{', '.join(known)}.")
    return SPEC_EXAMPLES[name]


def _write_measurement(m: Measurement, path: Path, name: str) -> Path:
    import numpy as np
    import pandas as pd

    from ..integrate import simulate
    from ._models import MODELS

    res = simulate(MODELS[m.model].build(**m.fixed, **m.truth), m.t_end, dt=m.dt,
                   dt_out=m.dt_out)
    rng = np.random.default_rng(m.seed)
    frame = pd.DataFrame({"t": res.t})
    for channel in m.channels:
        clean = np.asarray(res[channel])
        frame[channel] = clean + m.noise * np.std(clean) * rng.standard_normal(clean.size)
    truth = ", ".join(f"{k} = {v:g}" for k, v in m.truth.items())
    with path.open("w", encoding="utf-8") as file:
        file.write(f"# {name}: {m.model} with {truth} (the true values), "
                   f"{m.noise:.0%} noise, seed {m.seed}; made by "
                   f"`stickslip fit --example {name}`\n")
        frame.to_csv(file, index=False)
    return path
