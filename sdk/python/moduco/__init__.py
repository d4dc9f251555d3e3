"""Moduco from Python, with the API of MuJoCo's Python bindings (``import moduco as mujoco``).

MjModel and MjData expose every array of mcModel / mcData as a numpy view (generated from the
C headers' X-macro lists), the mj_* functions take (model, data, ...) as in MuJoCo, and calls
that step or evaluate release the GIL. See docs/python.md for what differs from MuJoCo.
"""

import atexit as _atexit
import enum as _enum
import os as _os
import shutil as _shutil
import tempfile as _tempfile

from . import _moduco
from ._moduco import *  # noqa: F401,F403  (mj_* functions)
from ._moduco import (RolloutPool, clear_warning_error, contact_dtype, plugin_messages,
                      set_message_handler, set_warning_policy, warning_error, warning_text)
from ._named import ALIASES as _ALIASES
from ._named import Accessor as _Accessor
from ._named import InvalidIdError, UnknownNameError
from ._keywords import wrap_all as _wrap_all

globals().update(_wrap_all(_moduco))   # mj_* functions also take MuJoCo's keyword arguments

__version__ = _moduco.mj_versionString()
mjVERSION_HEADER = _moduco.mj_version()

# the mjt* enums: IntEnum classes, their members also at module level (mjtObj.mjOBJ_BODY and
# mjOBJ_BODY)
for _name, _members in _moduco._enums.items():
  globals()[_name] = _enum.IntEnum(_name, _members, module=__name__)
  for _m, _v in _members:
    globals()[_m] = globals()[_name][_m]
del _name, _members, _m, _v


def _accessors(kinds):
  """Methods body(key), joint(key), ... returning named-access views, for the given kinds."""

  def make(kind):
    def access(self, key=""):       # no key: the name "" (KeyError listing the names, as MuJoCo)
      return _Accessor(self, kind, key)
    access.__name__ = kind
    access.__doc__ = f"The {kind} with this name or id: attributes are views into its arrays."
    return access

  methods = {k: make(k) for k in kinds}
  methods.update({a: methods[k] for a, k in _ALIASES.items() if k in methods})
  return methods


def _write_assets(folder, assets):
  for name, content in assets.items():
    if not isinstance(name, str) or not isinstance(content, (bytes, bytearray, str)):
      raise TypeError("assets: expected a dict of file name (str) -> contents (bytes)")
    path = _os.path.join(folder, name)
    _os.makedirs(_os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
      f.write(content.encode() if isinstance(content, str) else bytes(content))


class MjModel(_moduco.Model):
  """A compiled model. Create with MjModel.from_xml_path or MjModel.from_xml_string."""

  locals().update(_accessors(["actuator", "body", "camera", "equality", "exclude", "geom",
                              "hfield", "joint", "key", "light", "mesh", "numeric", "pair",
                              "plugin", "sensor", "site", "tendon"]))

  @classmethod
  def from_xml_path(cls, filename, assets=None):
    """Compile an MJCF file; ValueError('file:line: message') if it is invalid.

    assets (file name -> bytes) are seen beside the model file, shadowing files there."""
    if not isinstance(filename, (str, bytes, _os.PathLike)):
      raise TypeError(f"from_xml_path: expected a path, got {type(filename).__name__}")
    if not assets:
      return cls._from_xml_path(filename)
    with open(filename, "rb") as f:
      xml = f.read().decode()
    folder = _os.path.dirname(_os.path.abspath(filename))
    with _tempfile.TemporaryDirectory(prefix="moduco-assets-") as tmp:
      for entry in _os.listdir(folder):
        if entry not in assets:
          _os.symlink(_os.path.join(folder, entry), _os.path.join(tmp, entry))
      _write_assets(tmp, assets)
      return cls._from_xml_string(xml, tmp)

  @classmethod
  def from_xml_string(cls, xml, assets=None):
    """Compile MJCF text; relative files come from assets (name -> bytes) or the cwd."""
    if not isinstance(xml, str):
      raise TypeError(f"from_xml_string: expected str, got {type(xml).__name__}")
    if not assets:
      return cls._from_xml_string(xml, None)
    with _tempfile.TemporaryDirectory(prefix="moduco-assets-") as tmp:
      _write_assets(tmp, assets)
      return cls._from_xml_string(xml, tmp)

  def __dir__(self):
    return sorted(set(super().__dir__()) | {f[0] for f in self._fields()} |
                  set(self._sizes()) | {"opt"})


class MjData(_moduco.Data):
  """Simulation data of a model: MjData(model). Arrays are writable zero-copy views."""

  locals().update(_accessors(["actuator", "body", "camera", "equality", "geom", "joint",
                              "light", "sensor", "site", "tendon"]))

  def __dir__(self):
    return sorted(set(super().__dir__()) | {f[0] for f in self._fields()} |
                  {"contact", "warning", "timer", "timer_plugin", "solver", "time", "energy",
                   "ncon", "nefc", "model"})


def plugins():
  """Registered plugins as a list of dicts: name, kind, version, file, description."""
  keys = ("name", "kind", "version", "file", "description")
  return [dict(zip(keys, p)) for p in _moduco.plugins()]


# no Python handler may run once the interpreter is shutting down
_atexit.register(_moduco.set_message_handler, None)

from . import rollout  # noqa: E402  (moduco.rollout.rollout, as mujoco.rollout.rollout)


def install_as_mujoco():
  """Make ``import mujoco`` and ``from mujoco import rollout`` give this package, so scripts
  written for MuJoCo's bindings run without edits: call it before they import mujoco. Refused
  (RuntimeError) if another module is already imported as mujoco."""
  import sys
  this = sys.modules[__name__]
  current = sys.modules.get("mujoco")
  if current is not None and current is not this:
    raise RuntimeError(f"install_as_mujoco: 'mujoco' is already imported from "
                       f"{getattr(current, '__file__', current)!r}")
  sys.modules["mujoco"] = this
  sys.modules["mujoco.rollout"] = rollout
