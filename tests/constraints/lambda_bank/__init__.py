"""A bank of stored λ-problem instances (SPEC §6), in the manner of Siconos' numerics data
files: each one λ-problem w = Aλ − b ∈ −lim N_F^{U_ε}(λ) that one of stickslip's models
solves at a chosen state (or a random one with a stated seed), with what is known of its
solution set and Siconos' solution.

``instances/<name>.json`` (written by ``make_bank.py``, Siconos' part by
``siconos_solve.py``; keep the bank < 1 MB):

=================  ========================================================================
key                meaning
=================  ========================================================================
name, source       the instance's name; the model and state that produced it, in words
seed               the random generator's seed (random instances), else null
contact_dimension  2 (planar contacts, ℝ₊ and [−F, F] rows) or 3 (spatial cones)
blocks             the product set F in row order: ``kind`` (bilateral, unilateral,
                   coulomb, planar_contact, spatial_contact), ``size``, ``mu`` or ``bound``
A, b               A = J M⁻¹ Jᵀ (m × m) and b (m) in stickslip's rows: (t, n) per planar
                   contact, (t1, t2, n) per spatial one
solution_set       per formulation ("kikuuwe", "anitescu"): ``status`` "unique" (w unique),
                   "several" (Painlevé: different w), "none" (no solution) or "unknown";
                   ``lam_unique`` (λ itself unique: false for statically indeterminate
                   contacts); ``how`` it was decided (LP enumeration of every mode
                   combination, :mod:`solution_set`; the monotonicity bound for cones)
siconos            per formulation, Siconos 4.4's solution (or null): ``solver``, ``info``
                   (0: converged), ``siconos_error``, ``law_residual`` (:mod:`law`), ``lam``
                   and ``w`` in stickslip's rows
=================  ========================================================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "BANK",
    "Instance",
    "full_solution",
    "load_bank",
    "nakaoka_reference",
    "product_set",
    "reduced",
]

BANK = Path(__file__).resolve().parent / "instances"


@dataclass(frozen=True)
class Instance:
    """One stored λ-problem (fields as in the module docstring; A and b as arrays)."""

    name: str
    source: str
    seed: int | None
    blocks: tuple
    A: np.ndarray
    b: np.ndarray
    solution_set: dict
    siconos: dict

    @property
    def spatial(self) -> bool:
        """Whether the instance has spatial friction cones (no finite mode enumeration)."""
        return any(blk["kind"] == "spatial_contact" for blk in self.blocks)

    @property
    def structure(self) -> tuple:
        """The block kinds and sizes in order: instances of one structure share programs."""
        return tuple((blk["kind"], blk["size"]) for blk in self.blocks)


def load_bank(directory: Path = BANK) -> list[Instance]:
    """Every instance of the bank, sorted by name.

    Parameters
    ----------
    directory : pathlib.Path, optional
        The folder of ``*.json`` instance files (default: this package's ``instances``).

    Returns
    -------
    list of Instance
        The instances, with A and b as float arrays.
    """
    out = []
    for path in sorted(Path(directory).glob("*.json")):
        rec = json.loads(path.read_text())
        out.append(Instance(name=rec["name"], source=rec["source"], seed=rec["seed"],
                            blocks=tuple(rec["blocks"]), A=np.array(rec["A"], dtype=float),
                            b=np.array(rec["b"], dtype=float),
                            solution_set=rec["solution_set"], siconos=rec["siconos"]))
    return out


def product_set(blocks, without_bilateral: bool = False):
    """The stickslip ProductSet of the block records (optionally the contact blocks only)."""
    from stickslip import constraints as C

    make = {"bilateral": lambda r: C.Bilateral(r["size"]),
            "unilateral": lambda r: C.Unilateral(),
            "coulomb": lambda r: C.CoulombBound(bound=r["bound"]),
            "planar_contact": lambda r: C.PlanarContact(mu=r["mu"]),
            "spatial_contact": lambda r: C.SpatialContact(mu=r["mu"])}
    return C.ProductSet([make[r["kind"]](r) for r in blocks
                         if not (without_bilateral and r["kind"] == "bilateral")])


def _bilateral_rows(blocks):
    rows, o = [], 0
    for blk in blocks:
        if blk["kind"] == "bilateral":
            rows.extend(range(o, o + blk["size"]))
        o += blk["size"]
    return np.array(rows, dtype=int)


def reduced(blocks, A, b):
    """(A_r, b_r, contact rows): the problem on the contact rows after the bilateral rows'
    Schur complement, λ_B = A_BB⁻¹(b_B − A_BC λ_C) (SPEC §6; NumPy)."""
    bil = _bilateral_rows(blocks)
    con = np.setdiff1d(np.arange(len(b)), bil)
    if not bil.size:
        return A, b, con
    X = np.linalg.solve(A[np.ix_(bil, bil)], np.column_stack([A[np.ix_(bil, con)], b[bil]]))
    return (A[np.ix_(con, con)] - A[np.ix_(con, bil)] @ X[:, :-1],
            b[con] - A[np.ix_(con, bil)] @ X[:, -1], con)


def full_solution(blocks, A, b, lam_contacts):
    """λ on every row from the contact rows' λ (the bilateral rows recovered)."""
    bil = _bilateral_rows(blocks)
    con = np.setdiff1d(np.arange(len(b)), bil)
    lam = np.zeros(len(b))
    lam[con] = lam_contacts
    if bil.size:
        lam[bil] = np.linalg.solve(A[np.ix_(bil, bil)],
                                   b[bil] - A[np.ix_(bil, con)] @ np.asarray(lam_contacts))
    return lam


def nakaoka_reference(blocks, A, b):
    """Nakaoka's λ = lim_{ε→+0} P_F^{U_ε}(A⁺b) on the contact rows (SPEC §6), bilateral rows
    eliminated first, in NumPy: each contact's normal clipped at 0, its friction cut
    radially to μλ_n; ℝ₊ rows clipped, [−F, F] rows clipped to the bound."""
    A_r, b_r, _ = reduced(blocks, A, b)
    x = np.linalg.pinv(0.5 * (A_r + A_r.T), hermitian=True) @ b_r
    out, o = [], 0
    for blk in blocks:
        if blk["kind"] == "bilateral":
            continue
        z = x[o:o + blk["size"]]
        o += blk["size"]
        if blk["kind"] == "unilateral":
            out.append(np.maximum(z, 0.0))
        elif blk["kind"] == "coulomb":
            out.append(np.clip(z, -blk["bound"], blk["bound"]))
        else:
            n = max(float(z[-1]), 0.0)
            t = z[:-1]
            norm = float(np.linalg.norm(t))
            scale = min(1.0, blk["mu"] * n / norm) if norm > 0 else 1.0
            out.append(np.concatenate([t * scale, [n]]))
    return full_solution(blocks, A, b, np.concatenate(out) if out else np.zeros(0))
