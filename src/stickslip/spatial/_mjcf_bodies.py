"""The MJCF body tree: bodies, joints and welds in world poses, and the contact pairs
MuJoCo's filter lets touch: the body layer of the MJCF reader (see `_mjcf`)."""

from __future__ import annotations

import numpy as np

from ._mjcf_attrs import _Frame, _Geom
from ._mjcf_mass import _GeomReader
from ._mjcf_rotations import _matrix_quat
from ._mjcf_rules import _FIX, _IGNORED_TAGS, _JOINT_DEFAULTS, _limited
from ._mjcf_scene import MjcfBody, MjcfJoint


class _BodyReader(_GeomReader):
    """The bodies of <worldbody>, their joints, and the contacts between them."""

    # -- bodies
    def new_name(self, el, kind: str, index: int) -> str:
        name = el.get("name") or f"{kind}{index}"
        if name == "ground" or name in self.names:
            self.problem(el, f"the name '{name}' is taken ('ground' is stickslip's world; "
                             "bodies, joints and welds share one namespace). Rename it.")
        self.names.add(name)
        return name

    def read_children(self, el, rel: _Frame, body_frame: _Frame, body: str,
                      cls: str | None, *, world: bool, geoms: list | None) -> None:
        """Read the children of a body or <frame> `el`. `rel` is `el`'s frame relative to
        its body, `body_frame` the body's frame in the world, `body` the stickslip name new
        child bodies attach to. In a body, two passes: `geoms` a list (collect the geoms,
        report stray elements), then `geoms` None (read the child bodies)."""
        collect = world or geoms is not None
        for child in el:
            tag = child.tag
            if tag == "frame":
                a = self.attrs(child) if collect else child.attrib
                pos, rot = self.pose(child, a) if collect else self.pose_quiet(child)
                self.read_children(child, rel.compose(pos, rot), body_frame, body,
                                   a.get("childclass", cls), world=world, geoms=geoms)
            elif tag == "body":
                if world or geoms is None:
                    self.read_body(child, body_frame.compose(rel.pos, rel.rot), body, cls)
            elif not collect:
                continue
            elif tag == "geom":
                g = self.read_geom(child, cls, rel)
                if g is None:
                    continue
                if world:
                    self.world_geom(child, g)
                else:
                    assert geoms is not None, "collect and not world: geoms is a list"
                    geoms.append(g)
            elif tag in _IGNORED_TAGS:
                continue
            elif tag in ("inertial", "joint", "freejoint"):
                if world:
                    self.problem(child, f"<{tag}> in the world body. Move it into a <body>.")
                elif el.tag == "frame":
                    self.problem(child, f"<{tag}> inside a <frame>. Move it to the body.")
            elif tag in _FIX:
                self.problem(child, f"<{tag}> is not supported. {_FIX[tag]}")
            else:
                self.problem(child, f"unknown element <{tag}>. Remove it.")

    def pose_quiet(self, el):
        """A <frame>'s pose on the second pass (its problems were reported on the first)."""
        saved = self.problems.lines[:]
        out = self.pose(el, el.attrib)
        self.problems.lines = saved
        return out

    def world_geom(self, el, g: _Geom) -> None:
        if g.kind != "plane":
            self.problem(el, f"a {g.kind} geom in the world body: stickslip's only static "
                             "shape is the ground plane. Put it in a <body> (a body without "
                             "joint is welded to the world).")
            return
        if not g.collides:
            return
        if np.linalg.norm(g.rot[:, 2] - np.array([0.0, 0.0, 1.0])) > 1e-9:
            self.problem(el, f"the plane's normal {np.round(g.rot[:, 2], 6).tolist()} is not "
                             "(0, 0, 1): stickslip's ground is horizontal (z up). Rotate the "
                             "model so that the plane is horizontal.")
            return
        self.planes.append(g)
        if len(self.planes) == 2:
            self.problem(el, "a second plane: stickslip has one ground. Keep one plane.")

    def read_body(self, el, parent_frame: _Frame, parent: str, cls: str | None) -> None:
        a = self.attrs(el)
        self.body_count += 1
        name = self.new_name(el, "body", self.body_count)
        cls = a.get("childclass", cls)
        pos, rot = self.pose(el, a)
        frame = parent_frame.compose(pos, rot)
        joints = [c for c in el if c.tag in ("joint", "freejoint")]
        inertials = [c for c in el if c.tag == "inertial"]
        geoms: list[_Geom] = []
        identity = _Frame(np.zeros(3), np.eye(3))
        failures = self.geom_failures
        self.read_children(el, identity, frame, name, cls, world=False, geoms=geoms)
        geoms_ok = self.geom_failures == failures
        kinds = [self.joint_kind(j, cls) for j in joints]
        if len(joints) > 1:
            self.problem(el, f"has {len(joints)} joints; a stickslip joint joins two bodies "
                             "with one joint. Split the body into a chain of child bodies "
                             "with one joint each (each with mass), or use one ball joint.")
        static = not joints and parent in self.static
        mass, inertia, com, com_rot = self.mass_properties(el, inertials, geoms)
        collide = [g for g in geoms if g.collides and g.kind != "plane"]
        if len(collide) > 1:
            self.problem(el, f"has {len(collide)} collision geoms "
                             f"({', '.join(g.name for g in collide)}); a stickslip body "
                             "carries one convex shape. Put each extra geom in a child body "
                             "without joint (welded), or make it visual "
                             "(contype=\"0\" conaffinity=\"0\").")
        shape = self.shape(collide[0], com, com_rot) if collide else None
        if static and shape is None:
            # welded to the world and nothing can touch it: not a stickslip body; its
            # children attach to what it is welded to
            self.read_children(el, identity, frame, parent, cls, world=False, geoms=None)
            return
        if mass <= 0 and geoms_ok:
            self.problem(el, "has no mass (no <inertial>, no geom with volume, or "
                             "inertiafromgeom=\"false\"). Give it an <inertial> or a geom.")
        if mass <= 0:
            mass, inertia = 1.0, np.eye(3)
        self.bodies.append(MjcfBody(
            name=name, mass=float(mass), inertia=inertia,
            position=frame.pos + frame.rot @ com,
            orientation=_matrix_quat(frame.rot @ com_rot), shape=shape,
            friction=collide[0].friction if collide else 1.0,
            condim=collide[0].condim if collide else 3,
            frame_position=frame.pos, frame_rotation=frame.rot))
        if collide:
            self.collision_geoms.append((name, collide[0]))
        self.parent[name] = parent
        self.weld[name] = self.weld[parent] if not joints else name
        if not joints:
            weld = f"{name}.weld"
            if weld in self.names:
                self.problem(el, f"the name '{weld}' (its weld to the parent) is taken. "
                                 "Rename the body or the other element.")
            self.names.add(weld)
            self.joints.append(MjcfJoint("fixed", weld, parent, name))
            if static:
                self.static.add(name)
        elif len(joints) == 1 and kinds[0] != "free":
            self.read_joint(joints[0], cls, frame, parent, name)
        elif len(joints) == 1:
            self.joint_count += 1
            # <joint type="free"> takes its class's damping, stiffness, armature as MuJoCo
            # does (checked merged: a default damping was dropped and the body fell
            # undamped); <freejoint> has none
            if joints[0].tag == "freejoint":
                self.check_attrs(joints[0], joints[0].attrib)
            else:
                self.attrs(joints[0], cls, slot="joint")
            if joints[0].get("name"):
                self.new_name(joints[0], "joint", self.joint_count)
            self.joints.append(MjcfJoint("free", joints[0].get("name"), "ground", name))
        self.read_children(el, identity, frame, name, cls, world=False, geoms=None)

    def joint_kind(self, el, cls) -> str:
        if el.tag == "freejoint":
            return "free"
        name = el.get("class") or cls or "main"
        return el.get("type", self.defaults.get(name, {}).get("joint", {}).get("type", "hinge"))

    def read_joint(self, el, cls, frame: _Frame, parent: str, body: str) -> None:
        a = {**_JOINT_DEFAULTS, **self.attrs(el, cls, slot="joint")}
        self.joint_count += 1
        name = self.new_name(el, "joint", self.joint_count)
        kind = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical"}.get(a["type"])
        if kind is None:
            self.problem(el, f"type=\"{a['type']}\" is not hinge, slide, ball or free.")
            return
        for lim, rng in (("limited", "range"), ("actuatorfrclimited", "actuatorfrcrange")):
            if _limited(a, lim, rng, self.autolimits):
                what = "joint limits" if lim == "limited" else "joint actuator-force limits"
                self.problem(el, f"{rng}=\"{a.get(rng, '')}\" with {lim}=\"{a[lim]}\": "
                                 f"{what} are not supported. Remove {rng} (or set "
                                 f"{lim}=\"false\").")
        pos = self.floats(el, a, "pos", 3)
        axis = self.floats(el, a, "axis", 3)
        if pos is None or axis is None:
            return
        if np.linalg.norm(axis) < 1e-12:
            self.problem(el, "axis is zero. Give a direction.")
            return
        point = frame.pos + frame.rot @ pos
        w_axis = frame.rot @ (axis / np.linalg.norm(axis))
        self.joints.append(MjcfJoint(kind, name, parent, body, point,
                                     None if kind == "spherical" else w_axis))
        self.joint_kinds[name] = kind

    # -- contacts
    def contacts(self):
        """The ground and the contact pairs MuJoCo would collide, with their friction: the
        larger sliding coefficient of the two geoms (0 when the larger condim is 1).

        MuJoCo's filter: geoms of bodies welded together (the same weld group; all static
        bodies are one group with the world) never touch; with <flag filterparent> on (the
        default) a body does not touch its parent (weld groups, the world excepted); and
        contype/conaffinity must match."""
        ground = None
        pairs: list[tuple[str, str, float]] = []
        if self.planes:
            plane = self.planes[0]
            for body, g in self.collision_geoms:
                if self.weld[body] == "ground":
                    continue                    # static: MuJoCo never collides it
                if not _collide(plane, g):
                    self.problems.add(g.where, f"its contype/conaffinity exclude contact with "
                                               f"the plane '{plane.name}', but stickslip's "
                                               "ground touches every body with a shape. "
                                               "Make the masks match, or make it visual.")
                pairs.append(("ground", body, _pair_mu(plane, g)))
            mu_values = [mu for _, _, mu in pairs]
            mu = (max(sorted(set(mu_values)), key=mu_values.count)   # ties: the smallest
                  if mu_values else (plane.friction if plane.condim != 1 else 0.0))
            ground = {"height": float(plane.pos[2]), "mu": float(mu), "geom": plane.name}
        geoms = self.collision_geoms
        for i in range(len(geoms)):
            for j in range(i + 1, len(geoms)):
                (a, ga), (b, gb) = geoms[i], geoms[j]
                if _collide(ga, gb) and not self.filtered(a, b):
                    pairs.append((a, b, _pair_mu(ga, gb)))
        return ground, pairs

    def filtered(self, a: str, b: str) -> bool:
        """Whether MuJoCo's body filter keeps bodies a and b from touching."""
        wa, wb = self.weld[a], self.weld[b]
        if wa == wb:
            return True
        if not self.filterparent or "ground" in (wa, wb):
            return False
        return wa == self.weld[self.parent[wb]] or wb == self.weld[self.parent[wa]]


def _collide(a: _Geom, b: _Geom) -> bool:
    """MuJoCo's collision filter: contype of one against conaffinity of the other."""
    return bool((a.contype & b.conaffinity) or (b.contype & a.conaffinity))


def _pair_mu(a: _Geom, b: _Geom) -> float:
    return 0.0 if max(a.condim, b.condim) == 1 else max(a.friction, b.friction)
