"""Small dense linear algebra as plain loops for the numba-compiled contact kernels.

NumPy's `@`, `np.cross` and `np.outer` inside numba code cost compile time (numba 0.68, in
isolation: a loop matrix–vector product compiles in 0.16 s, `A @ x` in 0.76 s, `np.cross` in
1.35 s); with these loops the kernels' first compile went from 31 s to 27 s. The matrices
here have at most a few dozen rows, where loops are as fast at run time.
"""

from __future__ import annotations

import numpy as np

from ._lazy_njit import njit

__all__ = ["cross", "dot", "matvec", "matvec_t", "matmul", "matmul_tn", "matmul_nt",
           "outer"]


@njit(cache=True)
def cross(a, b):
    """a × b of two 3-vectors."""
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@njit(cache=True)
def dot(a, b):
    """aᵀb."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit(cache=True)
def matvec(A, x):
    """A x."""
    n, m = A.shape
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        y[i] = s
    return y


@njit(cache=True)
def matvec_t(A, x):
    """Aᵀ x (its own loop: `matvec(A.T, x)` compiled a second, Fortran-order matvec)."""
    n, m = A.shape
    y = np.zeros(m)
    for i in range(n):
        a = x[i]
        for j in range(m):
            y[j] += A[i, j] * a
    return y


@njit(cache=True)
def matmul(A, B):
    """A B."""
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for p in range(k):
            a = A[i, p]
            if a != 0.0:
                for j in range(m):
                    C[i, j] += a * B[p, j]
    return C


@njit(cache=True)
def matmul_tn(A, B):
    """Aᵀ B (own loops: one C-order specialisation instead of a Fortran-order `matmul`)."""
    k, n = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for p in range(k):
        for i in range(n):
            a = A[p, i]
            if a != 0.0:
                for j in range(m):
                    C[i, j] += a * B[p, j]
    return C


@njit(cache=True)
def matmul_nt(A, B):
    """A Bᵀ (own loops, as `matmul_tn`)."""
    n, k = A.shape
    m = B.shape[0]
    C = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[j, p]
            C[i, j] = s
    return C


@njit(cache=True)
def outer(a, b):
    """a bᵀ."""
    C = np.empty((a.shape[0], b.shape[0]))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            C[i, j] = a[i] * b[j]
    return C
