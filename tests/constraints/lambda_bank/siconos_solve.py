"""Siconos' solutions of the bank's λ-problems — run by ``make_bank.py`` under the system
Python (``/usr/bin/python3 siconos_solve.py <instances dir>``), never by the suite.

Siconos 4.4 numerics (python3-siconos) writes u = W r + q with the contact rows in the order
(n, t) / (n, t1, t2). With W = A and q = −b on the contact rows (the bilateral rows of
stickslip's problems eliminated first by their Schur complement, then recovered) its
problems are stickslip's (SPEC §6):

* ``"kikuuwe"`` (w ∈ −lim N_F^{U_ε}(λ), Coulomb's law exactly) is Siconos' frictional contact
  problem: fc3d (De Saxcé's r ∈ K, u + μ‖u_t‖e_n ∈ K*, r ⊥ …) for spatial contacts, solved
  by the Alart–Curnier nonsmooth Newton (NSN_AC) and NSGS; fc2d for planar ones, solved by
  Lemke, enumeration, NSGS and
  conjugate projected gradient (CPG). A frictionless unilateral row enters fc2d as a contact with
  μ = 0 and a decoupled dummy tangent row; a [−F, F] row as the tangent row of a contact with
  μ = 1 whose decoupled dummy normal row (W = 1, q = −F) forces r_n = F.
* ``"anitescu"`` (w ∈ −N_F(λ), a monotone cone complementarity problem) for planar rows is an
  LCP in the cone's edge generators (λ = α₊e₊ + α₋e₋, e± = (∓μ, 1) in (t, n); a [−F, F]
  row as λ = x − F with (w + s) ⊥ x ≥ 0, (2F − x) ⊥ s ≥ 0), solved by Siconos' Lemke.
  Spatial Anitescu problems get no Siconos reference (its SOCLCP is not usable from
  Python 4.4's bindings).

Each solver's solution is kept with Siconos' ``info`` and its own residual; of those Siconos
reports converged (``info`` 0; else of all), the one with the smallest law residual
(``law_residual``: :func:`law.natural_residual`) is stored under ``siconos[formulation]``.
"""

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from law import natural_residual


def _reduce(blocks, A, b):
    offsets = np.cumsum([0] + [blk["size"] for blk in blocks])
    bil = [r for blk, o in zip(blocks, offsets) if blk["kind"] == "bilateral"
           for r in range(o, o + blk["size"])]
    bil = np.array(bil, dtype=int)
    con = np.setdiff1d(np.arange(len(b)), bil)
    if not bil.size:
        return A, b, bil, con
    X = np.linalg.solve(A[np.ix_(bil, bil)], np.column_stack([A[np.ix_(bil, con)], b[bil]]))
    return (A[np.ix_(con, con)] - A[np.ix_(con, bil)] @ X[:, :-1],
            b[con] - A[np.ix_(con, bil)] @ X[:, -1], bil, con)


def _full(A, b, bil, con, lam_c):
    """λ on every row: the bilateral rows from λ_B = A_BB⁻¹(b_B − A_BC λ_C)."""
    lam = np.zeros(len(b))
    lam[con] = lam_c
    if bil.size:
        lam[bil] = np.linalg.solve(A[np.ix_(bil, bil)], b[bil] - A[np.ix_(bil, con)] @ lam_c)
    return lam


def _options(solver_id, tol=1e-14, iterations=100000):
    import siconos.numerics as sn

    so = sn.SolverOptions(solver_id)
    so.dparam[sn.SICONOS_DPARAM_TOL] = tol
    so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = iterations
    return so


def _fc3d(contacts, W, q):
    import siconos.numerics as sn

    n = len(contacts)
    perm = np.array([3 * k + j for k in range(n) for j in (2, 0, 1)])   # → (n, t1, t2)
    mu = np.array([blk["mu"] for blk in contacts])
    Ws, qs = np.ascontiguousarray(W[np.ix_(perm, perm)]), np.ascontiguousarray(q[perm])
    out = []
    for label, sid in (("fc3d NSN_AC", sn.SICONOS_FRICTION_3D_NSN_AC),
                       ("fc3d NSGS", sn.SICONOS_FRICTION_3D_NSGS)):
        problem = sn.FrictionContactProblem(3, n, Ws, qs, mu)
        r, u = np.zeros(3 * n), np.zeros(3 * n)
        so = _options(sid)
        info = sn.fc3d_driver(problem, r, u, so)
        lam = np.zeros(3 * n)
        lam[perm] = r
        out.append((label, int(info), lam, float(so.dparam[sn.SICONOS_DPARAM_RESIDU])))
    return out


def _fc2d(blocks, W, q):
    """Planar contacts, unilateral and [−F, F] rows as one fc2d problem (module docstring)."""
    import siconos.numerics as sn

    m = len(q)
    rows, mus = [], []                # per fc2d contact: (n row, t row) in W
    size = m
    layout = []
    o = 0
    for blk in blocks:
        if blk["kind"] == "planar_contact":
            layout.append((o + 1, o, blk["mu"], None))
        elif blk["kind"] == "unilateral":
            layout.append((o, size, 0.0, "tangent"))
            size += 1
        else:                                      # coulomb: dummy normal forces r_n = F
            layout.append((size, o, 1.0, blk["bound"]))
            size += 1
        o += blk["size"]
    Wx, qx = np.zeros((size, size)), np.zeros(size)
    Wx[:m, :m], qx[:m] = W, q
    for n_row, t_row, mu, extra in layout:
        if extra == "tangent":
            Wx[t_row, t_row] = 1.0
        elif extra is not None:
            Wx[n_row, n_row], qx[n_row] = 1.0, -extra
        rows += [n_row, t_row]
        mus.append(mu)
    perm = np.array(rows)
    Ws, qs = np.ascontiguousarray(Wx[np.ix_(perm, perm)]), np.ascontiguousarray(qx[perm])
    mu = np.array(mus)
    out = []
    for label, sid in (("fc2d Lemke", sn.SICONOS_FRICTION_2D_LEMKE),
                       ("fc2d enumeration", sn.SICONOS_FRICTION_2D_ENUM),
                       ("fc2d NSGS", sn.SICONOS_FRICTION_2D_NSGS),
                       ("fc2d CPG", sn.SICONOS_FRICTION_2D_CPG)):
        problem = sn.FrictionContactProblem(2, len(mus), Ws, qs, mu)
        r, u = np.zeros(len(perm)), np.zeros(len(perm))
        so = _options(sid)
        try:
            info = sn.fc2d_driver(problem, r, u, so)
        except (RuntimeError, ValueError, TypeError) as exc:   # a solver refusing it
            print(f"  {label}: {exc}")
            continue
        lam = np.zeros(size)
        lam[perm] = r
        out.append((label, int(info), lam[:m], float(so.dparam[sn.SICONOS_DPARAM_RESIDU])))
    return out


def _anitescu_lcp(blocks, W, q):
    """The planar Anitescu problem as an LCP in edge generators (module docstring)."""
    import siconos.numerics as sn

    m = len(q)
    cols = []                                      # columns of E (λ = E z + c0)
    comp = []                                      # LCP rows: (g over λ rows, H entries, h)
    c0 = np.zeros(m)
    o = 0
    for blk in blocks:
        if blk["kind"] == "planar_contact":
            for s in (1.0, -1.0):                 # e± = (∓μ, 1)
                e = np.zeros(m)
                e[o], e[o + 1] = -s * blk["mu"], 1.0
                cols.append(e)
                comp.append((e, {}, 0.0))
        elif blk["kind"] == "unilateral":
            e = np.zeros(m)
            e[o] = 1.0
            cols.append(e)
            comp.append((e, {}, 0.0))
        else:
            F = blk["bound"]
            e = np.zeros(m)
            e[o] = 1.0
            kx = len(cols)
            cols += [e, np.zeros(m)]              # x (λ = x − F), s (no λ)
            c0[o] = -F
            comp.append((e, {kx + 1: 1.0}, 0.0))           # w + s ≥ 0 ⊥ x
            comp.append((np.zeros(m), {kx: -1.0}, 2 * F))  # 2F − x ≥ 0 ⊥ s
        o += blk["size"]
    E = np.array(cols).T
    Gt = np.array([g for g, _, _ in comp])
    H = np.zeros((len(comp), len(cols)))
    for i, (_, entries, _) in enumerate(comp):
        for j, v in entries.items():
            H[i, j] = v
    h = np.array([v for _, _, v in comp])
    # w = W λ + q with q = −b: the LCP's w_lcp = Gᵀ w + H z + h
    M = Gt @ W @ E + H
    qq = Gt @ (W @ c0 + q) + h
    lcp = sn.LCP(np.ascontiguousarray(M), np.ascontiguousarray(qq))
    z, wl = np.zeros(len(qq)), np.zeros(len(qq))
    so = _options(sn.SICONOS_LCP_LEMKE)
    info = sn.linearComplementarity_driver(lcp, z, wl, so)
    return [("LCP Lemke (edge generators)", int(info), E @ z + c0,
             float(so.dparam[sn.SICONOS_DPARAM_RESIDU]))]


def solve(record):
    blocks = record["blocks"]
    A, b = np.array(record["A"]), np.array(record["b"])
    A_r, b_r, bil, con = _reduce(blocks, A, b)
    contacts = [blk for blk in blocks if blk["kind"] != "bilateral"]
    spatial = any(blk["kind"] == "spatial_contact" for blk in contacts)
    out = {}
    for formulation in ("kikuuwe", "anitescu"):
        if spatial:
            runs = _fc3d(contacts, A_r, -b_r) if formulation == "kikuuwe" else []
        else:
            runs = (_fc2d(contacts, A_r, -b_r) if formulation == "kikuuwe"
                    else _anitescu_lcp(contacts, A_r, -b_r))
        best = None
        for label, info, lam_c, error in runs:
            lam = _full(A, b, bil, con, lam_c)
            w = A @ lam - b
            res = natural_residual(blocks, lam, w, formulation, A, b)
            print(f"  {formulation:9s} {label:28s} info={info} siconos error={error:.2e} "
                  f"law residual={res:.2e}")
            if best is None or (info != 0, res) < (best["info"] != 0, best["law_residual"]):
                best = {"solver": f"Siconos 4.4 {label}", "info": info,
                        "siconos_error": error, "law_residual": res,
                        "lam": lam.tolist(), "w": w.tolist()}
        out[formulation] = best
    return out


def main(directory):
    import siconos.numerics  # noqa: F401  (fails here, not midway, where Siconos is absent)

    for path in sorted(Path(directory).glob("*.json")):
        record = json.loads(path.read_text())
        print(record["name"], flush=True)
        record["siconos"] = solve(record)
        path.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
