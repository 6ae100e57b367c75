"""The least-squares solvers `fit` can use: the names it accepts, and our Levenberg–Marquardt
(the default; optimistix's are called from `fit` itself)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

LM_DAMPING = 1e-2
_SOLVERS = ("levenberg_marquardt", "optimistix_lm", "gauss_newton")


def _levenberg_marquardt(residual, jacobian, u, *, rtol, atol, max_steps, step_bound):
    """Levenberg–Marquardt with Marquardt's diagonal scaling and Nielsen's damping update.

    `jacobian(u)` returns ``(J, r)`` from one forward-mode pass through the integration;
    `residual(u)` is the cheaper trial evaluation. A step longer than `step_bound(u)` in
    any coordinate (a factor e for log-space parameters) is refused and damped more, so a
    first Gauss–Newton step cannot jump onto a flat plateau of the stick–slip cost. Stops when an accepted step moves every
    fit variable by less than ``atol + rtol·max|u|`` or the gradient ``Jᵀr`` vanishes.
    Returns ``(u, steps, converged)``.
    """
    J, r = (np.asarray(a) for a in jacobian(u))
    cost = float(r @ r)
    A, g = J.T @ J, J.T @ r
    lam, nu = LM_DAMPING, 2.0          # dimensionless: the damping is lam·diag(JᵀJ)
    for step in range(1, max_steps + 1):
        if np.max(np.abs(g)) <= atol:
            return u, step - 1, True
        scale = np.maximum(np.diag(A), 1e-12 * np.max(np.diag(A)))
        try:
            h = np.linalg.solve(A + lam * np.diag(scale), -g)
        except np.linalg.LinAlgError:
            lam, nu = lam * nu, nu * 2
            continue
        if np.any(np.abs(h) > step_bound(u)):      # beyond the trusted region: damp more
            lam, nu = lam * nu, nu * 2
            continue
        trial = u + h
        r_new = np.asarray(residual(jnp.asarray(trial)))
        cost_new = float(r_new @ r_new) if np.all(np.isfinite(r_new)) else np.inf
        predicted = -(2 * h @ g + h @ A @ h)          # ‖r‖² − ‖r + J h‖²
        rho = (cost - cost_new) / predicted if predicted > 0 else -1.0
        if rho > 0:
            J_new, r_new = (np.asarray(a) for a in jacobian(jnp.asarray(trial)))
            if not np.all(np.isfinite(J_new)) or np.max(np.abs(J_new)) > 1e150:
                lam, nu = lam * nu, nu * 2        # a flat or exploding corner: step back
                continue
            u, J, r = trial, J_new, r_new
            cost, A, g = float(r @ r), J.T @ J, J.T @ r
            lam *= max(1 / 3, 1 - (2 * rho - 1) ** 3)
            nu = 2.0
            if np.max(np.abs(h)) <= atol + rtol * np.max(np.abs(u)):
                return u, step, True
        else:
            lam, nu = lam * nu, nu * 2
    return u, max_steps, False
