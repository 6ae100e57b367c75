"""3-D multibody: link systems in the JAX core, and volume-based rigid contact (SPEC §7).

**Link systems** (`SpatialModel` with joints, drivers, loads, spring–dampers, joint friction
or point contacts; see docs/links.md): the model freezes into a `LinkSystem`, a plain
``ss.simulate``-able system — one jitted ``lax.scan`` per run, ``vmap`` over its arrays,
``jax.grad`` through it — whose contacts are solved with the joints as one λ-problem
(SPEC §6). `from_mjcf` reads the MJCF subset that maps onto these elements.

**Volume contact** (free convex bodies and the ground; N. Wakisaka and T. Sugihara, "Rigid
contact force computation based on contact volume with pyramidal approximation of frictional
constraint"): host side — the contact force is a small QP and LP per step, compiled with
numba on first use and cached on disk; the general polyhedron clip and the public helpers
stay NumPy.
"""

from typing import TYPE_CHECKING

from ._friction import static_friction_holds as static_friction_holds
from ._model import BodyState as BodyState
from ._model import ContactRecord as ContactRecord
from ._model import Model as Model
from ._model import SpatialModel as SpatialModel
from ._shapes import Box as Box
from ._shapes import ConvexHull as ConvexHull
from ._shapes import Sphere as Sphere
from ._mjcf import from_mjcf as from_mjcf
from ._elements import BodyTorque as BodyTorque
from ._elements import ContactPair as ContactPair
from ._elements import FixedJoint as FixedJoint
from ._elements import FreeJoint as FreeJoint
from ._elements import JointDriver as JointDriver
from ._elements import PointForce as PointForce
from ._elements import PrismaticJoint as PrismaticJoint
from ._elements import RevoluteJoint as RevoluteJoint
from ._elements import SphericalJoint as SphericalJoint
from ._elements import SpringDamper as SpringDamper
from ._shapes import Polyhedron as Polyhedron
from ._shapes import Prism as Prism
from ._volume import ContactGeometry as ContactGeometry
from ._volume import ContactVolume as ContactVolume
from ._volume import contact_geometry as contact_geometry
from ._volume import intersect as intersect

__all__ = ["SpatialModel", "Model", "BodyState", "ContactRecord", "Polyhedron", "Box", "Prism", "ConvexHull",
           "ContactVolume", "ContactGeometry", "intersect", "contact_geometry",
           "static_friction_holds", "PointContacts", "Sphere", "RevoluteJoint",
           "PrismaticJoint", "SphericalJoint", "FixedJoint", "FreeJoint", "JointDriver",
           "PointForce", "BodyTorque", "SpringDamper", "ContactPair", "from_mjcf"]

if TYPE_CHECKING:              # for static tools (documentation, type checkers)
    from ._point_contacts import PointContacts as PointContacts


def __getattr__(name):
    # PointContacts (the λ-problem on JAX) loads on first use: the volume method's host-side
    # code starts without JAX
    if name == "PointContacts":
        from ._point_contacts import PointContacts

        globals()[name] = PointContacts
        return PointContacts
    raise AttributeError(f"module 'stickslip.spatial' has no attribute {name!r}")
