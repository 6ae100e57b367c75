"""Planar mechanism analysis (SPEC §9; Haug's DADS formulation).

Build a :class:`Model` from bodies, joints, drivers and force elements, then run its
analyses: :meth:`~Model.dof`, :meth:`~Model.assemble`, :meth:`~Model.kinematics`,
:meth:`~Model.simulate` (forward dynamics of the index-reduced DAE),
:meth:`~Model.inverse_dynamics` and :meth:`~Model.equilibrium`. Every analysis returns a
:class:`stickslip.Results` with channels ``<body>.x/.y/.phi`` (and ``…d``, ``…dd``),
``<joint>.Fx/.Fy/.T``, ``<driver>.effort`` and ``<element>.force``.

Shape: elements are immutable ``equinox`` modules (``_elements``, ``_forces``,
``_friction``, ``_impact``, ``_cam``; shared helpers in ``_base``); ``Model`` (``_model``,
building in ``_builder``) freezes into an immutable :class:`PlanarSystem` (``_system``);
the analyses are pure functions of it (``_analyses``; events in ``_events``); the
constrained equations and their one solver are in ``_dynamics`` (:class:`Dynamics`,
:class:`ConstrainedEquations`, :func:`schur_solve`).
"""

from ._body import Body as Body
from ._cam import CamFollowerJoint as CamFollowerJoint
from ._cam import trigonometric_profile as trigonometric_profile
from ._body import Ground as Ground
from ._elements import AbsoluteAngle as AbsoluteAngle
from ._elements import AbsoluteDistance as AbsoluteDistance
from ._elements import AbsoluteDriver as AbsoluteDriver
from ._elements import AbsoluteX as AbsoluteX
from ._elements import AbsoluteY as AbsoluteY
from ._elements import AbstractConstraint as AbstractConstraint
from ._elements import DistanceDriver as DistanceDriver
from ._elements import GearJoint as GearJoint
from ._elements import RelativeDriver as RelativeDriver
from ._elements import RevoluteJoint as RevoluteJoint
from ._elements import RevoluteRevoluteJoint as RevoluteRevoluteJoint
from ._elements import RevoluteTranslationalJoint as RevoluteTranslationalJoint
from ._elements import RotationalDriver as RotationalDriver
from ._elements import TranslationalDriver as TranslationalDriver
from ._elements import TranslationalJoint as TranslationalJoint
from ._elements import constant_speed as constant_speed
from ._elements import smooth_ramp as smooth_ramp
from ._forces import AbstractForceElement as AbstractForceElement
from ._forces import BodyTorque as BodyTorque
from ._forces import ConstantLoad as ConstantLoad
from ._forces import PointForce as PointForce
from ._forces import RotationalSpringDamper as RotationalSpringDamper
from ._forces import TranslationalSpringDamper as TranslationalSpringDamper
from ._friction import LuGreFriction as LuGreFriction
from ._impact import PointLineStop as PointLineStop
from ._impact import RevoluteStop as RevoluteStop
from ._impact import TranslationalStop as TranslationalStop
from ._dynamics import ConstrainedEquations as ConstrainedEquations
from ._dynamics import Dynamics as Dynamics
from ._dynamics import schur_solve as schur_solve
from ._contact import ClearanceSlider as ClearanceSlider
from ._contact import PointLineContact as PointLineContact
from ._contact_reference import moreau_jean as moreau_jean
from ._model import Model as Model
from ._system import PlanarSystem as PlanarSystem
from ._system import ProjectedPlanarSystem as ProjectedPlanarSystem
from ._plant import JointActuator as JointActuator
from ._plant import MechanismPlant as MechanismPlant
from . import examples as examples  # noqa: E402

__all__ = [
    "Model", "Body", "Ground", "PlanarSystem", "ProjectedPlanarSystem", "AbstractConstraint", "AbstractForceElement",
    "RevoluteJoint", "TranslationalJoint", "RevoluteRevoluteJoint",
    "RevoluteTranslationalJoint", "GearJoint", "CamFollowerJoint", "trigonometric_profile", "AbsoluteX", "AbsoluteY", "AbsoluteAngle",
    "AbsoluteDistance", "RotationalDriver", "TranslationalDriver", "AbsoluteDriver",
    "RelativeDriver", "DistanceDriver", "constant_speed", "smooth_ramp",
    "TranslationalSpringDamper", "RotationalSpringDamper", "PointForce", "BodyTorque", "ConstantLoad",
    "LuGreFriction", "PointLineStop", "TranslationalStop", "RevoluteStop",
    "Dynamics", "ConstrainedEquations", "schur_solve",
    "PointLineContact", "ClearanceSlider", "moreau_jean", "JointActuator", "MechanismPlant",
]
