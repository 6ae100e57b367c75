"""A ready-made multi-joint plant: a planar two-link arm with joint friction (SPEC §6, §9).

PSMC's users drive multi-DOF arms with one PSMC per joint (Kikuuwe & Fujimoto, ICRA 2006:
"as accurate as PID for small errors, safer for large errors"). :func:`two_link_arm` builds
such an arm with :class:`stickslip.planar.Model`; :func:`two_link_arm_plant` makes it a
:class:`~stickslip.planar.MechanismPlant`; :data:`ARM_GAINS` are per-joint PSMC gains for
it, and :func:`arm_psmc` / :func:`arm_pid` the PSMC and the PID with the same gains (the
comparison of docs/realtime.md, "PSMC on a two-link arm", and
``tests/control/test_psmc_arm.py``).

The arm hangs in a **vertical** plane under gravity (g = 9.81 m/s² along −y): the integral
term has to hold it, and the pins' Coulomb friction is loaded by the links' weight. It starts
at rest hanging straight down (θ1 = −π/2, θ2 = 0), an equilibrium, so a run starts without a
transient.
"""

from __future__ import annotations

import math

from ..laws import CoulombODE, UnilateralODE
from ..control import PIDParams, PSMCParams
from ._joints import RevoluteJoint
from ._model import Model
from ._plant import JointActuator, MechanismPlant
from ._impact import RevoluteStop

__all__ = [
    "ARM_GAINS",
    "HANGING",
    "arm_pid",
    "arm_psmc",
    "two_link_arm",
    "two_link_arm_plant",
]

HANGING = (-math.pi / 2, 0.0)
"""Joint angles (θ1, θ2) [rad] of the arm hanging straight down: where it starts."""

ARM_GAINS = {"F": (12.0, 4.0), "H": 0.1, "K": (400.0, 60.0), "B": (20.0, 3.0),
             "L": (4000.0, 600.0), "T": 1e-3}
"""Per-joint PSMC gains (shoulder, elbow) for the default arm, sampled at 1 kHz.

K, B, L give each joint's PID coupling a bandwidth of ≈ 40 rad/s on its largest inertia
(shoulder ≈ 0.24 kg·m² stretched out, elbow 0.03 kg·m²), critically damped, with L = 10 K;
Routh–Hurwitz ``B·K > I·L`` holds with a factor ≥ 6. F (12 N·m, 4 N·m) is about twice the
largest gravity torque on each joint (5.9 N·m and 1.5 N·m, arm horizontal), so PSMC can hold
the arm anywhere. H = 0.1 s: a large error is recovered along an exponential of time
constant 0.1 s.
"""


def _link(model, name, mass, length, start, angle):
    """A uniform slender link (inertia mL²/12) from point `start` at `angle` [rad]."""
    c, s = math.cos(angle), math.sin(angle)
    return model.add_body(name, mass=mass, inertia=mass * length ** 2 / 12,
                          x=start[0] + 0.5 * length * c, y=start[1] + 0.5 * length * s,
                          phi=angle)


def two_link_arm(*, angles=HANGING, masses=(1.0, 1.0), lengths=(0.3, 0.3),
                 gravity=(0.0, -9.81), mu: float = 0.3, pin_radius: float = 0.05,
                 friction_stiffness: float = 1e4, shoulder_limit: float | None = None,
                 stop_stiffness: float = 1e4) -> Model:
    """A two-link arm on revolute joints with pin friction and a motor on each joint.

    Bodies ``upper`` and ``fore`` (uniform links); joints ``shoulder_joint`` (ground –
    upper, at the origin) and ``elbow_joint`` (upper – fore), each with Coulomb pin friction
    ``CoulombODE(mu=mu)`` on a pin of radius `pin_radius` (friction torque a·μ·N, N the pin
    reaction, SPEC §9), its proxy critically damped on the link's inertia about the joint;
    actuators ``shoulder`` and ``elbow`` (:class:`JointActuator`: torques [N·m] on the joint
    angles θ1 = φ_upper, θ2 = φ_fore − φ_upper).

    Parameters
    ----------
    angles
        initial joint angles (θ1, θ2) [rad], at rest (default: hanging down).
    masses, lengths
        of the two links [kg], [m].
    gravity
        (g_x, g_y) [m/s²]; default vertical plane. (0, 0) gives a horizontal (SCARA)
        arm, whose pins then carry only the inertial loads.
    mu : float, optional
        pin friction coefficient [-].
    pin_radius : float, optional
        a [m].
    friction_stiffness : float, optional
        the friction proxy's stiffness K [N·m/rad] (SPEC §2, eq. 9).
    shoulder_limit : float, optional
        an obstacle: a unilateral stop ``θ1 ≤ shoulder_limit`` [rad] (a
        :class:`~stickslip.planar.RevoluteStop` with a ``UnilateralODE`` contact law of
        stiffness `stop_stiffness` [N·m/rad], β = 2√(I/K) (damping ratio 1 on the shoulder's
        inertia I) and α = β/2 (SPEC §3: α < β dissipates at impact)); None: no stop.
    """
    (m1, m2), (l1, l2), (t1, t2) = masses, lengths, angles
    m = Model(gravity=gravity, name="two_link_arm")
    upper = _link(m, "upper", m1, l1, (0.0, 0.0), t1)
    elbow_at = (l1 * math.cos(t1), l1 * math.sin(t1))
    fore = _link(m, "fore", m2, l2, elbow_at, t1 + t2)
    # joint-space inertia at the start (uniform links: centroidal mL²/12, centre at L/2);
    # each friction proxy is critically damped on the inertia its joint's slide sees with
    # the other joint free (M11 − M12²/M22 and M22 − M12²/M11), as the planar host's
    # friction modes use (planar._modes)
    c1, c2 = m1 * l1 ** 2 / 12, m2 * l2 ** 2 / 12
    M22 = c2 + m2 * l2 ** 2 / 4
    M12 = M22 + m2 * l1 * l2 / 2 * math.cos(t2)
    M11 = c1 + m1 * l1 ** 2 / 4 + m2 * l1 ** 2 + 2 * M12 - M22
    inertia = (M11, M22)
    reduced = (M11 - M12 ** 2 / M22, M22 - M12 ** 2 / M11)
    laws = [CoulombODE.tuned(mass=i, K=friction_stiffness, mu=mu) for i in reduced]
    shoulder = m.add(RevoluteJoint(m.ground, upper, (0.0, 0.0), (-l1 / 2, 0.0),
                                   name="shoulder_joint", friction=laws[0],
                                   pin_radius=pin_radius))
    elbow = m.add(RevoluteJoint(upper, fore, (l1 / 2, 0.0), (-l2 / 2, 0.0),
                                name="elbow_joint", friction=laws[1], pin_radius=pin_radius))
    m.add(JointActuator(shoulder, name="shoulder"))
    m.add(JointActuator(elbow, name="elbow"))
    if shoulder_limit is not None:
        beta = 2.0 * math.sqrt(inertia[0] / stop_stiffness)
        m.add(RevoluteStop(shoulder, upper=shoulder_limit, name="wall",
                           law=UnilateralODE(K=stop_stiffness, beta=beta, alpha=0.5 * beta)))
    return m


def two_link_arm_plant(**arm) -> MechanismPlant:
    """:func:`two_link_arm` (keywords passed on) as a closed-loop plant: input (τ_shoulder,
    τ_elbow) [N·m], measured (θ1, θ2) [rad]; projected onto the joints after every step."""
    return MechanismPlant.from_model(two_link_arm(**arm))


def arm_psmc(**changes) -> PSMCParams:
    """PSMC with :data:`ARM_GAINS` (one PSMC per joint; keywords override gains)."""
    return PSMCParams(**{**ARM_GAINS, **changes})


def arm_pid(**changes) -> PIDParams:
    """The PID with the same K, B, L and T as :func:`arm_psmc` (no torque limit)."""
    gains = {**ARM_GAINS, **changes}
    return PIDParams(K=gains["K"], L=gains["L"], B=gains["B"], T=gains["T"])
