"""The stiff modes of a planar mechanism that a fixed step must resolve, element by element.

:meth:`PlanarSystem.linear_modes` feeds :func:`stickslip.simulate`'s step check. It does not
differentiate the whole vector field (with joint friction, that Jacobian — the friction
loop's Newton solve included — compiled for seconds, longer than most runs); each stiff part
is linearised on its own, in host NumPy, from small compiled evaluations at the initial
state (stored programs, :mod:`._kernels`):

* **Baumgarte stabilisation**: −α ± √(α² − β²) [1/s].
* **Force elements** (springs, dampers, user force callables): K = −∂Q/∂q and D = −∂Q/∂q̇
  of each element at (q0, q̇0), reduced to the null space N of Φ_q (the free motions):
  the eigenvalues of ``Mr s² + Dr s + Kr`` with ``Mr = NᵀMN`` (and Kr, Dr alike). Each mode
  is named after the element that carries most of its stiffness/damping (zᴴK_e z + |s| zᴴD_e z
  over its mode shape z).
* **Joint friction**: the law's own ``linear_modes(mass=m_eff, normal_force=N0)``, with
  m_eff = 1/(w M_c⁻¹ wᵀ) the mass (or inertia) of the constrained mechanism along the
  joint's slide (w = ∂s/∂q, M_c⁻¹ = M⁻¹ − M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁺Φ_q M⁻¹) and N0 the normal
  force of the frictionless reactions at the start (computed only for a law whose modes
  depend on it, e.g. a tanh regularisation: CoulombODE's and LuGre's do not).
* **Contact-law stops**: the law's ``linear_modes`` along each gap normal g_q, the mass
  m_eff = 1/(g_q M_c⁻¹ g_qᵀ), loaded by that mass's weight (a penalty law stiffens with
  load).

Gravity and the constraint forces' geometric stiffness are not linearised: their modes are
a pendulum's, slow for any practical link. Several frictions stuck on one degree of freedom
act in parallel; their per-joint modes then underestimate the coupled one by at most
√(number of frictions) (tests/planar/test_modes.py compares both with the full Jacobian).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._dynamics import schur_solve
from ._kernels import host_call, host_kinematics

__all__ = ["mechanism_modes"]


def _slide_jacobian(system):
    """∂s/∂q of the frictions at q0."""
    return system.slide_jacobian(system.q0)


def _frictionless_normals(system):
    """The normal force each friction law sees at the initial state, from the frictionless
    reactions (the start of the friction loop)."""
    q, qd, t = system.q0, system.qd0, jnp.asarray(0.0)
    eq = system.equations(t, q, qd)[0]
    lam0 = schur_solve(eq.minv, eq.J, eq.Q, eq.gamma)[1]
    return system.friction_normals(q, eq.J, lam0)


def _force_terms(system):
    """Each force element's ((Q_e, reported value), −∂Q_e/∂q, −∂Q_e/∂q̇) at (q0, q̇0, 0)."""
    q, qd, t = system.q0, system.qd0, jnp.asarray(0.0)
    out = []
    for f in system.forces:
        def Q(q, qd, f=f):
            return system.element_force(f, q, qd, t)[0]
        Kq, Dq = jax.jacfwd(Q, argnums=(0, 1))(q, qd)
        out.append((system.element_force(f, q, qd, t), -Kq, -Dq))
    return out


def _gap_rows(system):
    """Each contact-law stop's gap rows ∂g/∂q at q0."""
    q = system.q0
    return [jax.jacfwd(lambda z, c=c: system.gaps(z, (c,)))(q) for c in system.contacts]


def _constrained_mobility(minv, J):
    """M_c⁻¹ = M⁻¹ − M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁺ J M⁻¹: the inverse mass of the constrained mechanism
    (a force f moves it by q̈ = M_c⁻¹ f)."""
    Minv = np.diag(minv)
    if J.shape[0] == 0:
        return Minv
    JM = J * minv[None, :]
    return Minv - JM.T @ np.linalg.pinv(JM @ J.T, hermitian=True) @ JM


def _null_space(J, n):
    """Orthonormal basis of the free motions {v : J v = 0} (n × d)."""
    if J.shape[0] == 0:
        return np.eye(n)
    _, sv, vt = np.linalg.svd(J)
    rank = int(np.sum(sv > 1e-10 * max(sv.max(initial=0.0), 1.0)))
    return vt[rank:].T


def _mass_along(mobility, row):
    """1/(w M_c⁻¹ wᵀ), floored so a prescribed (driven, locked) direction gives a huge
    finite mass rather than a division by zero."""
    return 1.0 / max(float(row @ mobility @ row), 1e-300)


def _force_element_modes(system, forces, J, minv):
    n = system.layout.n_coordinates
    N = _null_space(J, n)
    d = N.shape[1]
    if d == 0:
        return []
    Ks = [N.T @ K @ N for _, K, _ in forces]
    Ds = [N.T @ D @ N for _, _, D in forces]
    Mr = N.T @ np.diag(1.0 / minv) @ N
    Mr_inv = np.linalg.inv(Mr)
    A = np.block([[np.zeros((d, d)), np.eye(d)],
                  [-Mr_inv @ sum(Ks), -Mr_inv @ sum(Ds)]])
    eig, vec = np.linalg.eig(A)
    groups: dict[int, list] = {}
    for lam, v in zip(eig, vec.T):
        z = v[:d]
        weight = [abs(np.vdot(z, K @ z)) + abs(lam) * abs(np.vdot(z, D @ z))
                  for K, D in zip(Ks, Ds)]
        groups.setdefault(int(np.argmax(weight)) if max(weight) > 0 else -1, []).append(lam)
    modes = []
    for k, values in sorted(groups.items()):
        label = ("free motion (no force element acts on it)" if k < 0 else
                 f"{system.forces[k].describe()} (linearised at the initial state)")
        modes.append((label, np.asarray(values)))
    return modes


def _depends_on_load(law, mass) -> bool:
    """Whether `law`'s modes on `mass` change with the normal force."""
    def eigenvalues(normal):
        return np.concatenate([np.ravel(np.asarray(e, dtype=complex))
                               for _, e in law.linear_modes(mass=mass, normal_force=normal)]
                              or [np.zeros(0, complex)])
    a, b = eigenvalues(1.0), eigenvalues(2.0)
    return a.shape != b.shape or not np.allclose(a, b, rtol=1e-12, atol=0.0)


def mechanism_modes(system) -> list[tuple[str, np.ndarray]]:
    """The modes of the module docstring for a :class:`PlanarSystem`; raises
    SimulationError when the terms at the initial state are not finite."""
    alpha, beta = float(system.alpha), float(system.beta)
    root = np.sqrt(complex(alpha ** 2 - beta ** 2))
    modes = [("Baumgarte stabilisation", np.array([-alpha + root, -alpha - root]))]
    if not (system.forces or system.frictions or system.contacts):
        return modes
    minv = 1.0 / np.asarray(system.masses)
    J = host_kinematics(system, system.q0, 0.0)[1]
    forces = host_call(_force_terms, system) if system.forces else []
    if not (np.all(np.isfinite(J)) and all(np.all(np.isfinite(leaf))
                                           for leaf in jax.tree.leaves(forces))):
        from ..errors import SimulationError
        raise SimulationError(
            f"planar model {system.layout.name!r}: the equations of motion are not "
            f"finite at the initial state; {system._non_finite_forces()}. Check the "
            "callables and parameters named.", time=0.0)
    mobility = _constrained_mobility(minv, J)
    if forces:
        modes += _force_element_modes(system, forces, J, minv)
    if system.frictions:
        W = host_call(_slide_jacobian, system)
        masses = [_mass_along(mobility, w) for w in W]
        # the normal force matters only to laws whose modes depend on it (a penalty-like
        # regularisation); it costs a compile of the frictionless dynamics
        loaded = any(_depends_on_load(f.law, m) for f, m in zip(system.frictions, masses))
        normals = host_call(_frictionless_normals, system) if loaded else \
            np.ones(len(masses))
        for f, mass, normal in zip(system.frictions, masses, normals):
            for regime, eig in f.law.linear_modes(mass=mass, normal_force=float(normal)):
                modes.append((f"{f.describe()}, {regime}", np.asarray(eig)))
    g = float(np.linalg.norm(np.asarray(system.gravity)))
    for c, rows in zip(system.contacts, host_call(_gap_rows, system) if system.contacts else []):
        rows = np.asarray(rows)
        for row in np.atleast_2d(rows):
            mass = _mass_along(mobility, row)
            for regime, eig in c.law.linear_modes(mass=mass, normal_force=mass * g):
                modes.append((f"{c.describe()}, {regime}", np.asarray(eig)))
    return modes
