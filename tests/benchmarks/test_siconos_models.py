"""Guards on the Siconos models of benchmarks/work_precision_peers.py (issue 21, item 5).

Siconos is the Debian system package ``python3-siconos`` (the system Python, not the venv),
so the models run in a ``/usr/bin/python3`` subprocess; every test that needs it skips when
that Python cannot ``import siconos.kernel``.
"""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "_work_precision_siconos.py"
_SPEC = importlib.util.spec_from_file_location("_work_precision_siconos", _PATH)
siconos = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(siconos)          # by path: benchmarks/ stays off sys.path

REASON = siconos.available()
needs_siconos = pytest.mark.skipif(REASON is not None, reason=f"no Siconos: {REASON}")


@needs_siconos
def test_ap1_exact_impulse_matches_closed_form():
    """AP1 (issue 21): x(10) = 0.0375 + 0.04/(10π) m; Siconos' relay with the exact load
    impulse per step reaches round-off (6.9e-17 m measured) at h = 1e-2."""
    (row,) = siconos.rows("AP1", "ts-exact", [1e-2], repeats=0, timeout=60)
    assert row["err"] <= 1e-15
    assert row["engine"] == "Siconos" and row["step"] == "dt=0.01"
    assert 0 < row["setup"] < row["first"]


@needs_siconos
def test_ap1_step_end_load_converges_first_order():
    """With f_e averaged at the step ends, the two load jumps (t = 0.5 s, 1 s) each misplace
    an impulse O(h): the error of x(10) falls 10× from h = 1e-2 to 1e-3."""
    coarse, fine = siconos.rows("AP1", "ts-ends", [1e-2, 1e-3], repeats=0, timeout=60)
    assert 1e-4 < coarse["err"] < 1e-2
    assert 0.08 < fine["err"] / coarse["err"] < 0.12


@needs_siconos
def test_ap3_event_driven_apexes_to_round_off():
    """AP3: apex heights e^(2k)·h0 (e = 0.8, h0 = 1 m) from v⁺²/(2g) after each of the six
    impacts in 3 s; Lsodar at its default tolerance gives round-off (5e-15 m measured)."""
    (row,) = siconos.rows("AP3", "ed", ["3:0"], repeats=0, timeout=60)
    assert row["err"] <= 1e-13


@needs_siconos
def test_ap2_relay_equals_stickslip_moreau_jean():
    """AP2 (m = k = 1, belt 0.5 m/s, F = 1 N): Siconos' θ = 0.5 MoreauJeanOSI with a relay
    and stickslip's ``moreau_jean`` are the same scheme, so their limit-cycle errors agree
    (8.17e-9 m at h = 1e-3) far below the error itself."""
    import stickslip as ss

    (row,) = siconos.rows("AP2", "ts", [1e-3], repeats=0, timeout=60)
    belt = ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3),
                                   stiffness=1.0, surface_velocity=0.5)
    res = ss.simulate(belt, 20.0, method="moreau_jean", dt=1e-3)
    ours = siconos.cycle_error(res.t, res["p"])
    assert 1e-9 < row["err"] < 1e-7
    assert abs(row["err"] - ours) <= 1e-3 * ours


def test_sampled_apex_error_of_exact_flight_is_sampling_only():
    """The apex read off samples (last sample before each apex, p + v²/(2g)) is exact on the
    exact piecewise-parabolic flight of the ball, whatever the sampling."""
    g, e, h0 = siconos.G, siconos.E, siconos.H0
    v1, t1 = math.sqrt(2 * g * h0), math.sqrt(2 * h0 / g)
    impacts = t1 + np.concatenate([[0.0], np.cumsum(2 * v1 * e ** np.arange(1, 8) / g)])
    t = np.arange(0.0, 3.0, 1.3e-3)
    k = np.searchsorted(impacts, t)                       # flights since the last impact
    t_from = np.where(k == 0, 0.0, impacts[np.maximum(k - 1, 0)])
    v0 = np.where(k == 0, 0.0, v1 * e ** k)
    p0 = np.where(k == 0, h0, 0.0)
    s = t - t_from
    p, v = p0 + v0 * s - g * s ** 2 / 2, v0 - g * s
    assert siconos.sampled_apex_error(p, v) < 1e-12
    assert siconos.sampled_apex_error(p, v + 1e-3) > 1e-5     # a wrong velocity shows


def test_cycle_error_of_exact_limit_cycle():
    """AP2's closed-form cycle x = 1 + 0.5·sin(t) spans [0.5, 1.5]: error 0 when its
    extremes are sampled (t = 3π/2 + 2π, π/2 + 4π); a cycle 1e-6 m too wide gives 1e-6 m;
    samples before t = 10 s do not count."""
    t = np.union1d(np.linspace(0.0, 20.0, 2001), [3.5 * np.pi, 4.5 * np.pi])
    assert siconos.cycle_error(t, 1.0 + 0.5 * np.sin(t)) < 1e-12
    assert abs(siconos.cycle_error(t, 1.0 + (0.5 + 1e-6) * np.sin(t)) - 1e-6) < 1e-12
    assert siconos.cycle_error(t, np.where(t < 10.0, 5.0, 1.0 + 0.5 * np.sin(t))) < 1e-12
