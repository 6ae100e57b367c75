"""Parameter rules as data: one validation dialect for every element of stickslip.

Laws, systems, controllers, the brush tire, the discrete algorithms — and planar or spatial
elements that adopt it — declare what each parameter may be as *data*, and one checker
applies it with one message form (STYLE.md, "Errors")::

    `CoulombMass.F` must be >= 0; got F=-1.0. Pass the friction force level in newtons.

Contract
--------
* A :class:`Rule` says what one parameter may be: its ``kind`` (``"finite"``,
  ``"positive"`` > 0, ``"nonnegative"`` ≥ 0, or ``"any"``: no sign check), whether it must
  be a ``scalar`` (a 0-d value: a mass given as an array is rejected at construction, not
  deep inside ``jit``), whether ``None`` is allowed (``optional``, the default: ``None``
  means "not given" and is skipped), and a ``hint`` — the sentence that tells the user how
  to fix a bad value.
* A quantity that appears in several places has **one** rule, defined once below and used
  everywhere it appears: :data:`MASS`, :data:`FRICTION_LEVEL` (F ≥ 0: theorem (4) holds for
  Z ≥ 0, SPEC §1 eq. 2/4, and every update computes ``sat(F, ·)``, defined at F = 0),
  :data:`FRICTION_COEFFICIENT`, :data:`SAMPLE_PERIOD`, :data:`GRAVITY`, :data:`INITIAL`…
  Specialise the hint, never the condition: ``MASS.but(hint="Pass the cart mass in kg.")``.
* An ``equinox.Module`` element subclasses :class:`AbstractParametrised` and sets the class
  variable ``parameter_rules = {field: Rule | kind-string}`` (a plain string is the
  ``kind``; its hint then comes from the optional ``parameter_help = {field: hint}``). Its
  ``__check_init__`` checks every concrete field at construction; ``owner_name`` (default:
  the class name) is the name messages use. Cross-field checks (``mud <= mus``, Routh–
  Hurwitz) go in the final class's own ``__check_init__``, which equinox runs as well.
* A plain class or a function calls :func:`check_parameters(owner, rules, **values)`.
* Traced values (inside ``jit``/``vmap``/``grad``) are skipped: they cannot be inspected, and
  they were checked when first built. Stacking elements for a batch (``jax.tree.map``)
  does not re-run the checks, so ``scalar`` rules do not stop ``simulate_batch``.
* :func:`rules_of` returns an element's rules normalised to :class:`Rule` (for conformance
  suites: each rule rejects its bad values with a message naming ``Owner.field``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Mapping

import equinox as eqx

from ._validation import (check_finite, check_nonnegative, check_positive, check_scalar,
                          concrete)

__all__ = ["Rule", "AbstractParametrised", "check_parameters", "rules_of", "MASS",
           "INERTIA", "FRICTION_LEVEL", "FRICTION_COEFFICIENT", "SAMPLE_PERIOD", "GRAVITY",
           "INITIAL", "STIFFNESS", "DAMPING", "TIME_CONSTANT", "NORMAL_FORCE"]

_KINDS = ("finite", "positive", "nonnegative", "any")


@dataclasses.dataclass(frozen=True)
class Rule:
    """What one parameter may be (see the module docstring for the contract).

    Parameters
    ----------
    kind: ``"finite"``, ``"positive"`` (> 0), ``"nonnegative"`` (≥ 0) or ``"any"``.
    hint: how to fix a bad value, one sentence (appended to the message).
    scalar: the value must be 0-d (one number), not an array.
    optional: ``None`` is accepted (means "not given").
    """

    kind: str = "finite"
    hint: str = ""
    scalar: bool = False
    optional: bool = True

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Rule.kind must be one of {_KINDS}; got {self.kind!r}.")

    def but(self, **changes: Any) -> "Rule":
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


def _as_rule(rule: Rule | str, hint: str = "") -> Rule:
    if isinstance(rule, Rule):
        return rule
    return Rule(kind=rule, hint=hint)


def rules_of(element: Any) -> dict[str, Rule]:
    """``{field: Rule}`` of an element class or instance (strings normalised)."""
    helps = getattr(element, "parameter_help", {}) or {}
    return {name: _as_rule(rule, helps.get(name, ""))
            for name, rule in (getattr(element, "parameter_rules", {}) or {}).items()}


def check_parameters(owner: str, rules: Mapping[str, Rule | str], /, **values: Any) -> None:
    """Check each ``values[name]`` against ``rules[name]`` (names without a rule: no check).

    >>> from stickslip._parameters import check_parameters, MASS
    >>> check_parameters("Cart", {"M": MASS}, M=-1.0)
    Traceback (most recent call last):
    ...
    stickslip.errors.ParameterError: `Cart.M` must be > 0; got M=-1.0. Pass the mass in kg (> 0).
    """
    for name, value in values.items():
        rule = rules.get(name)
        if rule is not None:
            _as_rule(rule).check(owner, name, value)


class AbstractParametrised(eqx.Module):
    """Base of every ``equinox.Module`` element whose parameters follow rules (module docstring).

    Subclasses set ``parameter_rules`` (and optionally ``parameter_help`` and
    ``owner_name``); construction then checks every concrete field.
    """

    parameter_rules: ClassVar[dict[str, Rule | str]] = {}
    parameter_help: ClassVar[dict[str, str]] = {}
    owner_name: ClassVar[str | None] = None

    def __check_init__(self) -> None:
        owner = self.owner_name or type(self).__name__
        for name, rule in rules_of(self).items():
            rule.check(owner, name, getattr(self, name))


def is_concrete_scalar(value: Any) -> bool:
    """True when `value` is a concrete 0-d number (False for traced or array values)."""
    arr = concrete(value)
    return arr is not None and arr.ndim == 0


# --- the shared rules: one per quantity, wherever it appears -------------------------------

MASS = Rule("positive", "Pass the mass in kg (> 0).", scalar=True)
INERTIA = Rule("positive", "Pass the moment of inertia in kg·m² (> 0).", scalar=True)
FRICTION_LEVEL = Rule("nonnegative", "Pass the friction force level in newtons (>= 0; 0 is "
                      "frictionless).")
FRICTION_COEFFICIENT = Rule("nonnegative", "Pass a friction coefficient >= 0.")
NORMAL_FORCE = Rule("nonnegative", "Pass the normal force in newtons (>= 0).")
SAMPLE_PERIOD = Rule("positive", "Pass the sample period in seconds (e.g. 1e-3).")
GRAVITY = Rule("nonnegative", "Pass the gravitational acceleration in m/s² (e.g. 9.81; 0 "
               "for none).", scalar=True)
INITIAL = Rule("finite", "Pass a finite initial value.")
STIFFNESS = Rule("positive", "Pass a positive stiffness in N/m.")
DAMPING = Rule("nonnegative", "Pass a damping >= 0 in N·s/m.")
TIME_CONSTANT = Rule("positive", "Pass a positive time constant in seconds.")
