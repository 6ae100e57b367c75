"""Bad input to the studies (sweep, designs, fit): a stickslip error naming the culprit."""

import sys

import pytest

import stickslip as ss
from stickslip.studies import friction_mass, grid, latin_hypercube, random_sample

RUN = dict(t_end=0.1, dt=1e-4)


def _data():
    return {"t": [0.0, 0.01, 0.02], "p": [0.0, 0.0, 0.0]}


CASES = [
    (lambda: grid(), "at least one named axis"),
    (lambda: grid(F=[]), "`F`"),
    (lambda: grid(F=[0.1, float("nan")]), "`F`"),
    (lambda: latin_hypercube(0, seed=0, F=(0, 1)), "n >= 1"),
    (lambda: latin_hypercube(4, seed=0, F=(1, 0)), "`F`"),
    (lambda: random_sample(4, seed=0, F=(0,)), "`F`"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)", backend="gpu", **RUN),
     "`backend`"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)", method="rk5", **RUN),
     "`method`"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "maximum(p)", **RUN), "maximum(p)"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs", **RUN), "max_abs"),
    (lambda: ss.sweep(friction_mass, {"Fx": [0.5]}, "max_abs(p)", **RUN), "Fx"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, {"F": ss.studies.final}, **RUN), "F"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)", t_end=0.1), "`dt`"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)", chunk=0, **RUN), "`chunk`"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)", client="tcp://x:1", **RUN),
     "`client`"),
    (lambda: ss.sweep(friction_mass, {"F": [0.5]}, None, **RUN), "`analysis`"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.mu_s"], dt=1e-4), "mu_s"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, channels=["x"]), "`x`"),
    (lambda: ss.fit(friction_mass(), {"p": [0, 1]}, ["law.F"], dt=1e-4), "`t`"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, method="tsit5"), "tsit5"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4,
                    bounds={"law.K": (0, 1)}), "law.K"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, confidence=1.5),
     "`confidence`"),
    (lambda: ss.fit(friction_mass, _data(), ["F"], dt=1e-4), "start values"),
    (lambda: ss.fit(friction_mass(), {"t": [0.0, 0.1], "p": [0.0, float("inf")]}, ["law.F"],
                    dt=1e-4), "`p`"),
    # derived parameters (the tuned beta = 2*sqrt(M/K)) name the user's input (issue 24)
    (lambda: friction_mass(M=-1.0), "`friction_mass.M` must be > 0; got M=-1.0"),
    (lambda: friction_mass(K=0.0), "`friction_mass.K` must be > 0; got K=0.0"),
    (lambda: friction_mass(M=float("nan")), "`friction_mass.M` must be finite"),
]


@pytest.mark.parametrize("case, fragment", CASES)
def test_bad_study_input_raises_a_named_stickslip_error(case, fragment):
    with pytest.raises(ss.StickslipError) as info:
        case()
    assert fragment in str(info.value)


@pytest.mark.parametrize("module, case, fragment", [
    ("yaml", lambda p: ss.studies.load_spec(p / "s.yaml"), "YAML spec files need PyYAML"),
    ("pyarrow", lambda p: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)", store=p / "st",
                                   **RUN), "Sweep stores (Parquet files) need pyarrow"),
    ("distributed", lambda p: ss.sweep(friction_mass, {"F": [0.5]}, "max_abs(p)",
                                       backend="dask", **RUN), "need dask.distributed"),
])
def test_missing_optional_package_names_the_extra(tmp_path, monkeypatch, module, case,
                                                  fragment):
    # issue 24: a missing PyYAML read as "not valid YAML: No module named 'yaml'"
    (tmp_path / "s.yaml").write_text("model: friction_mass\n")
    monkeypatch.setitem(sys.modules, module, None)              # `import module` fails
    with pytest.raises(ss.MissingDependencyError) as info:
        case(tmp_path)
    assert fragment in str(info.value)
    assert "`pip install 'stickslip[studies]'`" in str(info.value)


def test_sweep_with_a_negative_mass_names_the_mass_not_the_derived_beta():
    """`stickslip sweep` with ``fixed: {M: -1.0}`` reported ``CoulombODE.beta must be
    finite; got beta=nan`` at every point (issue 24)."""
    import functools

    build = functools.partial(friction_mass, M=-1.0)
    try:
        table = ss.sweep(build, {"F": [0.3, 0.5]}, "max_abs(p)", **RUN)
        errors = list(table["error"])
    except ss.StickslipError as exc:                 # a sweep whose points all fail may raise
        errors = [str(exc)]
    assert errors and all("`friction_mass.M` must be > 0; got M=-1.0" in e for e in errors)
    assert not any("beta" in e for e in errors), errors
