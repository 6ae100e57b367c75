"""The impulse quadrature of the exact time-stepping route (``method="moreau_jean"``).

Five-point Gauss–Legendre on [0, 1] (:data:`NODES`, :data:`WEIGHTS`): exact for polynomials
of degree 9; for a sinusoid of angular frequency ω the relative error of one step's impulse
is ≈ (ωh/2)^10/10! (2.5e-15 at ωh = 0.31). One rule for the traced route
(:func:`stickslip.integrate.impulse`) and the C it is exported to
(:func:`stickslip.discrete.export_c`), so the two step the same load impulse. Shared layer
below every subpackage; imports no JAX.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NODES", "WEIGHTS"]

_nodes, _weights = np.polynomial.legendre.leggauss(5)
NODES = 0.5 * (_nodes + 1.0)
WEIGHTS = 0.5 * _weights
