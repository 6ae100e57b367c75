"""`fit`: friction (and other) parameters identified from measured channels by least squares
through the differentiable integrator, with Gauss–Newton confidence intervals."""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError, SimulationError
from ..integrate import AbstractSystem
from ..results import Results
from ._fit_problem import _Problem
from ._fit_result import FitResult
from ._fit_solver import _SOLVERS, _levenberg_marquardt

__all__ = ["fit"]


def fit(system: AbstractSystem | Callable[..., AbstractSystem], data,
        params: Sequence[str] | Mapping[str, float], *, dt: float, method: str = "rk4",
        channels: Sequence[str] | None = None, initial: Mapping[str, float] | None = None,
        fixed: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float | None, float | None]] | None = None,
        weights: Mapping[str, float] | None = None, solver: str = "levenberg_marquardt",
        rtol: float = 1e-6, atol: float = 1e-10, max_steps: int = 200,
        confidence: float = 0.95, check_step: bool = True) -> FitResult:
    """Least-squares fit of model parameters to measured channels, by gradient.

    The model runs from t = 0 to the last data time through
    :func:`stickslip.integrate.trajectory` (fixed step `dt`); the weighted residuals
    ``(simulated − measured)/scale`` of every channel are minimised over `params` by
    optimistix's Levenberg–Marquardt (or Gauss–Newton), whose Jacobians JAX computes by
    forward-mode differentiation through the whole integration.

    Parameters
    ----------
    system
        A stickslip system holding the start values, with `params` as dotted paths to its
        fields (``"law.mu_s"``, ``"law.F"``, ``"M"``, ``"force.amplitude"``; an old
        spelling such as ``"law.mus"`` still works, with a DeprecationWarning); or a builder
        ``build(**fixed, **params) -> system`` with `params` its keywords (it must write them
        into array fields, as :func:`~stickslip.studies.lugre_block` does).
    data
        Measured samples: a :class:`~stickslip.Results`, a DataFrame with a ``t`` column
        (or index), or ``{"t": times [s], channel: values}``. Times start at ≥ 0.
    params
        Names of the parameters to fit, or ``{name: start value}``.
    dt : float
        Integration step [s]; when the data are uniformly sampled on a multiple of `dt`
        the model is read at the samples, otherwise interpolated linearly.
    channels
        Data channels to fit (default: every data column the model also produces: its
        states and outputs, e.g. ``p``, ``v``, ``f``).
    bounds
        ``{name: (low, high)}`` (either may be None). Without one, a parameter whose law
        rule is ``positive`` or ``nonnegative`` (the laws' ``parameter_rules``) is fitted
        as ``log θ``; others unconstrained.
    initial
        ``{name: start value}`` for fitted parameters (with a system, instead of the value
        it holds); a name that is not fitted is refused.
    fixed
        Builder fits only: ``{keyword: value}`` passed to the builder and not fitted; a
        keyword the builder does not take, or one that is also fitted, is refused (with a
        system, set the values on the system instead).
    weights
        ``{channel: 1/σ}``: residual weight per fitted channel, a finite number > 0
        (default ``1/std(data)``); a channel that is not fitted is refused.
    solver : str, optional
        ``"levenberg_marquardt"`` (default: Marquardt-scaled, Nielsen damping, on the
        Jacobian materialised by one ``jax.jacfwd`` pass per accepted step), or optimistix's
        ``"optimistix_lm"`` / ``"gauss_newton"``. The default is ours because it needs ~4×
        fewer integrations than optimistix's trust-region LM on these problems (measured in
        benchmarks/studies_speed.py).
    rtol, atol, max_steps
        Solver tolerances and step cap.
    confidence : float, optional
        Level of the reported intervals (0.95).
    check_step : bool, optional
        Refuse a `dt` outside `method`'s stability region for the model's stiff modes at the
        start values, as :func:`stickslip.simulate` does (default True); estimates where it
        is outside warn and report ``converged=False``.

    Returns
    -------
    FitResult
        Estimates, intervals (Student-t on ``σ²(JᵀJ)⁻¹`` in the fit variables, mapped
        through the bounds), standard errors, residual, the fitted system and run, and
        ``plot()`` of fit versus data.

    Raises
    ------
    ParameterError
        unknown parameter or channel, bad data, start values outside bounds,
        `initial`/`fixed`/`weights` entries that do not apply, a `dt` too large for the
        model's stiffness.
    SimulationError
        the model's run is not finite at the start values.

    Notes
    -----
    The intervals assume independent residuals of equal variance per weighted channel and a
    model close to linear over the interval. A parameter the data cannot see (a flat
    direction of JᵀJ) gets an infinite interval and a warning. Cross-parameter rules
    (``LuGre``'s ``mu_k <= mu_s``) are checked on the estimates: a fit that breaks one warns.

    Examples
    --------
    >>> import stickslip as ss
    >>> from stickslip.studies import friction_mass
    >>> truth = ss.simulate(friction_mass(F=0.4), 2.0, dt=1e-4, dt_out=1e-2)
    >>> result = ss.fit(friction_mass, truth, {"F": 0.3}, dt=1e-4, channels=["p"])
    >>> round(result.estimates["F"], 6)
    0.4
    """
    begin = time.perf_counter()
    problem = _Problem(system, data, params, initial=initial, fixed=fixed, channels=channels,
                       dt=dt, method=method, bounds=bounds, weights=weights,
                       check_step=check_step)
    if not 0 < confidence < 1:
        raise ParameterError(f"`confidence` must be in (0, 1); got {confidence}.")
    if solver not in _SOLVERS:
        raise ParameterError(f"unknown `solver` {solver!r}; choose one of {list(_SOLVERS)}.")
    residual = eqx.filter_jit(problem.residual)
    jacobian = eqx.filter_jit(jax.jacfwd(lambda u: (problem.residual(u),) * 2, has_aux=True))
    r0 = np.asarray(residual(problem.u0))
    if not np.all(np.isfinite(r0)):
        raise SimulationError("the model's run is not finite at the start values "
                              f"{problem.start}; check them or reduce dt.")
    if solver == "levenberg_marquardt":
        u, steps, converged = _levenberg_marquardt(residual, jacobian, np.asarray(problem.u0),
                                                   rtol=rtol, atol=atol, max_steps=max_steps,
                                                   step_bound=problem.step_bound)
        u = jnp.asarray(u)
    else:
        import optimistix as optx

        make = optx.LevenbergMarquardt if solver == "optimistix_lm" else optx.GaussNewton
        sol = optx.least_squares(problem.residual, make(rtol=rtol, atol=atol), problem.u0,
                                 max_steps=max_steps, throw=False)
        u, steps = sol.value, int(sol.stats["num_steps"])
        converged = bool(sol.result == optx.RESULTS.successful)
    J, r = jacobian(u)
    J, r = np.asarray(J), np.asarray(r)
    m, n = r.size, len(problem.names)
    sigma2 = float(r @ r) / max(m - n, 1)
    jtj = J.T @ J
    try:
        cov = sigma2 * np.linalg.inv(jtj)
        if not np.all(np.isfinite(cov)) or np.linalg.cond(jtj) > 1e14:
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        cov = sigma2 * np.linalg.pinv(jtj)
        flat = np.linalg.eigh(jtj)[1][:, 0]
        weak = [problem.names[k] for k in np.nonzero(np.abs(flat) > 0.3)[0]]
        warnings.warn(f"the data do not determine {weak} (JᵀJ is singular); their intervals "
                      "are infinite. Fit fewer parameters or measure a richer motion.",
                      stacklevel=2)
        cov = np.where(np.isin(np.arange(n), [problem.names.index(w) for w in weak])[:, None]
                       | np.isin(np.arange(n), [problem.names.index(w) for w in weak])[None],
                       np.inf, cov)
    from scipy.stats import t as student

    quantile = float(student.ppf(0.5 + confidence / 2, max(m - n, 1)))
    se_u = np.sqrt(np.clip(np.diag(cov), 0, np.inf))
    theta = [float(x) for x in problem.theta(u)]
    estimates, intervals, stderr = {}, {}, {}
    for k, (name, tr) in enumerate(zip(problem.names, problem.transforms)):
        lo = float(tr.to_parameter(u[k] - quantile * se_u[k])) if np.isfinite(se_u[k]) else \
            (tr.low if tr.low is not None else -np.inf)
        hi = float(tr.to_parameter(u[k] + quantile * se_u[k])) if np.isfinite(se_u[k]) else \
            (tr.high if tr.high is not None else np.inf)
        slope = float(jax.grad(tr.to_parameter)(u[k]))
        estimates[name] = theta[k]
        intervals[name] = (min(lo, hi), max(lo, hi))
        stderr[name] = abs(slope) * float(se_u[k])
    fitted_system = problem.system_at(theta)
    try:
        dataclasses.replace(fitted_system)      # re-run every check on the estimates
    except ParameterError as exc:
        warnings.warn(f"the estimates break a parameter rule: {exc}", stacklevel=2)
    unstable = problem.step_limit_error(fitted_system, "the estimates") \
        if problem.check_step else None
    if unstable is not None:                    # the optimum lies where dt is unstable
        converged = False
        warnings.warn(f"the fit is not trusted (converged=False): {unstable}", stacklevel=2)
    sim = problem.simulate(theta)
    fitted = Results(problem.t, {c: np.asarray(v) for c, v in sim.items()},
                     units=fitted_system.units,
                     meta={"system": type(fitted_system).__name__, "fit": estimates})
    return FitResult(names=problem.names, estimates=estimates, intervals=intervals,
                     stderr=stderr, covariance=cov, sigma2=sigma2,
                     residual_norm=float(np.sqrt(r @ r)), cost_start=float(np.sqrt(r0 @ r0)),
                     n_data=m, steps=steps, converged=converged,
                     confidence=confidence, system=fitted_system, fitted=fitted,
                     data=(problem.t, problem.measured), channels=problem.channels,
                     wall_time=time.perf_counter() - begin)
