"""The volume method's numba kernels load numba on first call, not at import
(`stickslip.spatial._lazy_njit`): link systems and point contacts never import it, and the
kernels, once called, are numba's dispatchers everywhere a module holds them."""

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_building_link_systems_and_point_contacts_does_not_import_numba():
    out = _run("""
        import sys
        import stickslip as ss
        import stickslip.spatial as sp
        from stickslip.spatial import examples

        m = sp.SpatialModel(gravity=(0, 0, -9.81))
        m.add_body("link", mass=1.0, inertia=(0.1, 0.1, 0.01), shape=sp.Box(0.1, 0.1, 0.5),
                   position=(0, 0, -0.25))
        m.add(sp.RevoluteJoint("ground", "link", point=(0, 0, 0), axis=(1, 0, 0)))
        m.simulate(0.01, dt=1e-3)
        sp.PointContacts
        print("numba" in sys.modules)
    """)
    assert out.split() == ["False"]


def test_the_first_kernel_call_binds_every_kernel_to_numba():
    out = _run("""
        import sys
        import numpy as np
        import stickslip.spatial as sp
        from stickslip.spatial import _friction_static, _nnls, _dense, _dynamics

        square = np.array([[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]])
        print("numba" in sys.modules)
        # 1 kg at μ = 0.5 holds 4.9 N, not 5.0 N (the LP of eq. 28–31 alone)
        print(sp.static_friction_holds((4.8, 0.0), 0.0, square, 0.5, 9.81),
              sp.static_friction_holds((5.0, 0.0), 0.0, square, 0.5, 9.81))
        print("numba" in sys.modules)
        kinds = {type(f).__name__ for f in (_friction_static.lp_feasible, _nnls.nnls,
                                            _dense.matvec, _dynamics.matvec,
                                            _dynamics.rigid_body_rates)}
        print(*sorted(kinds))
    """)
    assert out.split() == ["False", "True", "False", "True", "CPUDispatcher"]


def test_a_users_numba_function_calls_a_kernel_imported_before_numba_was():
    # numba types the record by its _numba_type_ (the dispatcher's), binding the kernels
    out = _run("""
        import numba
        import numpy as np
        from stickslip.spatial._qp import solve_cone_qp

        @numba.njit
        def twice(H, g, G):
            return 2.0 * solve_cone_qp(H, g, G)

        H, g, G = np.eye(3), np.array([1.0, -2.0, 0.5]), -np.eye(3)
        print(np.array_equal(twice(H, g, G), 2.0 * solve_cone_qp(H, g, G)),
              type(solve_cone_qp).__name__)
    """)
    assert out.split() == ["True", "_Kernel"]
