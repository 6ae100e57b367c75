"""Discrete-time friction algorithms for real-time loops (SPEC §6, Kikuuwe's slides).

Backward Euler turns each differential inclusion into an algebraic one that theorem (4)
solves in closed form, so static friction holds exactly at any sample period:

* :func:`sign_inclusion_step` — the implicit update for ``ẋ ∈ −sgn(x) − u``;
* :func:`coulomb_mass_step` — a mass with Coulomb friction (Kikuuwe et al., T-RO 2006);
* :func:`da_relaxation_step` — differential-algebraic relaxation for a device whose velocity
  is measured (admittance / haptic rendering);
* :func:`brush_tire_step` / :class:`BrushTire` — the brush tire model as a partial
  differential-algebraic inclusion, discretised in space and time (Kikuuwe et al., SI2007);
* :func:`export_c` — dependency-free C99 for each algorithm (and for PSMC,
  :mod:`stickslip.control`, which adds its own with :func:`register_c` and a
  :class:`CTemplate`);
* :func:`export_fmu` — the same C as an FMI 2.0 co-simulation FMU (also ``ss.export_fmu``).

Closed-form references of the brush model (Pacejka, *Tire and Vehicle Dynamics*, §3.2):
:func:`brush_analytic_force`, :func:`brush_analytic_combined` and :func:`theoretical_slip`;
the simulated steady states :func:`steady_state_curve` and :func:`steady_state_combined`.

Stateful wrappers for a Python loop: :class:`CoulombMass`, :class:`DARelaxation`.
"""

from ._export_c import ALGORITHMS as ALGORITHMS
from ._export_c import CTemplate as CTemplate
from ._export_c import export_c as export_c
from ._export_c import register_c as register_c
from ._export_fmu import export_fmu as export_fmu
from ._friction import CoulombMass as CoulombMass
from ._friction import DARelaxation as DARelaxation
from ._friction import coulomb_mass_step as coulomb_mass_step
from ._friction import da_relaxation_step as da_relaxation_step
from ._friction import sign_inclusion_step as sign_inclusion_step
from ._tire import BrushTire as BrushTire
from ._tire import brush_analytic_force as brush_analytic_force
from ._tire import brush_tire_step as brush_tire_step
from ._tire import steady_state_curve as steady_state_curve
from ._tire_combined import brush_analytic_combined as brush_analytic_combined
from ._tire_combined import brush_tire_step_combined as brush_tire_step_combined
from ._tire_combined import steady_state_combined as steady_state_combined
from ._tire_combined import theoretical_slip as theoretical_slip
