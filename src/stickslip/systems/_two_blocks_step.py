"""The exact time-stepping step of :class:`~._two_blocks.TwoBlocksConveyor`
(``method="moreau_jean"``; SPEC §5 example 2, eq. 23-33, with the set-valued laws of SPEC §6).

The step splits into two problems of two velocities and three contact rows each, coupled
only through the friction levels (a level μ·N of a normal impulse of the *other* problem)::

    x: velocities (v1x, v2x), rows wall normal U1 = v1x, blocks normal U2 = v2x − v1x,
       belt friction W3 = v2x + u (level from the belt's normal impulse P3, problem y);
    y: velocities (v1y, v2y), rows wall friction W1 = v1y, blocks friction W2 = v1y − v2y
       (levels from P1, P2, problem x), belt normal U3 = v2y.

Each row j has a relative velocity r_j = G_j·v + c_j (c_j = −target for a normal row, so
that a closed normal row and a stuck friction row both mean r_j = 0). A friction row follows
the set-valued law of its ``CoulombODE`` over the step (SPEC §6, as
:func:`._time_stepping.implicit_friction` for one row): stuck (r_j = 0) with an impulse
``|λ_j| ≤ h·F_s`` (the static level F_s or μ_s·N; F or μ·N without one), or slipping in
sense m = ±1 at the speed s = m·r_j > 0 with ``λ_j = −m·h·F(s)``, F the law's curve (kinetic
level, Stribeck drop, viscous term) at the end-of-step slip speed.

A problem is solved by enumerating the stick/slip and open/closed cases of its three rows,
most closed rows first and stick before slip in each row, and taking the first whose solution
satisfies every row's law to a relative 1e-12 (:func:`solve_rows`): where both a stick and a
kinetic slide solve a row (F < required ≤ F_s) the row sticks, the classical rule. In a case,
the slip speeds come first: with the closed rows eliminated the slipping rows' velocities are
affine in their impulses, r_S = r⁰ + A·λ_S, so the speeds s solve
``s + h·D·F(s) = m∘r⁰`` (D = diag(m)·A·diag(m), positive semi-definite): one row is the
one-dimensional slip solve of FrictionMass (:func:`stickslip.laws.curve_slip_speed` with the
damping 1/(h·a)); two rows (both frictions of problem y) are solved in closed form for a
level without a Stribeck velocity and by Newton's method otherwise. The closed rows' impulses
then follow, and their velocities are *set* (a stuck contact's relative velocity is exactly 0).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..laws import CoulombODE, NewtonImpact, curve_slip_speed

__all__ = ["X_KINDS", "X_ROWS", "Y_KINDS", "Y_ROWS", "FrictionRow", "approach", "solve_rows"]

NORMAL, FRICTION = "normal", "friction"
X_ROWS = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, 1.0]])
X_KINDS = (NORMAL, NORMAL, FRICTION)
Y_ROWS = np.array([[1.0, 0.0], [1.0, -1.0], [0.0, 1.0]])
Y_KINDS = (FRICTION, FRICTION, NORMAL)
TOL = 1e-12                 # relative tolerance of the Coulomb/Signorini checks of a case
_NEWTON_ROUNDS = 30         # Newton rounds of a two-row slip solve (quadratic: 5–8 used)


class FrictionRow(NamedTuple):
    """A friction row's law over a step of length `h` [s] under the normal force `normal`
    [N] (the normal impulse of the step / h)."""

    law: CoulombODE
    normal: jax.Array
    h: jax.Array

    @property
    def constant(self) -> bool:
        """True when the slip impulse does not depend on the speed (no Stribeck velocity,
        no viscous term): h·F (or h·μ·N) whatever the slip speed."""
        return self.law.v_stribeck is None and self.law.viscous is None

    def hold(self):
        """The largest impulse the row holds while stuck, h·F_s [N·s]."""
        return self.h * self.law.level(self.normal)

    def slide(self, speed):
        """The slip impulse's magnitude at slip speed `speed` [m/s], h·F(s) [N·s]."""
        return self.h * self.law.curve(speed, self.normal)

    def speed(self, drive, damping):
        """The slip speed s with F(s) + damping·s = drive (0 when drive ≤ F_s) [m/s]."""
        law = self.law
        exponent = 2 if law.stribeck_exponent is None else law.stribeck_exponent
        return curve_slip_speed(drive, law.kinetic_level(self.normal),
                                law.level(self.normal), damping, law.v_stribeck, exponent,
                                law.viscous)


def cases(kinds):
    """Every stick/slip (friction: 0, +1, −1) and closed/open (normal: 0, +1) combination of
    the three rows, the most closed rows first (and stick before slip in each row): the
    order in which :func:`solve_rows` takes the first admissible one."""
    options = [(0, 1) if kind == NORMAL else (0, 1, -1) for kind in kinds]
    return sorted(itertools.product(*options), key=lambda case: sum(m != 0 for m in case))


def _integer_inverse(rows):
    """The inverse of a 2×2 matrix of 0/±1 entries with determinant ±1 (exact)."""
    inverse = np.linalg.inv(rows)
    assert np.allclose(inverse, np.round(inverse))
    return np.round(inverse)


def _combine(matrix, vector):
    """``matrix @ vector`` for a small static matrix of small integers, as sums of the
    entries (no multiplication by 1, so exact values such as 0 or −u stay exact)."""
    out = []
    for row in np.asarray(matrix):
        terms = [vector[k] if a == 1 else -vector[k] if a == -1 else a * vector[k]
                 for k, a in enumerate(row) if a != 0]
        out.append(sum(terms[1:], terms[0]) if terms else 0.0 * vector[0])
    return jnp.stack(out)


def _solve2(a, b):
    """The solutions of 2×2 systems a·x = b (leading batch axes) by Cramer's rule."""
    det = a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    return jnp.stack([a[..., 1, 1] * b[..., 0] - a[..., 0, 1] * b[..., 1],
                      a[..., 0, 0] * b[..., 1] - a[..., 1, 0] * b[..., 0]], axis=-1) \
        / det[..., None]


def _split(case, kinds):
    """The closed rows and the slipping friction rows of a case."""
    closed = [j for j, m in enumerate(case) if m == 0]
    slips = [j for j, m in enumerate(case) if m != 0 and kinds[j] == FRICTION]
    return closed, slips


def _slip_problem(G, case, W, v0, c, rows, closed, slips):
    """The slip impulses of a case, or the problem that gives them (module docstring):
    ``("known", λ_S)`` when they follow at once (levels independent of the speed, or both
    velocities fixed by closed rows), else ``("solve", m, b, D)`` with the speeds s solving
    ``s + h·D·F(s) = b`` and λ_S = −m·h·F(s)."""
    m = np.array([case[j] for j in slips], dtype=float)
    if all(rows[j].constant for j in slips):          # h·F_k: no slip speed needed
        return "known", [-mj * rows[j].h * rows[j].law.kinetic_level(rows[j].normal)
                         for mj, j in zip(m, slips)]
    Gs = jnp.asarray(G[slips])
    if len(closed) >= 2:          # both velocities fixed by two closed rows: speeds known
        pair = closed[:2]
        v = _combine(_integer_inverse(G[pair]), 0.0 - c[np.array(pair)])
        speeds = m * (Gs @ v + c[np.array(slips)])
        return "known", [-mj * rows[j].slide(s) for mj, j, s in zip(m, slips, speeds)]

    def rates(lam_s):             # r_S for slip impulses λ_S, the closed row kept closed
        v = v0 + (Gs.T @ lam_s) / W
        if closed:
            g = G[closed[0]]
            lam_c = -(jnp.asarray(g) @ v + c[closed[0]]) / jnp.sum(g * g / W)
            v = v + jnp.asarray(g) * lam_c / W
        return Gs @ v + c[np.array(slips)]

    zero = jnp.zeros(len(slips), dtype=v0.dtype)
    r0 = rates(zero)
    A = jnp.stack([rates(zero.at[i].set(1.0)) - r0 for i in range(len(slips))], axis=1)
    return "solve", m, m * r0, A * np.outer(m, m)


def _slip_impulses(kinds, rows, problems):
    """λ_S of every case (a dict case → list), the speed solves batched over the cases: one
    slip solve per friction row for the cases where it slips alone, one Newton solve for
    the cases where two rows slip (module docstring)."""
    out = {case: p[1] for case, p in problems.items() if p[0] == "known"}
    pending = {case: p for case, p in problems.items() if p[0] == "solve"}
    for j in range(3):
        group = [case for case, p in pending.items() if _split(case, kinds)[1] == [j]]
        if not group:
            continue
        h = rows[j].h
        a = jnp.maximum(jnp.stack([pending[case][3][0, 0] for case in group]), 1e-300)
        b = jnp.stack([pending[case][2][0] for case in group])
        # F(s) + s/(h·a) = b/(h·a): the scalar slip solve, vmapped (one loop for the group)
        speeds = jax.vmap(rows[j].speed)(b / (h * a), 1.0 / (h * a))
        for case, s in zip(group, speeds):
            out[case] = [-pending[case][1][0] * rows[j].slide(s)]
    pairs = [case for case in pending if len(_split(case, kinds)[1]) == 2]
    if pairs:
        slips = _split(pairs[0], kinds)[1]
        r1, r2 = rows[slips[0]], rows[slips[1]]
        b = jnp.stack([pending[case][2] for case in pairs])
        D = jnp.stack([pending[case][3] for case in pairs])

        def levels(s):                  # h·F_j(s_j), each row its own curve
            return jnp.stack([r1.slide(s[:, 0]), r2.slide(s[:, 1])], axis=-1)

        def kinetic(row):
            viscous = 0.0 if row.law.viscous is None else row.law.viscous
            return row.h * row.law.kinetic_level(row.normal), row.h * viscous

        (k1, c1), (k2, c2) = kinetic(r1), kinetic(r2)
        # without a Stribeck velocity F(s > 0) = F_k + σ·s: (I + D·h·σ)·s = b − D·h·F_k
        linear = jnp.eye(2) + D * jnp.stack([c1 + 0.0 * k1, c2 + 0.0 * k2])[None, None, :]
        s = _solve2(linear, b - jnp.einsum("nij,j->ni", D, jnp.stack([k1, k2])))
        if r1.law.v_stribeck is not None or r2.law.v_stribeck is not None:
            def newton(_, s):
                level, slope = jax.jvp(levels, (s,), (jnp.ones_like(s),))
                residual = s + jnp.einsum("nij,nj->ni", D, level) - b
                jacobian = jnp.eye(2) + D * slope[:, None, :]
                return jnp.maximum(s - _solve2(jacobian, residual), 0.0)

            s = jax.lax.fori_loop(0, _NEWTON_ROUNDS, newton, jnp.maximum(s, 0.0))
        level = levels(s)
        for n, case in enumerate(pairs):
            m = pending[case][1]
            out[case] = [-m[0] * level[n, 0], -m[1] * level[n, 1]]
    return out


def _solve_case(G, kinds, case, W, v0, c, rows, slip_impulses):
    """Velocities and row impulses of one case (rows closed where ``case`` is 0; the
    slipping rows' impulses given). Returns ``(v, lam, extra)``: `extra` the violations of
    the hyperstatic case's own conditions (an empty τ interval [N·s], a disagreeing third
    row [m/s]), None for the others."""
    Gj = jnp.asarray(G)
    closed, slips = _split(case, kinds)
    slip_lam = dict(zip(slips, slip_impulses))
    zero = 0.0 * v0[0]
    lam_known = jnp.stack([slip_lam.get(j, zero) for j in range(3)])
    v_known = v0 + (Gj.T @ lam_known) / W
    extra = None
    if not closed:
        return v_known, lam_known, extra
    if len(closed) == 1:
        # one closed row: its impulse from the row's equation, then the row put exactly on 0
        (j,) = closed
        g = G[j]
        lam_j = -(jnp.asarray(g) @ v_known + c[j]) / jnp.sum(g * g / W)
        v = v_known + jnp.asarray(g) * lam_j / W
        dofs = np.nonzero(g)[0]
        b = dofs[-1]
        rest = sum((g[a] * v[a] for a in dofs[:-1]), 0.0 * v[0])
        v = v.at[b].set((0.0 - c[j] - rest) / g[b])       # 0.0 − c: no −0.0
        return v, lam_known.at[j].set(lam_j), extra
    # two (or three) closed rows fix both velocities: v exactly from the first two
    pair = closed[:2]
    v = _combine(_integer_inverse(G[pair]), 0.0 - c[np.array(pair)])
    if len(closed) == 2:
        # their impulses from the momentum balance W·(v − v_known) = G_cᵀ·λ_c
        lam_c = _combine(_integer_inverse(G[pair].T), W * (v - v_known))
        return v, lam_known.at[np.array(pair)].set(lam_c), extra
    # all three closed: statically indeterminate. λ = λ_p + τ·n (n spans the null space of
    # Gᵀ); among the admissible τ the one of least friction, min Σ_friction λ_j²
    residual = Gj[2] @ v + c[2]                         # the third row must agree
    momentum = W * (v - v0)
    lam_p = jnp.asarray(np.linalg.pinv(G.T)) @ momentum
    n = np.cross(G.T[0], G.T[1])
    friction = np.array([kind == FRICTION for kind in kinds])
    tau = -jnp.sum(jnp.where(friction, lam_p * n, 0.0)) / np.sum(n[friction] ** 2)
    lo, hi = -jnp.inf, jnp.inf
    for j in range(3):
        if kinds[j] == NORMAL:                                     # λ_j ≥ 0
            edges = (-lam_p[j] / n[j], jnp.inf) if n[j] > 0 else (-jnp.inf, -lam_p[j] / n[j])
        else:                                                      # |λ_j| ≤ h·F_s
            hold = rows[j].hold()
            a, b = (-hold - lam_p[j]) / n[j], (hold - lam_p[j]) / n[j]
            edges = (jnp.minimum(a, b), jnp.maximum(a, b))
        lo, hi = jnp.maximum(lo, edges[0]), jnp.minimum(hi, edges[1])
    tau = jnp.clip(tau, lo, jnp.maximum(lo, hi))
    extra = (jnp.maximum(lo - hi, 0.0) * np.max(np.abs(n)), jnp.abs(residual))
    return v, lam_p + tau * n, extra


def solve_rows(G, kinds, W, v0, c, rows, active):
    """The exact solution of one 2-velocity, 3-row step for given friction levels: the
    first case of :func:`cases` whose solution satisfies every row's law (closed normal:
    λ ≥ 0; open normal: r ≥ 0; stick: |λ| ≤ h·F_s; slip in sense m: m·r ≥ 0 and
    λ = −m·h·F(m·r); a normal row closes only when `active`), each within a relative
    round-off tolerance (:data:`TOL`).

    Parameters
    ----------
    G : numpy.ndarray
        The rows' directions, shape (3, 2) (:data:`X_ROWS`, :data:`Y_ROWS`).
    kinds : tuple of str
        Each row's kind, ``"normal"`` or ``"friction"``.
    W : jax.Array
        The two velocities' effective masses [kg].
    v0 : jax.Array
        The free end-of-step velocities [m/s].
    c : jax.Array
        The rows' offsets [m/s] (−target of a normal row, the surface speed of a friction).
    rows : sequence
        A :class:`FrictionRow` for each friction row, None for a normal row.
    active : sequence of bool
        Whether each normal row may close.

    Returns
    -------
    v : jax.Array
        End-of-step velocities [m/s].
    lam : jax.Array
        Row impulses [N·s].
    """
    holds = jnp.stack([row.hold() if row is not None else 0.0 * v0[0] for row in rows])
    v_scale = jnp.max(jnp.abs(v0)) + jnp.max(jnp.abs(c)) + jnp.max(holds) / jnp.min(W)
    v_scale = jnp.maximum(v_scale, 1e-300)
    lam_scale = jnp.max(W) * v_scale
    candidates, violations = [], []
    problems = {}
    for case in cases(kinds):
        closed, slips = _split(case, kinds)
        problems[case] = _slip_problem(G, case, W, v0, c, rows, closed, slips) if slips \
            else ("known", [])
    slip_impulses = _slip_impulses(kinds, rows, problems)
    for case in cases(kinds):
        v, lam, extra = _solve_case(G, kinds, case, W, v0, c, rows, slip_impulses[case])
        r = jnp.asarray(G) @ v + c
        worst = []
        for j, (kind, m) in enumerate(zip(kinds, case)):
            if kind == NORMAL and m == 0:
                worst.append(jnp.maximum(-lam[j], 0.0) / lam_scale)
                worst.append(jnp.where(active[j], 0.0, jnp.inf))
            elif kind == NORMAL:
                worst.append(jnp.where(active[j], jnp.maximum(-r[j], 0.0), 0.0) / v_scale)
            elif m == 0:
                worst.append(jnp.maximum(jnp.abs(lam[j]) - holds[j], 0.0) / lam_scale)
            else:
                worst.append(jnp.maximum(-m * r[j], 0.0) / v_scale)
                if not rows[j].constant:      # the curve's impulse at the end speed
                    worst.append(jnp.abs(lam[j] + m * rows[j].slide(m * r[j])) / lam_scale)
        if extra is not None:                             # the hyperstatic case
            worst += [extra[0] / lam_scale, extra[1] / v_scale]
        candidates.append((v, lam))
        violations.append(jnp.max(jnp.stack(worst)))
    violations = jnp.stack(violations)
    ok = violations <= TOL
    pick = jnp.where(jnp.any(ok), jnp.argmax(ok), jnp.argmin(violations))
    vs = jnp.stack([v for v, _ in candidates])
    lams = jnp.stack([lam for _, lam in candidates])
    return vs[pick], lams[pick]


def approach(law: NewtonImpact, rate):
    """Newton's target for the end-of-step normal velocity, ``−e·min(rate, 0)`` (the
    admissible set of :meth:`NewtonImpact.velocity_after`)."""
    return jnp.where(rate < 0.0, -law.e * rate, 0.0)
