"""README's Quickstart, run verbatim: the plotted sliding velocity is exactly 0 while stuck
(issue 14). The stuck intervals come from an independent method: Kikuuwe's exact
backward-Euler step for a mass with Coulomb friction (SPEC §6), which gives v = 0 exactly
while the mass sticks."""

import re
from pathlib import Path

import matplotlib
import numpy as np

import stickslip as ss

README = Path(__file__).resolve().parents[2] / "README.md"
F, M = 0.5, 1.0


def _first_python_block() -> str:
    match = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert match, "README.md has no ```python block"
    return match.group(1)


def _reference_stuck(t_end=4.0, T=1e-5):
    """Times where the exact Coulomb block (backward Euler, SPEC §6) is stuck (v = 0 to round-off)."""
    import jax
    import jax.numpy as jnp

    def step(v, t):
        v, _ = ss.discrete.coulomb_mass_step(v, 0.6 * jnp.sin(jnp.pi * t), M, F, T)
        return v, v

    ts = jnp.arange(1, int(round(t_end / T)) + 1) * T
    _, vs = jax.lax.scan(step, jnp.asarray(0.0), ts)
    return np.asarray(ts), np.abs(np.asarray(vs)) < 1e-12


def _intervals(ts, mask):
    edges = np.flatnonzero(np.diff(np.r_[0, mask.astype(int), 0]))
    return [(ts[a], ts[b - 1]) for a, b in zip(edges[::2], edges[1::2])]


def test_readme_quickstart_shows_exact_stick(tmp_path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(_first_python_block(), "README.md", "exec"), namespace)   # verbatim
    res = namespace["res"]
    assert (tmp_path / "block.png").exists() and (tmp_path / "block.csv").exists()

    ts, stuck = _reference_stuck()
    intervals = [(a, b) for a, b in _intervals(ts, stuck) if b - a > 0.05]
    assert len(intervals) >= 3                    # it sticks several times in 4 s
    margin = 0.02                                 # the proxy model stops within ~β of p*
    for a, b in intervals:
        inside = (res.t > a + margin) & (res.t < b - margin)
        assert inside.sum() > 10
        assert np.abs(res["slip"][inside]).max() < 1e-9, (a, b)
    sliding = ~np.isin(np.round(res.t, 5), np.round(ts[stuck], 5))
    assert np.abs(res["slip"][sliding]).max() > 0.01    # and it really slides in between
    assert np.abs(res["f"]).max() <= F * (1 + 1e-12)


def test_proxy_offset_channel_is_named_and_a_is_its_alias():
    law = ss.laws.CoulombODE.tuned(mass=1.0, K=1e4, F=0.5)
    res = ss.simulate(ss.systems.FrictionMass(M=1.0, law=law, v0=1.0), 0.5, dt=1e-4,
                      dt_out=0.1)
    assert "proxy_offset" in res.names and res.units["proxy_offset"] == "m"
    with __import__("pytest").warns(DeprecationWarning, match="proxy_offset"):
        np.testing.assert_array_equal(res["a"], res["proxy_offset"])
    # while sliding forward the proxy offset approaches F/K (SPEC §2, eq. 9 saturated)
    assert res["proxy_offset"][3] == __import__("pytest").approx(F / 1e4, rel=1e-5)
