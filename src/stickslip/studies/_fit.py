"""`fit`: friction (and other) parameters identified from measured channels by least squares
through the differentiable integrator, with Gauss–Newton confidence intervals."""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
import warnings
from typing import Any, Callable, Mapping, Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._validation import warn_renamed
from ..errors import ParameterError, SimulationError
from ..integrate import (
    FIXED_STEP_METHODS,
    AbstractSystem,
    largest_stable_step,
    trajectory,
)
from ..integrate._arguments import as_flag, did_you_mean
from ..results import Results

__all__ = ["fit", "FitResult", "Transform"]


# --- parameters: where they live and how they are kept in range ---------------------------

@dataclasses.dataclass(frozen=True)
class Transform:
    """Map between an unconstrained fit variable u and a parameter θ in [low, high]:
    θ = low + e^u (low only), θ = high − e^u (high only), a logistic between both, or θ = u.
    Positive parameters (the laws' ``parameter_rules``) are fitted in log space this way."""

    low: float | None = None
    high: float | None = None

    def to_parameter(self, u):
        if self.low is not None and self.high is not None:
            return self.low + (self.high - self.low) * jax.nn.sigmoid(u)
        if self.low is not None:
            return self.low + jnp.exp(u)
        if self.high is not None:
            return self.high - jnp.exp(u)
        return u

    def to_variable(self, theta: float, name: str) -> float:
        lo, hi = self.low, self.high
        inside = (lo is None or theta > lo) and (hi is None or theta < hi)
        if not inside:
            raise ParameterError(f"the start value of `{name}` must lie strictly inside its "
                                 f"bounds ({lo}, {hi}); got {name}={theta!r}. Start inside "
                                 "the range, or give other `bounds`.")
        if lo is not None and hi is not None:
            x = (theta - lo) / (hi - lo)
            return math.log(x / (1 - x))
        if lo is not None:
            return math.log(theta - lo)
        if hi is not None:
            return math.log(hi - theta)
        return float(theta)


def _field(obj, part: str, *, warn: bool = False) -> str:
    """`part` as the field of `obj` it names: an alias (``mu_k`` of a ``CoulombODE``) or an
    old spelling (``mus`` of a ``LuGre``; warns when `warn`) becomes the field's name."""
    field_name = getattr(type(obj), "field_name", None)
    return part if field_name is None else field_name(part, warn=warn)


def _canonical_path(obj, path: str) -> str:
    """`path` with each part spelled as its field (``"law.mus"`` → ``"law.mu_s"``, with a
    DeprecationWarning naming the new path); unknown parts are left for `_path_get`."""
    parts = []
    for part in path.split("."):
        new = _field(obj, part)
        if new != part and part in getattr(type(obj), "renamed_parameters", {}):
            warn_renamed(f"the fit parameter path {path!r}",
                         repr(".".join([*parts, new, *path.split(".")[len(parts) + 1:]])))
        parts.append(new)
        try:
            obj = obj[int(new)] if new.isdigit() and isinstance(obj, (tuple, list)) \
                else getattr(obj, new)
        except (AttributeError, IndexError):
            return ".".join([*parts, *path.split(".")[len(parts):]])
    return ".".join(parts)


def _path_get(obj, path: str):
    """The field at a dotted `path`; a number indexes a tuple (``"frictions.0.law.mu"``)."""
    for part in path.split("."):
        part = _field(obj, part)
        if part.isdigit() and isinstance(obj, (tuple, list)):
            if int(part) >= len(obj):
                raise ParameterError(f"`{path}`: index {part} is out of range (there are "
                                     f"{len(obj)}).")
            obj = obj[int(part)]
            continue
        if not hasattr(obj, part):
            fields = sorted(vars(obj)) if hasattr(obj, "__dict__") else []
            raise ParameterError(f"`{path}`: {type(obj).__name__} has no field `{part}`; "
                                 f"its fields are {fields}.")
        obj = getattr(obj, part)
    return obj


def _owner_rule(system, path: str) -> str | None:
    owner_path, _, field = path.rpartition(".")
    owner = _path_get(system, owner_path) if owner_path else system
    return _kind(owner, field)


def _kind(module, field: str) -> str | None:
    """The sign rule (``"positive"``, ``"nonnegative"``, …) a module declares for `field`
    in its ``parameter_rules`` (a kind string or a ``Rule`` with a ``kind``)."""
    rule = (getattr(type(module), "parameter_rules", None) or {}).get(_field(module, field))
    return rule if isinstance(rule, str) or rule is None else getattr(rule, "kind", None)


def _modules(node):
    """Every equinox module in a system's tree (the system, its laws, forces, …)."""
    if isinstance(node, eqx.Module):
        yield node
        children = vars(node).values()
    elif isinstance(node, (tuple, list)):
        children = node
    else:
        return
    for child in children:
        yield from _modules(child)


def _rule_by_value(system, name: str, value: float) -> str | None:
    """For a builder's keyword: the rule of a module field of that name holding that value."""
    for module in _modules(system):
        kind = _kind(module, name)
        if kind is not None:
            field = getattr(module, _field(module, name), None)
            if field is not None and np.allclose(np.asarray(field), value):
                return kind
    return None


# --- the data -----------------------------------------------------------------------------

def _as_data(data) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    import pandas as pd

    if isinstance(data, Results):
        if data.batch_shape:
            raise ParameterError("`data` must be one run's Results, not a batch; pass "
                                 "res.member(i).")
        return np.asarray(data.t, float), {n: np.asarray(data[n], float) for n in data.names}
    if isinstance(data, pd.DataFrame):
        frame = data.reset_index() if "t" not in data.columns and data.index.name == "t" \
            else data
        data = {c: frame[c].to_numpy() for c in frame.columns}
    if isinstance(data, Mapping):
        if "t" not in data:
            raise ParameterError("`data` needs a time column `t` [s] beside the measured "
                                 f"channels; got columns {sorted(data)}.")
        t = np.asarray(data["t"], float)
        return t, {k: np.asarray(v, float) for k, v in data.items() if k != "t"}
    raise ParameterError("`data` must be Results, a DataFrame or a {'t': ..., channel: ...} "
                         f"mapping; got {type(data).__name__}.")


# --- the fit's own arguments ----------------------------------------------------------------

def _mapping(name: str, value) -> Mapping:
    """`fit.<name>` as a mapping ({} for None)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParameterError(f"`fit.{name}` must be a {{name: value}} mapping; got "
                             f"{type(value).__name__} {value!r:.60}.")
    return value


def _finite_number(name: str, value) -> float:
    """`value` (a real number or 0-d array) as a finite float, or a ParameterError."""
    try:
        arr = np.asarray(value)
        valid = arr.shape == () and arr.dtype.kind in "iuf" and bool(np.isfinite(arr))
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise ParameterError(f"`fit.{name}` must be a finite number; got {value!r}.")
    return float(arr)


def _check_entries(name: str, given: Mapping, known, what: str, why: str) -> None:
    """Refuse the keys of `fit.<name>` that are not in `known` (they would be ignored)."""
    unknown = [k for k in given if k not in known]
    if unknown:
        raise ParameterError(f"`fit.{name}` names {unknown}, which are not {what} "
                             f"({list(known)}): {why}.{did_you_mean(map(str, unknown), known)}")


def _check_builder_keywords(build, fixed: Mapping, names) -> None:
    """`fixed` holds keywords of `build`, none of them fitted."""
    both = sorted(set(fixed) & set(names))
    if both:
        raise ParameterError(f"{both} are both fixed and fitted; keep each in `fixed` or in "
                             "`params`, not both.")
    try:
        parameters = inspect.signature(build).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        return
    keywords = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                         p.KEYWORD_ONLY)]
    _check_entries("fixed", fixed, keywords, "keywords of the builder",
                   "`fixed` holds builder keywords at a value")


# --- the result ---------------------------------------------------------------------------

@dataclasses.dataclass
class FitResult:
    """What :func:`fit` found.

    Attributes
    ----------
    names: the fitted parameters, in order.
    estimates: ``{name: value}`` at the optimum.
    intervals: ``{name: (low, high)}`` confidence intervals at level `confidence`, from the
        Gauss–Newton covariance ``σ²(JᵀJ)⁻¹`` of the fit variables (log space for positive
        parameters, so the intervals stay positive and are asymmetric there).
    stderr: ``{name: standard error}`` by the delta method.
    covariance: covariance of the fit variables u (the solver's coordinates).
    sigma2: residual variance ``‖r‖²/(m − n)`` of the weighted residuals.
    residual_norm: ``‖r‖`` at the optimum (weighted).   cost_start: ``‖r‖`` at the start.
    n_data: residual count m.   steps: solver steps.   converged: the solver's verdict.
    system: the model with the estimates.   fitted: its run sampled at the data times.
    data: ``(t, {channel: values})`` that was fitted.   wall_time: [s].
    """

    names: list[str]
    estimates: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    stderr: dict[str, float]
    covariance: np.ndarray
    sigma2: float
    residual_norm: float
    cost_start: float
    n_data: int
    steps: int
    converged: bool
    confidence: float
    system: Any
    fitted: Results
    data: tuple
    channels: list[str]
    wall_time: float

    def to_frame(self):
        """A table: estimate, standard error and interval per parameter."""
        import pandas as pd

        return pd.DataFrame({"estimate": self.estimates, "stderr": self.stderr,
                             "low": {k: v[0] for k, v in self.intervals.items()},
                             "high": {k: v[1] for k, v in self.intervals.items()}})

    def __repr__(self):
        lines = [f"FitResult({'converged' if self.converged else 'NOT converged'} in "
                 f"{self.steps} steps, residual {self.cost_start:.4g} -> "
                 f"{self.residual_norm:.4g}, {self.n_data} residuals)"]
        pct = round(100 * self.confidence)
        for name in self.names:
            lo, hi = self.intervals[name]
            lines.append(f"  {name:>12s} = {self.estimates[name]:.6g}   {pct}% CI "
                         f"[{lo:.6g}, {hi:.6g}]")
        return "\n".join(lines)

    def plot(self, channels: Sequence[str] | None = None):
        """Fitted run against the data, one panel per channel (and the residual); returns
        the matplotlib Figure."""
        import matplotlib.pyplot as plt

        channels = list(channels or self.channels)
        t, measured = self.data
        fig, axes = plt.subplots(len(channels), 1, sharex=True, squeeze=False,
                                 figsize=(7, 2.2 * len(channels) + 0.8))
        for ax, name in zip(axes[:, 0], channels):
            unit = self.fitted.units.get(name, "")
            ax.plot(t, measured[name], ".", ms=2, color="0.6", label=f"{name} measured")
            ax.plot(self.fitted.t, self.fitted[name], "-", lw=1.2, label=f"{name} fitted")
            ax.set_ylabel(f"{name} [{unit}]" if unit else name)
            ax.legend(loc="best", fontsize="small")
            ax.grid(True, alpha=0.3)
        axes[-1, 0].set_xlabel("t [s]")
        text = ", ".join(f"{k}={v:.4g}" for k, v in self.estimates.items())
        fig.suptitle(f"fit: {text}", fontsize="small")
        fig.tight_layout()
        return fig


# --- the problem --------------------------------------------------------------------------

class _Problem:
    """The weighted residual r(u) of a fit, differentiable in the fit variables u."""

    def __init__(self, system, data, params, *, initial, fixed, channels, dt, method, bounds,
                 weights, check_step=True):
        if method not in FIXED_STEP_METHODS:
            raise ParameterError(f"`fit` integrates with a fixed-step method "
                                 f"{list(FIXED_STEP_METHODS)}; got method={method!r}.")
        if dt is None:
            raise ParameterError("`fit` needs the integration step `dt` [s], e.g. dt=1e-4.")
        self.method, self.dt = method, float(dt)
        self.is_builder = not isinstance(system, AbstractSystem)
        if self.is_builder and not callable(system):
            raise ParameterError("`fit` needs a stickslip system (parameters as dotted paths "
                                 "such as 'law.mu_s') or a builder function (parameters as its "
                                 f"keywords); got {type(system).__name__}.")
        self.fixed = dict(_mapping("fixed", fixed))
        initial = dict(_mapping("initial", initial))
        if isinstance(params, str):
            params = [params]
        if isinstance(params, Mapping):
            twice = sorted(set(params) & set(initial))
            if twice:
                raise ParameterError(f"`fit.initial` gives start values for {twice}, which "
                                     "`params` already gives; give each start value once.")
            initial = {**dict(params), **initial}
            params = list(params)
        self.names = list(params)
        if not self.names:
            raise ParameterError("`params` is empty; name at least one parameter to fit, e.g. "
                                 "params=['law.mu_s'].")
        if len(set(self.names)) != len(self.names):
            raise ParameterError(f"`params` names a parameter twice: {self.names}.")
        _check_entries("initial", initial, self.names, "fitted parameters",
                       "a start value applies only to a parameter that is fitted")
        for name, value in initial.items():
            _finite_number(f"initial['{name}']", value)
        if self.fixed and not self.is_builder:
            raise ParameterError(
                f"`fit.fixed` {sorted(self.fixed)} applies only to a builder fit (keywords "
                "held at a value); a system's own values are the fixed ones: set them on it, "
                f"e.g. system.replace(...), and drop `fixed`.")
        if self.is_builder:
            _check_builder_keywords(system, self.fixed, self.names)
            self.build = system
            missing = [n for n in self.names if n not in initial]
            if missing:
                raise ParameterError(f"a builder fit needs start values for {missing}: pass "
                                     "params={name: start, ...}.")
            start = {n: float(initial[n]) for n in self.names}
            try:
                template = system(**self.fixed, **start)
            except TypeError as exc:
                raise ParameterError(f"the builder does not take {self.names}: {exc}") from None
            rules = {n: _rule_by_value(template, n, start[n]) for n in self.names}
        else:
            template = system
            paths = [_canonical_path(system, n) for n in self.names]   # old spellings warn
            if len(set(paths)) != len(paths):
                raise ParameterError(f"`params` names a parameter twice: {self.names} are "
                                     f"{paths}.")
            start = {}
            for n in self.names:
                value = initial.get(n, _path_get(system, n))
                if value is None:
                    raise ParameterError(f"`{n}` is None in this system; it cannot be fitted "
                                         "(pass a start value with initial={...}).")
                arr = np.asarray(value, float)
                if arr.shape != ():
                    raise ParameterError(f"`{n}` has shape {arr.shape}; fit scalar "
                                         "parameters only.")
                start[n] = float(arr)
            rules = {n: _owner_rule(system, n) for n in self.names}
        if not isinstance(template, AbstractSystem):
            raise ParameterError(f"the model to fit must be a stickslip system; got "
                                 f"{type(template).__name__}.")
        self.template = template
        bounds = dict(bounds or {})
        unknown = sorted(set(bounds) - set(self.names))
        if unknown:
            raise ParameterError(f"`bounds` names {unknown}, which are not fitted; fitted: "
                                 f"{self.names}.")
        self.transforms = []
        for n in self.names:
            if n in bounds:
                lo, hi = bounds[n]
                tr = Transform(None if lo is None else float(lo), None if hi is None
                               else float(hi))
            elif rules[n] in ("positive", "nonnegative"):
                tr = Transform(0.0, None)
            else:
                tr = Transform()
            self.transforms.append(tr)
        self.u0 = jnp.asarray([tr.to_variable(start[n], n)
                               for n, tr in zip(self.names, self.transforms)])
        self.start = start
        self.check_step = as_flag("fit", "check_step", check_step)
        if self.check_step:
            self.step_limit_error(self.system_at([start[n] for n in self.names]),
                                  "the start values", raise_it=True)
        self._set_data(data, channels, weights)

    def step_limit_error(self, system, where: str, *, raise_it: bool = False) -> str | None:
        """The step check of `ss.simulate` on `system`: the message when `dt` is outside
        the method's stability region for its stiff modes (raised with `raise_it`)."""
        limit = largest_stable_step(system, self.method)
        if not self.dt > limit:
            return None
        suggestion = float(f"{0.9 * limit:.1g}") if 0.9 * limit > 0 else limit
        message = (f"`fit.dt`: dt={self.dt:g} s is too large for the stiffness of "
                   f"{type(system).__name__} at {where}: {self.method} is stable only for "
                   f"dt <= {limit:.3g} s, and a fit through an unstable integration finds "
                   f"parameters of the integration error, not of the data. Use "
                   f"dt={suggestion:g} or smaller, or start from softer values (lower K, "
                   "adjust beta). (check_step=False skips this check.)")
        if raise_it:
            raise ParameterError(message)
        return message

    def _set_data(self, data, channels, weights):
        t, measured = _as_data(data)
        if t.ndim != 1 or t.size < 2 or not np.all(np.diff(t) > 0):
            raise ParameterError("`data.t` must be increasing sample times [s] (at least two).")
        if t[0] < -1e-12:
            raise ParameterError(f"`data.t` starts at {t[0]:g} s; the model starts at t = 0, "
                                 "so shift the data's time axis.")
        x0 = self.template.initial_state()
        produced = list(self.template.state_names) + list(self.template.outputs(
            jnp.asarray(0.0), x0))
        channels = list(channels) if channels is not None else \
            [c for c in measured if c in produced]
        if not channels:
            raise ParameterError(f"no data channel matches the model's channels {produced}; "
                                 f"the data has {sorted(measured)}. Name them with channels=.")
        for c in channels:
            if c not in measured:
                raise ParameterError(f"channel `{c}` is not in the data (columns "
                                     f"{sorted(measured)}).")
            if c not in produced:
                raise ParameterError(f"channel `{c}` is not a channel of "
                                     f"{type(self.template).__name__} ({produced}).")
            if measured[c].shape != t.shape or not np.all(np.isfinite(measured[c])):
                raise ParameterError(f"data channel `{c}` must be finite with one value per "
                                     f"sample time ({t.size}); got shape {measured[c].shape}.")
        weights = dict(_mapping("weights", weights))
        _check_entries("weights", weights, channels, "fitted channels",
                       "a weight applies only to a channel that is fitted")
        for c, w in weights.items():
            if not _finite_number(f"weights['{c}']", w) > 0:
                raise ParameterError(f"`fit.weights['{c}']` must be > 0 (1/σ of channel "
                                     f"`{c}`); got {w!r}. Drop the channel from `channels` "
                                     "to leave it out of the fit.")
        self.scale = {}
        for c in channels:
            w = weights.get(c)
            s = float(np.std(measured[c])) if w is None else 1.0 / float(w)
            self.scale[c] = s if s > 0 else 1.0
        self.channels = channels
        self.t, self.measured = t, {c: measured[c] for c in channels}
        self.state_index = {c: list(self.template.state_names).index(c)
                            for c in channels if c in self.template.state_names}
        spacing = np.diff(t)
        ratio = spacing[0] / self.dt
        uniform = np.allclose(spacing, spacing[0], rtol=1e-9, atol=1e-12)
        if uniform and abs(ratio - round(ratio)) < 1e-6 and round(ratio) >= 1 \
                and abs(t[0] / spacing[0] - round(t[0] / spacing[0])) < 1e-6:
            self.dt_out = round(ratio) * self.dt
            self.index = jnp.asarray(np.rint(t / self.dt_out).astype(int))
            self.interp = False
        else:
            self.dt_out = self.dt
            self.interp = True
        self.t_end = float(t[-1])
        self.target = jnp.concatenate([jnp.asarray(self.measured[c] / self.scale[c])
                                       for c in channels])
        if self.target.size <= len(self.names):
            raise ParameterError(f"{self.target.size} data values cannot determine "
                                 f"{len(self.names)} parameters; give more samples.")

    def system_at(self, theta: Sequence) -> AbstractSystem:
        values = dict(zip(self.names, theta))
        if self.is_builder:
            return self.build(**self.fixed, **values)
        system = self.template
        for name, value in values.items():
            system = eqx.tree_at(lambda s, p=name: _path_get(s, p), system,
                                 jnp.asarray(value, float), is_leaf=lambda x: x is None)
        return system

    def step_bound(self, u):
        """Largest trusted LM step per fit variable: 1 in log/logit coordinates (a factor
        e), the variable's own size (at least 1e-3) in plain ones."""
        u = np.asarray(u)
        return np.array([1.0 if (tr.low is not None or tr.high is not None)
                         else max(abs(float(u[k])), 1e-3)
                         for k, tr in enumerate(self.transforms)])

    def theta(self, u):
        return [tr.to_parameter(u[k]) for k, tr in enumerate(self.transforms)]

    def simulate(self, theta):
        system = self.system_at(theta)
        ts, xs = trajectory(system, self.t_end, self.dt, self.dt_out, method=self.method)
        outs = jax.vmap(system.outputs)(ts, xs)
        sim = {}
        for c in self.channels:
            y = xs[:, self.state_index[c]] if c in self.state_index else outs[c]
            sim[c] = jnp.interp(jnp.asarray(self.t), ts, y) if self.interp else y[self.index]
        return sim

    def residual_theta(self, theta):
        sim = self.simulate(theta)
        model = jnp.concatenate([sim[c] / self.scale[c] for c in self.channels])
        return model - self.target

    def residual(self, u, args=None):
        return self.residual_theta(self.theta(u))


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
    system:
        A stickslip system holding the start values, with `params` as dotted paths to its
        fields (``"law.mu_s"``, ``"law.F"``, ``"M"``, ``"force.amplitude"``; an old
        spelling such as ``"law.mus"`` still works, with a DeprecationWarning); or a builder
        ``build(**fixed, **params) -> system`` with `params` its keywords (it must write them
        into array fields, as :func:`~stickslip.studies.lugre_block` does).
    data:
        Measured samples: a :class:`~stickslip.Results`, a DataFrame with a ``t`` column
        (or index), or ``{"t": times [s], channel: values}``. Times start at ≥ 0.
    params:
        Names of the parameters to fit, or ``{name: start value}``.
    dt:
        Integration step [s]; when the data are uniformly sampled on a multiple of `dt`
        the model is read at the samples, otherwise interpolated linearly.
    channels:
        Data channels to fit (default: every data column the model also produces: its
        states and outputs, e.g. ``p``, ``v``, ``f``).
    bounds:
        ``{name: (low, high)}`` (either may be None). Without one, a parameter whose law
        rule is ``positive`` or ``nonnegative`` (the laws' ``parameter_rules``) is fitted
        as ``log θ``; others unconstrained.
    initial:
        ``{name: start value}`` for fitted parameters (with a system, instead of the value
        it holds); a name that is not fitted is refused.
    fixed:
        Builder fits only: ``{keyword: value}`` passed to the builder and not fitted; a
        keyword the builder does not take, or one that is also fitted, is refused (with a
        system, set the values on the system instead).
    weights:
        ``{channel: 1/σ}``: residual weight per fitted channel, a finite number > 0
        (default ``1/std(data)``); a channel that is not fitted is refused.
    solver:
        ``"levenberg_marquardt"`` (default: Marquardt-scaled, Nielsen damping, on the
        Jacobian materialised by one ``jax.jacfwd`` pass per accepted step), or optimistix's
        ``"optimistix_lm"`` / ``"gauss_newton"``. The default is ours because it needs ~4×
        fewer integrations than optimistix's trust-region LM on these problems (measured in
        benchmarks/studies_speed.py).
    rtol, atol, max_steps:
        Solver tolerances and step cap.
    confidence:
        Level of the reported intervals (0.95).
    check_step:
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
    ParameterError: unknown parameter or channel, bad data, start values outside bounds,
        `initial`/`fixed`/`weights` entries that do not apply, a `dt` too large for the
        model's stiffness.
    SimulationError: the model's run is not finite at the start values.

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
