"""Real-time position control with friction-like saturation (SPEC §6).

Controllers — each a validated parameter module with a pure ``update`` plus a stateful
wrapper with ``.step(p_d, p) -> f`` for a loop:

* :class:`PSMC` / :class:`PSMCParams` / :func:`psmc_step` — proxy-based sliding mode control
  (Kikuuwe & Fujimoto, ICRA 2006): as accurate as PID for small errors, a slow overdamped
  recovery with |f| ≤ F for large ones, no chattering;
* :class:`PID` / :func:`pid_step` and :class:`NaiveSMC` / :func:`naive_smc_step` — the
  comparisons;
* :class:`RenderedFriction` — Coulomb friction rendered on a device by DA relaxation
  (haptics, admittance control).

Plants (:class:`MassPlant`, :class:`SingleLinkArm`, :class:`ActuatedSystem` around any core
system such as a ``FrictionMass``; a planar mechanism driven by joint efforts, one controller
per joint, is ``ss.planar.MechanismPlant`` with ``ss.planar.JointActuator`` — the planar host
builds on this layer) and :func:`simulate_closed_loop`
(zero-order hold, the plant integrated between samples by the core's Runge–Kutta steps);
:func:`simulate_host_loop` runs a host-side controller (a Python object, exported C) against
the same plant sample by sample. :mod:`stickslip.planar.psmc_arm`: a two-link arm with joint
friction and per-joint PSMC gains.
"""

from ._closed_loop import simulate_closed_loop as simulate_closed_loop
from ._controllers import PID as PID
from ._controllers import PSMC as PSMC
from ._controllers import AbstractController as AbstractController
from ._controllers import NaiveSMC as NaiveSMC
from ._controllers import NaiveSMCParams as NaiveSMCParams
from ._controllers import NaiveSMCState as NaiveSMCState
from ._controllers import PIDParams as PIDParams
from ._controllers import PIDState as PIDState
from ._controllers import PSMCParams as PSMCParams
from ._controllers import PSMCState as PSMCState
from ._controllers import RenderedFriction as RenderedFriction
from ._controllers import RenderedFrictionParams as RenderedFrictionParams
from ._controllers import RenderedFrictionState as RenderedFrictionState
from ._controllers import naive_smc_step as naive_smc_step
from ._controllers import pid_step as pid_step
from ._controllers import psmc_step as psmc_step
from ._host_loop import simulate_host_loop as simulate_host_loop
from ._plants import AbstractPlant as AbstractPlant
from ._plants import ActuatedSystem as ActuatedSystem
from ._plants import MassPlant as MassPlant
from ._plants import SingleLinkArm as SingleLinkArm
