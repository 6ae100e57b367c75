"""The least-squares problem behind `fit` (`_Problem`): the fit's arguments and data checked,
and the weighted residual r(u) of the model's run, differentiable in the fit variables u."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ..integrate import (
    FIXED_STEP_METHODS,
    AbstractSystem,
    largest_stable_step,
    as_flag,
    did_you_mean,
    trajectory,
)
from ..results import Results
from ._fit_parameters import (
    Transform,
    _canonical_path,
    _owner_rule,
    _path_get,
    _rule_by_value,
)

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


# --- the problem --------------------------------------------------------------------------

class _Problem:
    """The weighted residual r(u) of a fit, differentiable in the fit variables u."""

    def __init__(self, system: AbstractSystem | Callable[..., AbstractSystem], data, params, *,
                 initial, fixed, channels, dt, method, bounds,
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
        if not isinstance(system, AbstractSystem):       # self.is_builder
            _check_builder_keywords(system, self.fixed, self.names)
            self.build: Callable[..., AbstractSystem] = system   # builder(**keywords)
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
                   f"dt <= {limit:.3g} s (with a two-level friction law: not overshooting its "
                   f"stick mode), and a fit through an unstable integration finds "
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
