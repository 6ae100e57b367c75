"""Studies: parameter sweeps from one core to a Dask cluster, and friction identified from
measured data by gradient.

* :func:`sweep` — many runs over a design (:func:`grid`, :func:`latin_hypercube`,
  :func:`random_sample`) → one table of scalar outputs (named analyses such as
  :func:`stick_fraction`), on the ``"vmap"``, ``"processes"`` or ``"dask"`` backend,
  resumable from a Parquet store.
* :func:`fit` — least-squares identification of law and system parameters from measured
  channels, with Gauss–Newton confidence intervals (:class:`FitResult`).
* :func:`load_spec`, :func:`run_spec` — the YAML/TOML spec files behind
  ``stickslip sweep SPEC`` and ``stickslip fit SPEC``; :data:`SPEC_EXAMPLES` and
  :func:`write_example` — the ready-made ones (``stickslip sweep --example NAME``).

Needs the ``studies`` extra (dask.distributed, pyarrow, pyyaml) for the Dask backend, the
store and YAML specs; ``import stickslip`` does not import this package.
"""

from ._analyses import ANALYSES as ANALYSES
from ._analyses import energy_loss as energy_loss
from ._analyses import final as final
from ._analyses import max_abs as max_abs
from ._analyses import rest_position as rest_position
from ._analyses import stick_fraction as stick_fraction
from ._examples import SPEC_EXAMPLES as SPEC_EXAMPLES
from ._examples import write_example as write_example
from ._fit import fit as fit
from ._fit_result import FitResult as FitResult
from ._grid import grid as grid
from ._grid import latin_hypercube as latin_hypercube
from ._grid import random_sample as random_sample
from ._models import MODELS as MODELS
from ._models import SineForce as SineForce
from ._models import friction_mass as friction_mass
from ._models import lugre_block as lugre_block
from ._spec import run_spec as run_spec
from ._spec_load import load_spec as load_spec
from ._spec_read import SpecError as SpecError
from ._sweep import sweep as sweep

__all__ = [
    "sweep", "fit", "FitResult", "grid", "latin_hypercube", "random_sample",
    "stick_fraction", "max_abs", "rest_position", "final", "energy_loss", "ANALYSES",
    "MODELS", "SineForce", "friction_mass", "lugre_block",
    "SpecError", "load_spec", "run_spec", "SPEC_EXAMPLES", "write_example",
]
