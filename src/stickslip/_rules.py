"""What each parameter may be, as data: :class:`Rule` and the shared rule of each quantity.

The rules are applied by :mod:`stickslip._parameters` (``AbstractParametrised``,
``check_parameters``), which re-exports everything here; this module imports no JAX, so the
hosts that run without it (the spatial volume route) read the same rules, e.g.
``FRICTION_COEFFICIENT.check_plausible(owner, "mu_k", mu_k)``; and the one validator of a
static/kinetic friction pair, :func:`check_friction_pair`, used by every element that has one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ._validation import (
    check_at_most,
    check_finite,
    check_nonnegative,
    check_plausible,
    check_positive,
    check_scalar,
)

__all__ = [
    "DAMPING",
    "FRICTION_COEFFICIENT",
    "FRICTION_LEVEL",
    "GRAVITY",
    "INERTIA",
    "INITIAL",
    "MASS",
    "NORMAL_FORCE",
    "SAMPLE_PERIOD",
    "STIFFNESS",
    "TIME_CONSTANT",
    "Rule",
    "check_friction_pair",
]

_KINDS = ("finite", "positive", "nonnegative", "any")


@dataclasses.dataclass(frozen=True)
class Rule:
    """What one parameter may be (see :mod:`stickslip._parameters` for the contract).

    Parameters
    ----------
    kind: ``"finite"``, ``"positive"`` (> 0), ``"nonnegative"`` (≥ 0) or ``"any"``.
    hint: how to fix a bad value, one sentence (appended to the message).
    scalar: the value must be 0-d (one number), not an array.
    optional: ``None`` is accepted (means "not given").
    plausible: ``(low, high)``: valid values outside it warn (``ImplausibleParameterWarning``)
        instead of passing silently; None: no such check.
    usual: what the value usually is, for that warning ("a friction coefficient is usually
        0–1.5").
    """

    kind: str = "finite"
    hint: str = ""
    scalar: bool = False
    optional: bool = True
    plausible: tuple[float, float] | None = None
    usual: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Rule.kind must be one of {_KINDS}; got {self.kind!r}.")

    def but(self, **changes: Any) -> Rule:
        """The same rule with some fields changed (typically a more specific ``hint``)."""
        return dataclasses.replace(self, **changes)

    def check(self, owner: str, name: str, value: Any) -> None:
        """Raise :class:`~stickslip.errors.ParameterError` if `value` breaks this rule."""
        from .errors import ParameterError

        if value is None:
            if self.optional:
                return
            raise ParameterError(f"`{owner}.{name}` is required; got None."
                                 + (f" {self.hint}" if self.hint else ""))
        if callable(value) and not hasattr(value, "shape"):
            raise ParameterError(f"`{owner}.{name}` must be a number; got a callable "
                                 f"{getattr(value, '__name__', type(value).__name__)}."
                                 + (f" {self.hint}" if self.hint else ""))
        if isinstance(value, (str, bytes)):
            raise ParameterError(f"`{owner}.{name}` must be a number; got the string "
                                 f"{value!r}." + (f" {self.hint}" if self.hint else
                                                  f" Pass {name} as a float."))
        if self.scalar:
            check_scalar(owner, name, value, self.hint)
        if self.kind == "positive":
            check_positive(owner, name, value, self.hint)
        elif self.kind == "nonnegative":
            check_nonnegative(owner, name, value, self.hint)
        elif self.kind == "finite":
            check_finite(owner, name, value, self.hint)
        self.check_plausible(owner, name, value)

    def check_plausible(self, owner: str, name: str, value: Any) -> None:
        """Warn when a concrete `value` is outside the ``plausible`` range (if declared)."""
        if self.plausible is not None and value is not None:
            check_plausible(owner, name, value, self.plausible, self.usual)


# --- the shared rules: one per quantity, wherever it appears -------------------------------

MASS = Rule("positive", "Pass the mass in kg (> 0).", scalar=True)
INERTIA = Rule("positive", "Pass the moment of inertia in kg·m² (> 0).", scalar=True)
FRICTION_LEVEL = Rule("nonnegative", "Pass the friction force level in newtons (>= 0; 0 is "
                      "frictionless).")
FRICTION_COEFFICIENT = Rule("nonnegative", "Pass a friction coefficient >= 0.",
                            plausible=(0.0, 2.0),
                            usual="a friction coefficient is usually 0–1.5")
NORMAL_FORCE = Rule("nonnegative", "Pass the normal force in newtons (>= 0).")
SAMPLE_PERIOD = Rule("positive", "Pass the sample period in seconds (e.g. 1e-3).")
GRAVITY = Rule("nonnegative", "Pass the gravitational acceleration in m/s² (e.g. 9.81; 0 "
               "for none).", scalar=True)
INITIAL = Rule("finite", "Pass a finite initial value.")
STIFFNESS = Rule("positive", "Pass a positive stiffness in N/m.")
DAMPING = Rule("nonnegative", "Pass a damping >= 0 in N·s/m.")
TIME_CONSTANT = Rule("positive", "Pass a positive time constant in seconds.")


def check_friction_pair(owner: str, mu_s: Any, mu_k: Any, *,
                        names: tuple[str, str] = ("mu_s", "mu_k"),
                        rule: Rule = FRICTION_COEFFICIENT, each: bool = True
                        ) -> tuple[Any, Any]:
    """Check a static/kinetic friction pair — the one validator every element uses (laws,
    joints, planar and spatial contacts, the spatial ground) — and return it unchanged.

    Each value must be finite and >= 0 (a value outside `rule`'s plausible range, e.g.
    ``mu_s=50`` for 0.5, warns with :class:`~stickslip.errors.ImplausibleParameterWarning`),
    and the kinetic one at most the static one::

        `ground.mu_k` must be <= `ground.mu_s`; got mu_k=0.5, mu_s=0.3. The static friction
        must be at least the kinetic: lower mu_k or raise mu_s.

    Parameters
    ----------
    owner: the element named in messages (``"LuGre"``, ``"ground"``, a contact's name).
    mu_s, mu_k: static and kinetic values (numbers or arrays, compared element-wise); None
        (not given) skips that value and the comparison; traced values are skipped.
    names: how the element spells them (``("mu_s", "mu")`` for a contact whose kinetic
        coefficient is ``mu``; ``("F_s", "F")`` for force levels).
    rule: the rule of each value (:data:`FRICTION_COEFFICIENT`; :data:`FRICTION_LEVEL` for
        force levels [N]).
    each: False when the element's ``parameter_rules`` check each value already (then only
        the order is checked here).

    >>> from stickslip._rules import check_friction_pair
    >>> check_friction_pair("ground", 0.5, 0.3)
    (0.5, 0.3)
    >>> check_friction_pair("ground", 0.3, 0.5)
    Traceback (most recent call last):
    ...
    stickslip.errors.ParameterError: `ground.mu_k` must be <= `ground.mu_s`; got mu_k=0.5, \
mu_s=0.3. The static friction must be at least the kinetic: lower mu_k or raise mu_s.
    """
    static, kinetic = names
    if each:
        rule.check(owner, static, mu_s)
        rule.check(owner, kinetic, mu_k)
    check_at_most(owner, kinetic, mu_k, static, mu_s, "The static friction must be at least "
                  f"the kinetic: lower {kinetic} or raise {static}.")
    return mu_s, mu_k
