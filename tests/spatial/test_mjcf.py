"""`from_mjcf`: MuJoCo MJCF files into a `SpatialModel` (issue 20, item 7).

The model files live in ``tests/spatial/mjcf/``. Structure is checked against hand-computed
values everywhere and, where ``mujoco`` is installed, against ``mujoco.MjModel`` after
``mj_forward`` (``body_mass``, ``xipos``, ``ximat``/``body_inertia``, ``xanchor``,
``xaxis``, ``xquat``); trajectories against MuJoCo's RK4 integrator.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ModelError, ParameterError
from stickslip.spatial._mjcf import MjcfScene, from_mjcf, read_mjcf

MJCF = Path(__file__).parent / "mjcf"
LOADABLE = ["pendulum", "chain3", "box_on_plane", "actuated", "mass_zoo"]


def quat_matrix(q):
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def mujoco_model(name: str):
    mujoco = pytest.importorskip("mujoco")
    m = mujoco.MjModel.from_xml_path(str(MJCF / f"{name}.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return mujoco, m, d


def write(tmp_path, body: str, head: str = "") -> Path:
    path = tmp_path / "model.xml"
    path.write_text(f"<mujoco>{head}<worldbody>{body}</worldbody></mujoco>")
    return path


# --- structure ---------------------------------------------------------------------------

def test_pendulum_structure_matches_hand_computation():
    # rod: box 0.04 × 0.04 × 0.5 m, density 2000 → 1.6 kg; hinge about y at (0, 0, 1); the
    # body is turned 60° about y, so the centre of mass (0.25 m down the rod) is at
    # (−0.25 sin 60°, 0, 1 − 0.25 cos 60°)
    model = from_mjcf(MJCF / "pendulum.xml")
    (rod,) = model.bodies
    m = 2000 * 0.04 * 0.04 * 0.5
    assert rod.name == "link" and rod.mass == pytest.approx(m, rel=1e-14)
    s60, c60 = math.sin(math.pi / 3), math.cos(math.pi / 3)
    np.testing.assert_allclose(rod.state[:3], [-0.25 * s60, 0, 1 - 0.25 * c60], atol=1e-15)
    np.testing.assert_allclose(rod.state[3:7], [math.cos(math.pi / 6), 0, math.sin(math.pi / 6),
                                                0], atol=1e-15)
    np.testing.assert_allclose(rod.state[7:], 0.0)
    np.testing.assert_allclose(rod.inertia, m / 12 * np.diag([0.04 ** 2 + 0.5 ** 2] * 2
                                                             + [2 * 0.04 ** 2]), rtol=1e-13)
    assert rod.shape.size == pytest.approx((0.04, 0.04, 0.5))      # Box: full sides
    (hinge,) = model.elements
    assert isinstance(hinge, ss.spatial.RevoluteJoint)
    assert (hinge.name, hinge.body_i, hinge.body_j) == ("hinge", "ground", "link")
    np.testing.assert_allclose(hinge.point, [0, 0, 1])
    np.testing.assert_allclose(hinge.axis, [0, 1, 0])
    assert model.ground is None
    np.testing.assert_allclose(model.gravity, [0, 0, -9.81])
    assert read_mjcf(MJCF / "pendulum.xml").timestep == 1e-4


@pytest.mark.parametrize("name", LOADABLE)
def test_structure_matches_mujoco(name):
    # bodies: mass, centre of mass (xipos) and the world inertia tensor
    # (ximat diag(body_inertia) ximatᵀ, ours R I Rᵀ: the inertial frames may differ by a
    # rotation, the tensors may not); joints: anchor and axis. All to round-off, except
    # MuJoCo's mesh computation in float32 (the actuated cart: 1e-7 relative).
    mujoco, m, d = mujoco_model(name)
    model = from_mjcf(MJCF / f"{name}.xml")
    rtol = 1e-6 if name == "actuated" else 1e-12
    for body in model.bodies:
        i = m.body(body.name).id
        assert body.mass == pytest.approx(m.body_mass[i], rel=rtol)
        np.testing.assert_allclose(body.state[:3], d.xipos[i], rtol=0, atol=rtol)
        r = quat_matrix(body.state[3:7])
        rm = d.ximat[i].reshape(3, 3)
        np.testing.assert_allclose(r @ body.inertia @ r.T, rm @ np.diag(m.body_inertia[i]) @ rm.T,
                                   rtol=0, atol=rtol * m.body_inertia[i].max())
    # every moving MuJoCo body is a stickslip body; static ones without geoms drop out
    moving = {m.body(i).name for i in range(1, m.nbody) if m.body_weldid[i] != 0}
    assert moving <= {b.name for b in model.bodies}
    joints = [e for e in model.elements if isinstance(
        e, (ss.spatial.RevoluteJoint, ss.spatial.PrismaticJoint, ss.spatial.SphericalJoint))]
    assert len(joints) == sum(m.jnt_type[k] != mujoco.mjtJoint.mjJNT_FREE for k in range(m.njnt))
    for joint in joints:
        k = m.joint(joint.name).id
        np.testing.assert_allclose(joint.point, d.xanchor[k], rtol=0, atol=1e-12)
        if hasattr(joint, "axis"):
            np.testing.assert_allclose(joint.axis, d.xaxis[k], rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.gravity, m.opt.gravity)


@pytest.mark.parametrize("attrs", [
    'euler="30 40 50"',
    'euler="0.3 0.4 0.5"',
    'euler="30 -40 50"',
    'axisangle="1 2 3 70"',
    'xyaxes="0 1 0.2 -1 0 0.3"',
    'zaxis="1 -2 0.5"',
    'quat="0.3 -0.5 0.2 0.7"',
])
@pytest.mark.parametrize("compiler", ['', '<compiler angle="radian"/>',
                                      '<compiler eulerseq="zyx"/>',
                                      '<compiler eulerseq="XYZ"/>',
                                      '<compiler eulerseq="zXy" angle="radian"/>'])
def test_orientation_conventions_match_mujoco(tmp_path, attrs, compiler):
    mujoco = pytest.importorskip("mujoco")
    path = write(tmp_path, f'<body name="b" pos="0.1 0.2 0.3"><body name="c" {attrs}>'
                           '<joint axis="1 0 0"/><geom type="box" size="0.1 0.2 0.3"/>'
                           '</body></body>', compiler)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    (body,) = read_mjcf(path).bodies
    np.testing.assert_allclose(body.frame_rotation, d.xmat[m.body("c").id].reshape(3, 3),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("compiler", ['', '<compiler inertiafromgeom="true"/>',
                                      '<compiler inertiafromgeom="false"/>'])
def test_inertiafromgeom_and_childclass_match_mujoco(tmp_path, compiler):
    # childclass gives the joint its axis and the geoms their density; with
    # inertiafromgeom="true" the <inertial> is overridden by the geoms
    mujoco = pytest.importorskip("mujoco")
    head = compiler + ('<default><geom contype="0" conaffinity="0"/>'
                       '<default class="light"><joint axis="0 1 0"/>'
                       '<geom density="200"/></default></default>')
    path = write(tmp_path, '<body name="a" pos="0 0 1" childclass="light"><joint name="j"/>'
                           '<inertial pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.25"/>'
                           '<geom type="box" size="0.1 0.2 0.3" pos="0 0 -0.3"/>'
                           '<geom type="sphere" size="0.1" pos="0.2 0 0" class="main"/></body>',
                 head)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    scene = read_mjcf(path)
    (body,) = scene.bodies
    assert body.mass == pytest.approx(m.body_mass[1], rel=1e-13)
    np.testing.assert_allclose(body.position, d.xipos[1], atol=1e-13)
    r, rm = quat_matrix(body.orientation), d.ximat[1].reshape(3, 3)
    np.testing.assert_allclose(r @ body.inertia @ r.T, rm @ np.diag(m.body_inertia[1]) @ rm.T,
                               atol=1e-13)
    np.testing.assert_allclose(scene.joints[0].axis, d.xaxis[0], atol=1e-15)


def test_chain_reads_defaults_frames_and_inertial_frames():
    scene = read_mjcf(MJCF / "chain3.xml")
    assert [b.name for b in scene.bodies] == ["link1", "link2", "link3"]
    assert all(b.shape is None for b in scene.bodies)        # visual geoms: mass, no shape
    assert [j.kind for j in scene.joints] == ["revolute"] * 3
    assert [(j.body_i, j.body_j) for j in scene.joints] == [
        ("ground", "link1"), ("link1", "link2"), ("link2", "link3")]
    # link2: the <inertial> frame is the body frame; its diagonal inertia is kept as given
    link2 = scene.bodies[1]
    assert link2.mass == 0.7
    np.testing.assert_allclose(link2.inertia, np.diag([0.01, 0.012, 0.004]))
    np.testing.assert_allclose(quat_matrix(link2.orientation),
                               link2.frame_rotation @ quat_matrix([0.8, 0.2, -0.1, 0.3]),
                               atol=1e-15)
    # j2 takes the "cross" class's axis (1, 0, 0), turned with link2's frame
    np.testing.assert_allclose(scene.joints[1].axis, link2.frame_rotation[:, 0], atol=1e-15)


def test_box_on_plane_maps_ground_friction_and_free_joint():
    model = from_mjcf(MJCF / "box_on_plane.xml")
    (box,) = model.bodies
    assert box.name == "box" and box.mass == 1.0
    assert box.shape.size == pytest.approx((0.1, 0.1, 0.1))
    np.testing.assert_allclose(box.state[:3], [0, 0, 0.15])
    # MuJoCo's pair friction: max(plane 0.5, cube 0.3)
    assert model.ground == {"mu_s": 0.5, "mu_d": 0.5, "height": 0.1, "restitution": None}
    assert model.elements == []                  # a free joint is no element: volume route
    assert not model.uses_link_route()


def test_actuated_maps_slide_weld_ball_mesh_and_motor():
    model = from_mjcf(MJCF / "actuated.xml", controls={"push": 0.7})
    assert [b.name for b in model.bodies] == ["cart", "plate", "ball"]   # "base" is static
    kinds = [(type(e).__name__, getattr(e, "name", None)) for e in model.elements]
    assert kinds == [("PrismaticJoint", "rail"), ("FixedJoint", "plate.weld"),
                     ("SphericalJoint", "socket"), ("JointDriver", "push")]
    rail, weld, socket, driver = model.elements
    assert (rail.body_i, weld.body_i, weld.body_j, socket.body_i) == (
        "ground", "cart", "plate", "plate")
    assert driver.joint == "rail" and driver.mode == "effort"
    assert float(driver.value) == pytest.approx(2 * 0.7)          # gear · u
    cart, plate, ball = model.bodies
    assert isinstance(cart.shape, ss.spatial.Polyhedron) and len(cart.shape.vertices) == 6
    # the mesh, scaled by (1, 1, 2), re-expressed about its centre of mass
    assert cart.shape.volume == pytest.approx(0.2 * 0.1 * 0.2 / 2, rel=1e-12)
    np.testing.assert_allclose(cart.shape.centroid, 0.0, atol=1e-15)
    assert isinstance(ball.shape, ss.spatial.Sphere) and ball.shape.radius == 0.05
    # the plate's box geom is turned 10° about x in the body: a turned polyhedron
    assert isinstance(plate.shape, ss.spatial.Polyhedron)
    assert plate.shape.volume == pytest.approx(0.2 * 0.1 * 0.02, rel=1e-12)
    np.testing.assert_allclose(plate.shape.normals[0], [0, math.sin(math.radians(10)),
                                                        -math.cos(math.radians(10))], atol=1e-12)
    # MuJoCo lets none of them touch: welded together or parent and child
    assert read_mjcf(MJCF / "actuated.xml").contacts == []


def test_motor_controls_are_clipped_to_ctrlrange():
    jnp = pytest.importorskip("jax.numpy")
    for u, effort in ((0.5, 1.0), (3.0, 2.0), (-7.0, -2.0)):
        (driver,) = [e for e in from_mjcf(MJCF / "actuated.xml", controls={"push": u}).elements
                     if isinstance(e, ss.spatial.JointDriver)]
        assert float(driver.value) == effort
    model = from_mjcf(MJCF / "actuated.xml", controls={"push": lambda t: jnp.sin(t) * 4})
    driver = model.elements[-1]
    assert float(driver.value(0.1)) == pytest.approx(2 * 4 * math.sin(0.1))
    assert float(driver.value(1.0)) == 2.0
    assert float(from_mjcf(MJCF / "actuated.xml").elements[-1].value) == 0.0   # default u = 0


def test_unknown_control_names_the_motors():
    with pytest.raises(ParameterError, match=r"\['pull'\].*motors are \['push'\]"):
        from_mjcf(MJCF / "actuated.xml", controls={"pull": 1.0})
    with pytest.raises(ParameterError, match="controls\\['push'\\]"):
        from_mjcf(MJCF / "actuated.xml", controls={"push": "on"})


def test_mass_from_geoms_hand_computed():
    scene = read_mjcf(MJCF / "mass_zoo.xml")
    bodies = {b.name: b for b in scene.bodies}
    assert bodies["ellipsoid"].mass == pytest.approx(300 * 4 / 3 * math.pi * 0.1 * 0.2 * 0.3)
    assert bodies["cylinder"].mass == 2.0
    r, length = 0.04, math.sqrt(0.3 ** 2 + 0.1 ** 2 + 0.2 ** 2)
    assert bodies["capsule"].mass == pytest.approx(1000 * math.pi * r * r * (length + 4 * r / 3))
    assert all(j.kind == "free" for j in scene.joints)


def test_ground_pairs_follow_mujoco_filter(tmp_path):
    # a hinged arm over a plane with a free box: MuJoCo lets the arm and the box touch the
    # ground and each other; link-system route, so the pairs become ContactPairs, the
    # box's different ground friction (max(0.4, 0.9)) as its own pair
    path = write(tmp_path, '<geom type="plane" size="0 0 1" friction="0.4"/>'
                           '<body name="arm" pos="0 0 1"><joint name="j" axis="0 1 0"/>'
                           '<geom type="box" size="0.3 0.05 0.05" pos="0.3 0 0" friction="0.4"/>'
                           '</body>'
                           '<body name="box" pos="2 0 0.2"><freejoint/>'
                           '<geom type="box" size="0.1 0.1 0.1" friction="0.9"/></body>')
    scene = read_mjcf(path)
    assert scene.contacts == [("ground", "arm", 0.4), ("ground", "box", 0.9),
                              ("arm", "box", 0.9)]
    model = from_mjcf(path)
    pairs = [(e.body_a, e.body_b, e.mu) for e in model.elements
             if isinstance(e, ss.spatial.ContactPair)]
    assert pairs == [("ground", "box", 0.9), ("arm", "box", 0.9)]
    assert model.ground["mu_s"] == model.ground["mu_d"] == 0.4


def test_contact_filter_matches_mujoco(tmp_path):
    # every geom overlaps every other at the origin, so MuJoCo reports a contact for each
    # pair its filter lets through: same weld group (b1–b2 welded, static s–ground), parent
    # and child (a–b1, b1–c), contype/conaffinity (m against the others' defaults; the
    # plane's masks take both)
    mujoco = pytest.importorskip("mujoco")
    box = '<geom type="box" size="0.2 0.2 0.2"{}/>'
    masked = box.format(' contype="2" conaffinity="2"')
    path = write(tmp_path,
                 '<geom type="plane" size="0 0 1" contype="3" conaffinity="3"/>'
                 f'<body name="s">{box.format("")}</body>'
                 f'<body name="a"><joint axis="1 0 0"/>{box.format("")}'
                 f'  <body name="b1"><joint axis="0 1 0"/>{box.format("")}'
                 f'    <body name="b2">{box.format("")}'
                 f'      <body name="c"><joint axis="0 0 1"/>{box.format("")}</body></body>'
                 '  </body></body>'
                 f'<body name="f"><freejoint/>{box.format("")}</body>'
                 f'<body name="m"><freejoint/>{masked}</body>')
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    names = ["ground"] + [m.body(i).name for i in range(1, m.nbody)]
    theirs = {frozenset((names[m.geom_bodyid[c.geom1]], names[m.geom_bodyid[c.geom2]]))
              for c in d.contact[:d.ncon]}
    ours = {frozenset(pair[:2]) for pair in read_mjcf(path).contacts}
    assert ours == theirs and len(ours) > 5


def test_curved_geoms_need_curved_segments(tmp_path):
    path = write(tmp_path, '<body name="c"><freejoint/>'
                           '<geom type="capsule" size="0.05 0.2"/></body>')
    with pytest.raises(ModelError, match=r"line 1: <geom>: a capsule collision geom.*"
                                         "curved_segments"):
        read_mjcf(path)
    (body,) = read_mjcf(path, curved_segments=16).bodies
    assert body.shape.kind == "hull"
    # the hull is inscribed: its points lie on the capsule's surface
    p = body.shape.points
    radial = np.hypot(p[:, 0], p[:, 1])
    assert np.all(radial <= 0.05 + 1e-15) and np.max(np.abs(p[:, 2])) == pytest.approx(0.25)
    # the mass keeps MuJoCo's exact formula
    assert body.mass == pytest.approx(1000 * (math.pi * 0.05 ** 2 * 0.4
                                              + 4 / 3 * math.pi * 0.05 ** 3))
    model = from_mjcf(path, curved_segments=16)
    assert isinstance(model.bodies[0].shape, ss.spatial.Polyhedron)
    with pytest.raises(ParameterError, match="curved_segments"):
        read_mjcf(path, curved_segments=3)


# --- what is not supported ---------------------------------------------------------------

def test_unsupported_elements_are_all_named_once():
    with pytest.raises(ModelError) as info:
        from_mjcf(MJCF / "unsupported.xml")
    message = str(info.value)
    lines = message.splitlines()[1:]
    assert message.splitlines()[0].endswith("see its docstring):")
    assert "16 problems" in message.splitlines()[0] and len(lines) == 16
    expected = [
        "line 4: <include>", "line 5: <option>: attribute wind=",
        "line 10: <geom name='rock'>: a box geom in the world body",
        "line 12: <joint name='ja'>: attribute damping=",       # from <default>
        "line 12: <joint name='ja'>: attribute armature=",
        "line 12: <joint name='ja'>: range=\"-30 30\" with limited=\"auto\"",
        "line 13: <geom name='arm'>: attribute solref=",
        "line 13: <geom name='arm'>: a capsule collision geom",
        "line 14: <body name='b'>: has 2 joints",
        "line 14: <body name='b'>: has 2 collision geoms (b1, b2)",
        "line 22: <equality>", "line 25: <tendon>", "line 28: <sensor>",
        "line 32: <position name='servo'>", "line 33: <velocity name='speed'>",
        "line 35: <contact>",
    ]
    for line, start in zip(lines, expected):
        assert line.strip().startswith(start), (line, start)
    # every line says what to do
    assert all(any(w in line for w in ("Remove", "Replace", "Paste", "Put", "Split", "Pass",
                                       "Give", "Move", "remove")) for line in lines)


@pytest.mark.parametrize("name, pattern", [
    ("tilted_plane", r"line 4: <geom name='slope'>: the plane's normal .* is not \(0, 0, 1\)"),
    ("mesh_file", r"line 4: <mesh name='part'>: mesh file \"part.stl\" is not read"),
    ("friction_mismatch", r"friction with the ground differs between bodies "
                          r"\(rough: 0.8, smooth: 0.5\)"),
])
def test_unsupported_cases_are_named(name, pattern):
    with pytest.raises(ModelError, match=pattern):
        from_mjcf(MJCF / f"{name}.xml")


@pytest.mark.parametrize("body, pattern", [
    ('<body name="a"><joint damping="0"/><geom type="box" size="1 1 1"/></body>', None),
    ('<body name="a"><joint stiffness="2"/><geom type="box" size="1 1 1"/></body>',
     "stiffness=\"2\" is not supported"),
    ('<body name="a"><joint frictionloss="0.1"/><geom type="box" size="1 1 1"/></body>',
     "frictionloss=\"0.1\" is not supported .* friction law"),
    ('<body name="a"><joint range="0 1" limited="false"/><geom type="box" size="1 1 1"/>'
     '</body>', None),
    ('<body name="a" mocap="true"><geom type="box" size="1 1 1"/></body>', "mocap"),
    ('<body name="a"><joint/><geom type="box" size="1 1 1" margin="0.01"/></body>',
     "margin=\"0.01\""),
    ('<body name="a"><joint/><geom type="box" size="1 1 1" condim="6"/></body>',
     "condim=\"6\": torsional and rolling"),
    ('<body name="a"><joint/><geom type="hfield"/></body>', "type=\"hfield\""),
    ('<body name="a"><joint/></body>', "<body name='a'>: has no mass"),
    ('<body name="ground"><joint/><geom type="box" size="1 1 1"/></body>', "name 'ground'"),
    ('<body name="a"><joint/><geom type="box" size="1 1 1" class="nope"/></body>',
     "class 'nope' is not defined"),
    ('<body name="a"><joint/><geom type="box" size="1 1 1" foo="1"/></body>',
     "attribute foo=\"1\" is not supported"),
])
def test_attribute_rules(tmp_path, body, pattern):
    path = write(tmp_path, body)
    if pattern is None:
        assert isinstance(read_mjcf(path), MjcfScene)
    else:
        with pytest.raises(ModelError, match=pattern):
            read_mjcf(path)


HULL = ('<asset><mesh name="m" maxhullvert="4" vertex="0.1 0 0  -0.1 0 0  0 0.1 0  0 -0.1 0'
        '  0 0 0.1  0 0 -0.15"/></asset>')
BOX = '<geom type="box" size="1 1 1"/>'


# each of these ran without a word and differed from MuJoCo (a fuzz campaign against MuJoCo
# 4.0, 2026-11-27): a box fitted to a mesh took its own size; a group-6 geom counted in the
# mass; a class's damping on a free joint was dropped; a motor on a ball joint was left out;
# a disabled actuator group still pushed; sleeping bodies still moved; maxhullvert's reduced
# hull was not used
@pytest.mark.parametrize("head, body, tail, pattern", [
    ('<asset><mesh name="m" vertex="0 0 0  0.1 0 0  0 0.2 0  0 0 0.3"/></asset>',
     '<body name="a"><joint/><geom type="box" mesh="m" size="1 1 1"/></body>', "",
     "a box fitted to mesh 'm' is not supported"),
    ("", f'<body name="a"><joint/>{BOX[:-2]} group="6"/></body>', "",
     "group=\"6\": a geom outside groups 0-5 has no mass in MuJoCo"),
    ("", f'<body name="a"><joint/>{BOX[:-2]} group="2"/></body>', "", None),
    ('<default><default class="soft"><joint damping="0.5"/></default></default>',
     f'<body name="a"><joint type="free" class="soft"/>{BOX}</body>', "",
     "damping=\"0.5\" is not supported"),
    ("", f'<body name="a"><joint type="free"/>{BOX}</body>', "", None),
    ("", f'<body name="b"><joint name="k" type="ball"/>{BOX}</body>',
     '<actuator><motor joint="k"/></actuator>',
     "joint 'k' is a ball joint; motors on ball joints are not supported"),
    ('<option actuatorgroupdisable="0"/>', f'<body name="a"><joint name="j"/>{BOX}</body>',
     '<actuator><motor joint="j"/></actuator>', "actuatorgroupdisable=\"0\" is not supported"),
    ('<option><flag sleep="enable"/></option>', f'<body name="a"><joint/>{BOX}</body>', "",
     "sleep=\"enable\" is not supported"),
    (HULL, '<body name="a"><joint/><geom type="mesh" mesh="m"/></body>', "",
     "maxhullvert=\"4\" is not supported"),
    # MuJoCo rejects these; they were read as the identity
    ("", f'<body name="a" quat="0 0 0 0"><joint/>{BOX}</body>', "", "zero quaternion"),
    ("", f'<body name="a" axisangle="0 0 0 30"><joint/>{BOX}</body>', "", "zero axis"),
    ("", f'<body name="a" zaxis="0 0 0"><joint/>{BOX}</body>', "", "zero axis"),
])
def test_what_mujoco_runs_differently_is_refused(tmp_path, head, body, tail, pattern):
    path = tmp_path / "model.xml"
    path.write_text(f"<mujoco>{head}<worldbody>{body}</worldbody>{tail}</mujoco>")
    if pattern is None:
        assert isinstance(read_mjcf(path), MjcfScene)
    else:
        with pytest.raises(ModelError, match=pattern):
            read_mjcf(path)


@pytest.mark.parametrize("head", [
    # a second <compiler> reset the first's angle="radian" to degrees
    '<compiler angle="radian"/><compiler autolimits="true"/>',
    # a second top-level <default> replaced the first (its density was lost)
    '<default><geom density="100"/></default><default><joint axis="0 1 0"/></default>',
])
def test_repeated_compiler_and_default_elements_add_up_as_in_mujoco(tmp_path, head):
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "model.xml"
    path.write_text(f'<mujoco>{head}<worldbody><body name="b" pos="0 0 1" euler="0 1.2 0">'
                    '<joint/><geom type="box" size="0.02 0.02 0.2" pos="0 0 -0.2"/>'
                    '<geom type="sphere" size="0.05" pos="0.2 0 0" contype="0" '
                    'conaffinity="0"/></body></worldbody>'
                    '</mujoco>')
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    (body,) = read_mjcf(path).bodies
    assert body.mass == pytest.approx(m.body_mass[1], rel=1e-12)
    np.testing.assert_allclose(body.position, d.xipos[1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(body.frame_rotation, d.xmat[1].reshape(3, 3), rtol=0,
                               atol=1e-12)


def test_a_body_with_only_an_inertial_keeps_it_under_inertiafromgeom_true(tmp_path):
    # MuJoCo overrides an <inertial> with the geoms' mass, and keeps it in a body without
    # geoms (stickslip refused that body: "has no mass")
    path = write(tmp_path, '<body name="b" pos="0 0 1"><joint axis="0 1 0"/><inertial '
                           'pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.3"/></body>',
                 '<compiler inertiafromgeom="true"/>')
    (body,) = read_mjcf(path).bodies
    assert body.mass == 2.0
    np.testing.assert_allclose(body.position, (0.1, 0, 1), atol=1e-15)


def test_unreadable_files_are_model_errors(tmp_path):
    with pytest.raises(ModelError, match="cannot read the MJCF file"):
        from_mjcf(tmp_path / "missing.xml")
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody></mujoco>")
    with pytest.raises(ModelError, match="not well-formed XML"):
        from_mjcf(bad)
    urdf = tmp_path / "robot.urdf"
    urdf.write_text("<robot name='r'/>")
    with pytest.raises(ModelError, match="not <mujoco>"):
        from_mjcf(urdf)


# --- trajectories against MuJoCo ---------------------------------------------------------

# Both integrate with RK4 at Δt = 1 ms, MuJoCo in joint coordinates, stickslip in body
# coordinates with stabilised joint rows: the two truncation errors (O(Δt⁴), ~1e-9 m here)
# differ, nothing else. Measured: pendulum 3.3e-9 m over 1 s, chain 4.2e-9 m over 2 s,
# actuated 7.6e-9 m over 1 s. The tolerance, 1e-6 m, leaves a margin of >100 for
# stabilisation settings, yet a mapping error (mass, inertia, a pose, a joint axis, the
# motor's gear) shows as millimetres within the first 0.1 s.
TRAJECTORY_TOL = 1e-6


@pytest.mark.parametrize("name, t_end, controls", [
    ("pendulum", 1.0, None),
    ("chain3", 1.0, None),
    ("actuated", 1.0, {"push": 0.7}),
])
def test_trajectory_matches_mujoco(name, t_end, controls):
    if not hasattr(ss.spatial, "RevoluteJoint"):
        pytest.skip("ss.spatial.RevoluteJoint is missing: the link-system engine is needed")
    mujoco, m, d = mujoco_model(name)
    dt = 1e-3
    model = from_mjcf(MJCF / f"{name}.xml", controls=controls)
    res = model.simulate(t_end, dt=dt, dt_out=0.01, method="rk4")
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = dt
    for k, u in (controls or {}).items():
        d.ctrl[m.actuator(k).id] = u
    ours = {b.name: np.stack([res[f"{b.name}.{c}"] for c in "xyz"], axis=1)
            for b in model.bodies}
    theirs = {b.name: [] for b in model.bodies}
    qpos = []
    for t in res.t:
        while d.time < t - dt / 2:
            mujoco.mj_step(m, d)
        for b in model.bodies:
            theirs[b.name].append(d.xipos[m.body(b.name).id].copy())
        qpos.append(d.qpos[0])
    for b in model.bodies:
        assert np.ptp(ours[b.name], axis=0).max() > 0.1        # it moved
        err = np.abs(ours[b.name] - np.array(theirs[b.name])).max()
        assert err < TRAJECTORY_TOL, (b.name, err)
    # the first joint's coordinate, same sign convention as MuJoCo's qpos
    first = model.elements[0]
    channel = f"{first.name}.{first.coordinate}"
    assert np.abs(res[channel] - np.array(qpos)).max() < TRAJECTORY_TOL
