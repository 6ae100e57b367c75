"""Unilateral stops and impacts with restitution (SPEC §9 9-1).

A stop is one or two gap functions g(q) ≥ 0 [m or rad]:

* :class:`PointLineStop` — a body point against a ground line (point ``line_point``,
  unit ``normal`` pointing to the free side): g = nᵀ(r_iᴾ − p₀);
* :class:`TranslationalStop` — a translational joint's travel limits on its slide
  s = u_iᵀ d_ij: g = s − lower and g = upper − s;
* :class:`RevoluteStop` — a revolute joint's angle limits on θ = φ_j − φ_i.

Two ways to handle them, so users can compare:

**Events** (``law=None``, the default): :meth:`Model.simulate` integrates with RK4 and a
fixed step, checks every step for a gap crossing zero, locates the impact time in the
step to round-off (Illinois regula falsi on the step length), and applies the
momentum-balance impulse through the constraint matrix (SPEC §9 9-1)::

    [[M, Aᵀ], [A, 0]] [Δq̇; −P] = [0; b],   A = [Φ_q; g_q],  b = [0; −(1 + e) g_q q̇⁻]

so that q̇⁺ = q̇⁻ + Δq̇ keeps every joint (Φ_q q̇⁺ = Φ_q q̇⁻) and reverses the normal
velocity with restitution e (g_q q̇⁺ = −e g_q q̇⁻); then it restarts. Each impact is listed
in ``results.meta["impacts"]`` (time, stop, normal velocity and kinetic energy before and
after).

**Contact law** (``law=ss.laws.UnilateralODE(...)``): the stop becomes a force
``f = law(g, ġ)`` along g_q with the law's state (no events), integrated like any other
element — see SPEC §3 for how α and β set the restitution.
"""

from __future__ import annotations

import math
from typing import ClassVar

import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ..laws._base import AbstractContactLaw
from ._body import global_point, rotation

__all__ = ["AbstractStop", "PointLineStop", "TranslationalStop", "RevoluteStop"]


def _restitution(owner, e):
    v = float(e)
    if not (math.isfinite(v) and 0.0 <= v <= 1.0):
        raise ParameterError(f"`{owner}.restitution` must be in [0, 1]; got "
                             f"restitution={e!r}.")
    return v


class AbstractStop:
    """A unilateral stop (see the module docstring). ``n_gaps`` rows of g(q) ≥ 0."""

    prefix: ClassVar[str] = "stop"
    name: str | None = None
    law: AbstractContactLaw | None = None

    @property
    def owner(self) -> str:
        return self.name or type(self).__name__

    @property
    def n_gaps(self) -> int:
        return len(self.limits())

    def limits(self):
        return [None]

    def _check_law(self, law):
        if law is not None and not isinstance(law, AbstractContactLaw):
            raise ParameterError(f"`{self.owner}.law` must be a contact law from "
                                 f"stickslip.laws (e.g. UnilateralODE) or None for events; "
                                 f"got {type(law).__name__}.")
        return law

    def bind(self, *bodies) -> None:
        pass

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    def gaps(self, sys, q):
        raise NotImplementedError


class PointLineStop(AbstractStop):
    """A body point against a line: g = nᵀ(r_iᴾ − p₀) ≥ 0 [m].

    body, point: the body and its point (body frame [m] or a named point).
    line_point, normal: a point of the line and its normal towards the free side, in the
    ground frame — or in the frame of ``line_body`` when one is given (a line moving with
    another body of the mechanism: a paddle, a cup).  restitution: e in [0, 1] (events).
    law: a contact law instead of events.
    """

    prefix = "stop"

    def __init__(self, body, point=(0.0, 0.0), *, line_point=(0.0, 0.0), normal=(0.0, 1.0),
                 line_body=None, restitution: float = 1.0, law=None,
                 name: str | None = None):
        self.name = name
        self.body = body
        self.line_body = line_body
        self._raw = point
        self.point = np.zeros(2)
        n = np.asarray(normal, dtype=float)
        if n.shape != (2,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) == 0:
            raise ParameterError(f"`{self.owner}.normal` must be a non-zero direction; got "
                                 f"{normal!r}.")
        self.normal = n / np.linalg.norm(n)
        self.line_point = np.asarray(line_point, dtype=float)
        self.restitution = _restitution(self.owner, restitution)
        self.law = self._check_law(law)

    def bind(self, body, line_body=None):
        self.body = body
        self.point = body.resolve_point(self.owner, "point", self._raw)
        self.line_body = line_body if line_body is not None and not line_body.is_ground \
            else None

    def gaps(self, sys, q):
        r = global_point(sys._pose(q, self.body), self.point)
        if self.line_body is None:
            p0, n = jnp.asarray(self.line_point), jnp.asarray(self.normal)
        else:
            pose = sys._pose(q, self.line_body)
            p0 = global_point(pose, self.line_point)
            n = rotation(pose[2]) @ jnp.asarray(self.normal)
        return jnp.atleast_1d(n @ (r - p0))


class _JointStop(AbstractStop):
    joint_types: ClassVar[tuple[str, ...]] = ()
    unit: ClassVar[str] = "m"

    def __init__(self, joint, *, lower: float | None = None, upper: float | None = None,
                 restitution: float = 1.0, law=None, name: str | None = None):
        self.name = name
        self.joint = joint
        if type(joint).__name__ not in self.joint_types:
            raise ParameterError(f"`{self.owner}.joint` must be a {self.joint_types[0]}; got "
                                 f"{type(joint).__name__}.")
        if lower is None and upper is None:
            raise ParameterError(f"`{self.owner}` needs `lower`, `upper` or both "
                                 f"[{self.unit}].")
        if lower is not None and upper is not None and not float(lower) < float(upper):
            raise ParameterError(f"`{self.owner}`: lower={lower} must be < upper={upper}.")
        self.lower = None if lower is None else float(lower)
        self.upper = None if upper is None else float(upper)
        self.restitution = _restitution(self.owner, restitution)
        self.law = self._check_law(law)

    def limits(self):
        return [v for v in (self.lower, self.upper) if v is not None]

    def coordinate(self, qi, qj):
        raise NotImplementedError

    def gaps(self, sys, q):
        c = self.joint
        s = self.coordinate(sys._pose(q, c.body_i), sys._pose(q, c.body_j))
        rows = []
        if self.lower is not None:
            rows.append(s - self.lower)
        if self.upper is not None:
            rows.append(self.upper - s)
        return jnp.stack(rows)


class TranslationalStop(_JointStop):
    """Travel limits of a translational joint: lower ≤ s ≤ upper [m], s = u_iᵀ d_ij the
    slide of point_j along the axis (0 where the joint was added with coincident points)."""

    prefix = "travel_stop"
    joint_types = ("TranslationalJoint",)

    def coordinate(self, qi, qj):
        u = rotation(qi[2]) @ jnp.asarray(self.joint.axis_i)
        return u @ self.joint._d(qi, qj)


class RevoluteStop(_JointStop):
    """Angle limits of a revolute joint: lower ≤ φ_j − φ_i ≤ upper [rad]."""

    prefix = "angle_stop"
    joint_types = ("RevoluteJoint",)
    unit = "rad"

    def coordinate(self, qi, qj):
        return qj[2] - qi[2]


# --- the event integrator ---------------------------------------------------------------------

def _kernels(sys, stops):
    """Jitted RK4 step (+ projection), gaps, impulse and outputs for one system structure."""
    import equinox as eqx
    import jax

    from ..integrate._tableaus import FIXED_STEP_METHODS

    tab = FIXED_STEP_METHODS["rk4"]
    A, b, c = tab.a, tab.b, tab.c
    n = sys.layout.n_coordinates

    def step(s, t, x, h):
        ks = []
        for i in range(len(b)):
            terms = [A[i][j] * ks[j] for j in range(len(A[i])) if A[i][j] != 0.0]
            xi = x + h * sum(terms) if terms else x
            ks.append(s.vector_field(t + c[i] * h, xi))
        x1 = x + h * sum(b[i] * ks[i] for i in range(len(b)))
        return s.project(t + h, x1)

    def gaps(s, x):
        return s.gaps(x[:n], stops)

    def impulse(s, t, x, k, e):
        """q̇⁺ from the momentum balance through [Φ_q; g_k,q] (SPEC §9 9-1)."""
        q, qd = x[:n], x[n:2 * n]
        G = jax.jacfwd(lambda z: s.gaps(z, stops))(q)[k]
        J = s.phi_q(q, t)
        Arows = jnp.concatenate([J, G[None, :]]) if J.shape[0] else G[None, :]
        rhs = jnp.zeros(Arows.shape[0]).at[-1].set(-(1.0 + e) * (G @ qd))
        minv = 1.0 / s.masses
        AM = Arows * minv[None, :]
        mu = jnp.linalg.lstsq(AM @ Arows.T, rhs)[0]
        qd_new = qd + minv * (Arows.T @ mu)
        return x.at[n:2 * n].set(qd_new), G @ qd, G @ qd_new

    def kinetic(s, x):
        return 0.5 * jnp.sum(s.masses * x[n:2 * n] ** 2)

    outputs = jax.vmap(lambda s, t, x: s.outputs(t, x), in_axes=(None, 0, 0))
    return {"step": eqx.filter_jit(step), "gaps": eqx.filter_jit(gaps),
            "impulse": eqx.filter_jit(impulse), "kinetic": eqx.filter_jit(kinetic),
            "outputs": eqx.filter_jit(outputs)}


def simulate_events(kernels, sys, stops, t0, x0, t_end, dt, dt_out, max_impacts=1000,
                    tol=1e-15):
    """Fixed-step RK4 with impact events (see the module docstring). Returns
    (times, states, impacts)."""
    step, gaps, impulse, kinetic = (kernels[k] for k in ("step", "gaps", "impulse", "kinetic"))
    owners, rest = [], []
    for st in stops:
        owners += [st] * st.n_gaps
        rest += [st.restitution] * st.n_gaps
    jt = lambda v: jnp.asarray(v, dtype=float)  # noqa: E731
    every = max(1, int(round(dt_out / dt))) if dt_out else 1
    t, x = float(t0), jnp.asarray(x0)
    ts, xs, impacts = [t], [np.asarray(x)], []
    count = 0
    g_now = np.asarray(gaps(sys, x))
    while t < t_end - 1e-12 * max(1.0, abs(t_end)):
        h = min(dt, t_end - t)
        x1 = step(sys, jt(t), x, jt(h))
        g1 = np.asarray(gaps(sys, x1))
        crossing = (g1 < 0) & (g_now >= -1e-12)
        if crossing.any():
            # earliest crossing: locate each candidate's root in (0, h], keep the smallest
            best = None
            for k in np.nonzero(crossing)[0]:
                lo, hi, glo, ghi = 0.0, h, float(g_now[k]), float(g1[k])
                side = 0
                for _ in range(200):
                    hm = (lo * ghi - hi * glo) / (ghi - glo)
                    if not lo < hm < hi:
                        hm = 0.5 * (lo + hi)
                    gm = float(np.asarray(gaps(sys, step(sys, jt(t), x, jt(hm))))[k])
                    if gm < 0:
                        hi, ghi = hm, gm
                        if side == -1:
                            glo *= 0.5
                        side = -1
                    else:
                        lo, glo = hm, gm
                        if side == 1:
                            ghi *= 0.5
                        side = 1
                    if hi - lo <= tol * max(1.0, h) or abs(gm) <= tol:
                        break
                if best is None or hm < best[0]:
                    best = (hm, k)
            hm, k = best
            x = step(sys, jt(t), x, jt(hm))
            t = t + hm
            e = rest[k]
            energy_before = float(kinetic(sys, x))
            x, v_before, v_after = impulse(sys, jt(t), x, int(k), jt(e))
            impacts.append({"t": t, "stop": owners[k].name, "row": int(k),
                            "restitution": e, "normal_velocity_before": float(v_before),
                            "normal_velocity_after": float(v_after),
                            "kinetic_energy_before": energy_before,
                            "kinetic_energy_after": float(kinetic(sys, x))})
            if len(impacts) > max_impacts:
                from ..errors import SimulationError
                raise SimulationError(
                    f"more than {max_impacts} impacts by t={t:.6g} s (a chattering or "
                    "resting contact: events cannot represent sustained contact). Use a "
                    "contact law on the stop (law=UnilateralODE(...)) or a restitution "
                    "closer to 1.", time=t)
            g_now = np.array(gaps(sys, x))
            g_now[k] = max(g_now[k], 0.0)
            ts.append(t)
            xs.append(np.asarray(x))
            continue
        x, t, g_now = x1, t + h, g1
        count += 1
        if count % every == 0 or t >= t_end - 1e-12:
            ts.append(t)
            xs.append(np.asarray(x))
    return np.asarray(ts), np.stack(xs), impacts
