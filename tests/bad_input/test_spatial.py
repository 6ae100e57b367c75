"""Bad input to `ss.spatial` (issue 11): every case raises a `ss.StickslipError` whose message
names the argument, element or body. Each case is a zero-argument callable."""

import numpy as np
import pytest

import stickslip as ss

sp = ss.spatial
# these cases leave out `dt` to check other arguments; the implicit step's DeprecationWarning
# is checked where it belongs (tests/test_simulate_signature.py)
pytestmark = pytest.mark.filterwarnings(
    "ignore:SpatialModel.simulate. pass dt= explicitly:DeprecationWarning")
CUBE = sp.Box(0.1, 0.1, 0.1)
SQ = [(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)]


def _model(**kw):
    m = sp.SpatialModel(gravity=(0, 0, -9.81), **kw)
    m.add_body("box", mass=1.0, shape=CUBE, position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    return m


def _two(p2):
    m = sp.SpatialModel(gravity=(0, 0, 0))
    m.add_body("a", mass=1.0, shape=CUBE, position=(0, 0, 1))
    m.add_body("b", mass=1.0, shape=CUBE, position=p2)
    return m


def _open_cube():
    return sp.Polyhedron(CUBE.vertices, [list(f) for f in CUBE.faces[:5]], name="lid_off")


def _flipped_face():
    faces = [list(f) for f in CUBE.faces]
    faces[2] = faces[2][::-1]
    return sp.Polyhedron(CUBE.vertices, faces, name="flipped")


CASES = [
    # shapes
    ("box_negative_side", lambda: sp.Box(-0.1, 0.1, 0.1), "Box.lx"),
    ("box_nan_side", lambda: sp.Box(0.1, np.nan, 0.1), "Box.ly"),
    ("prism_concave", lambda: sp.Prism([(0, 0), (1, 0), (0.2, 0.2), (0, 1)], 0.1),
     "Prism.polygon"),
    ("prism_zero_height", lambda: sp.Prism(SQ, 0.0), "Prism.height"),
    ("hull_coplanar", lambda: sp.ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]),
     "ConvexHull.points"),
    ("hull_too_few", lambda: sp.ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0)]),
     "ConvexHull.points"),
    ("polyhedron_open", _open_cube, "lid_off"),
    ("polyhedron_flipped_face", _flipped_face, "flipped"),
    ("polyhedron_bad_index", lambda: sp.Polyhedron(
        CUBE.vertices, [[0, 1, 99]] + [list(f) for f in CUBE.faces[1:]], name="idx"), "idx"),
    ("polyhedron_nan_vertex", lambda: sp.Polyhedron(np.full((8, 3), np.nan), CUBE.faces),
     "vertices"),
    # model and bodies
    ("model_gravity_shape", lambda: sp.SpatialModel(gravity=(0, -9.81)), "gravity"),
    ("model_k_negative", lambda: sp.SpatialModel(k=-1.0), "Model.k"),
    ("model_lam_string", lambda: sp.SpatialModel(lam="0.001"), "Model.lam"),
    ("model_P_two", lambda: sp.SpatialModel(P=2), "P"),
    ("model_P_string", lambda: sp.SpatialModel(P="8"), "P"),
    ("model_mu_order", lambda: sp.SpatialModel(mu_s=0.2, mu_k=0.4), "mu_k"),
    ("model_patch", lambda: sp.SpatialModel(patch="slice"), "patch"),
    ("model_kinetic_iterations", lambda: sp.SpatialModel(kinetic_iterations=1.5),
     "kinetic_iterations"),
    ("model_restitution_above_one", lambda: sp.SpatialModel(restitution=1.2), "restitution"),
    ("ground_restitution_negative", lambda: _model().add_ground(mu_s=0.5, mu_k=0.3,
                                                                restitution=-0.1), "restitution"),
    ("ground_height_nan", lambda: _model().add_ground(mu_s=0.5, mu_k=0.3, height=np.nan),
     "height"),
    ("body_name_ground", lambda: sp.SpatialModel().add_body("ground", mass=1.0, shape=CUBE),
     "ground"),
    ("body_duplicate", lambda: _model().add_body("box", mass=1.0, shape=CUBE), "box"),
    ("body_mass_zero", lambda: sp.SpatialModel().add_body("b", mass=0.0, shape=CUBE), "mass"),
    ("body_shape_not_polyhedron", lambda: sp.SpatialModel().add_body("b", mass=1.0, shape="box"),
     "shape"),
    ("body_inertia_triangle", lambda: sp.SpatialModel().add_body(
        "rod", mass=1.0, inertia=(1.0, 1.0, 3.0), shape=CUBE), "rod"),
    ("body_inertia_asymmetric", lambda: sp.SpatialModel().add_body(
        "b", mass=1.0, inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]], shape=CUBE), "inertia"),
    ("body_inertia_negative", lambda: sp.SpatialModel().add_body(
        "b", mass=1.0, inertia=(1.0, -1.0, 1.0), shape=CUBE), "inertia"),
    ("body_zero_quaternion", lambda: sp.SpatialModel().add_body(
        "b", mass=1.0, shape=CUBE, orientation=(0, 0, 0, 0)), "orientation"),
    ("body_position_string", lambda: sp.SpatialModel().add_body(
        "b", mass=1.0, shape=CUBE, position="up"), "position"),
    ("body_velocity_nan", lambda: sp.SpatialModel().add_body(
        "b", mass=1.0, shape=CUBE, velocity=(0, np.nan, 0)), "velocity"),
    # simulate arguments
    ("sim_no_bodies", lambda: sp.SpatialModel().simulate(0.1), "add_body"),
    ("sim_t_end_string", lambda: _model().simulate("1"), "t_end"),
    ("sim_t_end_negative", lambda: _model().simulate(-0.1), "t_end"),
    ("sim_dt_zero", lambda: _model().simulate(0.1, dt=0.0), "dt"),
    ("sim_dt_string", lambda: _model().simulate(0.1, dt="1e-3"), "dt"),
    ("sim_dt_out_fraction", lambda: _model().simulate(0.1, dt=1e-3, dt_out=1.5e-3), "dt_out"),
    ("sim_method", lambda: _model().simulate(0.1, method="tsit5"), "method"),
    ("sim_friction", lambda: _model().simulate(0.1, friction="cone"), "friction"),
    ("sim_lp_solver", lambda: _model().simulate(0.1, lp_solver="glpk"), "lp_solver"),
    ("sim_contact_update", lambda: _model().simulate(0.1, contact_update="always"),
     "contact_update"),
    ("sim_stage_with_restitution", lambda: _model(restitution=0.5).simulate(
        0.1, contact_update="stage"), "contact_update"),
    # k·dt > 1 with a restitution: the position correction would lift a dropped box above its
    # drop (5 cm → 16 cm at dt = 0.01, k = 1000), under the energy guard's bound
    ("sim_restitution_step_beyond_1_over_k", lambda: _model(restitution=0.0).simulate(
        0.05, dt=0.01), "k·dt = 10"),
    ("sim_restitution_step_beyond_1_over_k_jax", lambda: _model(restitution=0.5).simulate(
        0.05, dt=0.005, engine="jax"), "k·dt = 5"),
    ("sim_initial_shape", lambda: _model().simulate(0.1, initial=np.zeros(12)), "initial"),
    ("sim_initial_nan", lambda: _model().simulate(0.1, initial=np.full((1, 13), np.nan)),
     "initial"),
    ("sim_initial_zero_quaternion", lambda: _model().simulate(0.1, initial=np.zeros((1, 13))),
     "initial"),
    ("sim_initial_other_model", lambda: _two((0.5, 0, 1)).simulate(
        0.02, initial=_model().simulate(0.01)), "initial"),      # t_end after the initial's
    ("sim_t0_after_t_end", lambda: _model().simulate(0.1, t0=0.2), "t_end"),
    ("sim_t0_nan", lambda: _model().simulate(0.1, t0=np.nan), "t0"),
    ("sim_forces_not_callable", lambda: _model().simulate(0.01, forces={"box": 3.0}),
     "forces"),
    ("sim_forces_unknown_body", lambda: _model().simulate(
        0.01, forces={"lid": lambda t, s: (np.zeros(3), np.zeros(3))}), "lid"),
    ("sim_forces_bad_wrench", lambda: _model().simulate(
        0.01, forces={"box": lambda t, s: np.zeros(3)}), "box"),
    ("sim_forces_nan", lambda: _model().simulate(
        0.01, forces={"box": lambda t, s: (np.array([np.nan, 0, 0]), np.zeros(3))}),
     "box"),
    ("sim_forces_type", lambda: _model().simulate(0.01, forces=[1, 2]), "forces"),
    ("sim_overlap_pair", lambda: _two((0.05, 0, 1)).simulate(0.01), "overlap volume"),
    ("sim_overlap_ground", lambda: _model().simulate(0.01, initial=np.array(
        [[0, 0, 0.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]])), "box"),
    ("sim_tunnel", lambda: _two((0.3, 0, 1)).simulate(0.01, initial=np.array(
        [[0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0.3, 0, 1, 1, 0, 0, 0, -200, 0, 0, 0, 0, 0]])),
     "dt <="),
    # static_friction_holds
    ("sfh_mu_negative", lambda: sp.static_friction_holds((1, 0), 0, SQ, mu_s=-0.5,
                                                         normal_force=9.81), "mu_s"),
    ("sfh_normal_zero", lambda: sp.static_friction_holds((1, 0), 0, SQ, mu_s=0.5,
                                                         normal_force=0.0), "normal_force"),
    ("sfh_force_shape", lambda: sp.static_friction_holds((1, 0, 0), 0, SQ, mu_s=0.5,
                                                         normal_force=9.81), "force"),
    ("sfh_force_text", lambda: sp.static_friction_holds("push", 0, SQ, mu_s=0.5,
                                                        normal_force=9.81), "force"),
    ("sfh_torque_nan", lambda: sp.static_friction_holds((1, 0), np.nan, SQ, mu_s=0.5,
                                                        normal_force=9.81), "torque"),
    ("sfh_footprint_shape", lambda: sp.static_friction_holds((1, 0), 0, [1, 2, 3], mu_s=0.5,
                                                             normal_force=9.81), "footprint"),
    ("sfh_solver", lambda: sp.static_friction_holds((1, 0), 0, SQ, mu_s=0.5, normal_force=9.81,
                                                    solver="simplex"), "solver"),
    ("sfh_P_float", lambda: sp.static_friction_holds((1, 0), 0, SQ, mu_s=0.5, normal_force=9.81,
                                                     P=4.5), "P"),
    ("sfh_mu_string", lambda: sp.static_friction_holds((1, 0), 0, SQ, mu_s="high",
                                                       normal_force=9.81), "mu_s"),
]


@pytest.mark.parametrize("case, expected", [(c[1], c[2]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_spatial_input_raises_a_named_stickslip_error(case, expected):
    with pytest.raises(ss.StickslipError) as err:
        case()
    assert expected in str(err.value)
