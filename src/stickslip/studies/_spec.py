"""`run_spec`: run a spec file (``stickslip sweep SPEC``, ``stickslip fit SPEC``), checked
first by `load_spec` (the format is described in ``_spec_load``), and write its ``out``
file(s) — after checking they can be written, so a finished study is never lost."""

from __future__ import annotations

import json

from ._spec_load import load_spec

__all__ = ["run_spec"]


def run_spec(path, *, progress: bool | None = None, kind: str | None = None):
    """Validate and run a spec file; write its ``out`` file(s). Returns the sweep's table or
    the :class:`~stickslip.studies.FitResult`. With `kind` (``"sweep"``/``"fit"``, as the
    CLI passes) a spec of the other kind is refused."""
    spec = load_spec(path, kind=kind)
    if spec["kind"] == "sweep":
        return _run_sweep(spec, progress)
    return _run_fit(spec)


def _check_outputs(spec, plot: bool = False) -> None:
    """Refuse an `out:` that cannot be written before the study runs (not after it, losing
    the results): its directory is created and probed, an existing read-only file named."""
    from ._store import check_writable_file

    out = spec["out"]
    if out is not None:
        check_writable_file(out, "out")
        if plot:
            check_writable_file(out.with_suffix(".png"), "out")


def _run_sweep(spec, progress):
    from functools import partial

    from ._sweep import sweep

    _check_outputs(spec)
    build = partial(spec["build"], **spec["fixed"]) if spec["fixed"] else spec["build"]
    table = sweep(build, spec["design"], spec["outputs"], **spec["simulate"],
                  backend=spec["backend"], workers=spec["workers"], chunk=spec["chunk"],
                  client=spec["scheduler"], store=spec["store"],
                  retry_failed=spec["retry_failed"], progress=progress)
    out = spec["out"]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        frame = table.drop(columns=["trajectory"], errors="ignore")
        frame.to_csv(out, index=False) if out.suffix.lower() == ".csv" \
            else frame.to_parquet(out, index=False)
    return table


def _run_fit(spec):
    from ._fit import fit

    _check_outputs(spec, plot=bool(spec["plot"]))
    result = fit(spec["build"], spec["data"], spec["params"], fixed=spec["fixed"],
                 channels=spec["channels"], bounds=spec["bounds"] or None,
                 weights=spec["weights"] or None, confidence=spec["confidence"],
                 solver=spec["solver"], max_steps=spec["max_steps"], **spec["simulate"])
    out = spec["out"]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({
            "estimates": result.estimates, "intervals": result.intervals,
            "stderr": result.stderr, "confidence": result.confidence,
            "residual_norm": result.residual_norm, "converged": result.converged,
            "steps": result.steps, "n_data": result.n_data}, indent=1))
        if spec["plot"]:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig = result.plot()
            fig.savefig(out.with_suffix(".png"), dpi=120)
            plt.close(fig)
    return result
