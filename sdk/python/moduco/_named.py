"""Named access: ``d.body("torso").xpos``, ``m.joint("hip").qposadr``, ``m.geom(3).type``.

The attributes of each object kind are derived from the generated field tables (the X-macro
lists of mcmodel.h and mcdata.h): every array whose rows are that kind's count, with the kind's
prefix removed, plus the slices of qpos/qvel-sized arrays for joints, of act-sized arrays for
actuators and of sensordata for sensors. Views share memory with the model or data.
"""

import numpy as np

from . import _moduco


class UnknownNameError(KeyError, ValueError):
  """No object of this kind has that name (a KeyError as in MuJoCo, and a ValueError)."""

  def __str__(self):
    return str(self.args[0]) if self.args else ""


class InvalidIdError(IndexError, ValueError):
  """An object id out of range (an IndexError as in MuJoCo, and a ValueError)."""


# accessor name -> (mjtObj value, count size field, prefixes removed from field names)
KINDS = {
    "body": (1, "nbody", ("body_",)),
    "joint": (3, "njnt", ("jnt_",)),
    "geom": (5, "ngeom", ("geom_",)),
    "site": (6, "nsite", ("site_",)),
    "camera": (7, "ncam", ("cam_",)),
    "light": (8, "nlight", ("light_",)),
    "mesh": (9, "nmesh", ("mesh_",)),
    "hfield": (11, "nhfield", ("hfield_",)),
    "pair": (14, "npair", ("pair_",)),
    "exclude": (15, "nexclude", ("exclude_",)),
    "equality": (16, "neq", ("eq_",)),
    "tendon": (17, "ntendon", ("tendon_", "ten_")),
    "actuator": (18, "nu", ("actuator_",)),
    "sensor": (19, "nsensor", ("sensor_",)),
    "numeric": (20, "nnumeric", ("numeric_",)),
    "key": (23, "nkey", ("key_",)),
    "plugin": (24, "nplugin", ("plugin_",)),
}
ALIASES = {"jnt": "joint", "cam": "camera", "eq": "equality", "ten": "tendon",
           "keyframe": "key"}

_QPOS_WIDTH = {0: 7, 1: 4, 2: 1, 3: 1}   # mjtJoint -> coordinates
_DOF_WIDTH = {0: 6, 1: 3, 2: 1, 3: 1}    # mjtJoint -> degrees of freedom


def _strip(name, prefixes):
  for p in prefixes:
    if name.startswith(p):
      return name[len(p):]
  return name


def _layout(obj, kind):
  """attribute -> (field, how) for one object kind of a model or data, cached per model."""
  model = obj if isinstance(obj, _moduco.Model) else obj.model
  cache = model.__dict__.setdefault("_named_layout", {})
  key = (kind, isinstance(obj, _moduco.Model))
  if key in cache:
    return cache[key]
  _, count, prefixes = KINDS[kind]
  layout, spans = {}, {}
  for field, rows, cols, _ in obj._fields():
    if field == "names":
      continue
    if rows == count:
      layout[_strip(field, prefixes)] = (field, "row", cols)
    elif kind == "joint" and rows == "nq":
      spans[field] = (field, "qpos", cols)
    elif kind == "joint" and rows == "nv":
      spans[_strip(field, ("dof_",))] = (field, "dof", cols)
    elif kind == "actuator" and rows == "na":
      spans[field] = (field, "act", cols)
    elif kind == "sensor" and rows == "nsensordata":
      spans["data"] = (field, "sensor", cols)
  for attr, entry in spans.items():   # the object's own rows win (jnt_bodyid over dof_bodyid)
    layout.setdefault(attr, entry)
  cache[key] = layout
  return layout


def _span(model, how, i):
  """first and last+1 rows of object i in an array indexed by qpos, dof, act or sensordata."""
  if how == "qpos":
    a = int(model.jnt_qposadr[i])
    return a, a + _QPOS_WIDTH[int(model.jnt_type[i])]
  if how == "dof":
    a = int(model.jnt_dofadr[i])
    return a, a + _DOF_WIDTH[int(model.jnt_type[i])]
  if how == "act":
    a = int(model.actuator_actadr[i])
    return (0, 0) if a < 0 else (a, a + int(model.actuator_actnum[i]))
  a = int(model.sensor_adr[i])
  return a, a + int(model.sensor_dim[i])


def resolve(model, kind, key):
  """id of object `key` (name or id) of a kind; UnknownNameError / InvalidIdError / TypeError."""
  objtype, count, _ = KINDS[kind]
  n = getattr(model, count)
  if isinstance(key, str):
    i = _moduco.mj_name2id(model, objtype, key)
    if i < 0:
      valid = [_moduco.mj_id2name(model, objtype, j) for j in range(n)]
      raise UnknownNameError(f"Invalid name '{key}'. Valid names: "
                             f"{[v for v in valid if v]}")
    return i
  if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
    raise TypeError(f"{kind}(): expected a name (str) or an id (int), got "
                    f"{type(key).__name__}")
  if not 0 <= key < n:
    raise InvalidIdError(f"Invalid {kind} id {key}: the model has {n}")
  return int(key)


class Accessor:
  """One named object of a model or data; attributes are views into its arrays."""

  __slots__ = ("_obj", "_model", "_kind", "_layout", "id", "name")

  def __init__(self, obj, kind, key):
    model = obj if isinstance(obj, _moduco.Model) else obj.model
    i = resolve(model, kind, key)
    s = object.__setattr__
    s(self, "_obj", obj)
    s(self, "_model", model)
    s(self, "_kind", kind)
    s(self, "_layout", _layout(obj, kind))
    s(self, "id", i)
    s(self, "name", _moduco.mj_id2name(model, KINDS[kind][0], i) or "")

  def _view(self, attr):
    try:
      field, how, cols = self._layout[attr]
    except KeyError:
      raise AttributeError(f"{self._kind} has no attribute '{attr}'") from None
    arr = getattr(self._obj, field)
    i = self.id
    if how == "row":
      return arr[i:i + 1] if arr.ndim == 1 else arr[i]
    a, b = _span(self._model, how, i)
    return arr[a:b]

  def __getattr__(self, attr):
    return self._view(attr)

  def __setattr__(self, attr, value):
    _moduco._assign(self._view(attr), value, f"{self._kind}('{self.name}').{attr}")

  def __dir__(self):
    return sorted(list(self._layout) + ["id", "name"])

  def __repr__(self):
    return f"<{type(self._obj).__name__} {self._kind} {self.id} '{self.name}'>"
