"""Named access for every object kind, by name and by id, against the flat arrays."""

import numpy as np
import pytest

import moduco as mujoco
from moduco import _named

MODEL_KINDS = ["actuator", "body", "camera", "equality", "exclude", "geom", "hfield", "joint",
               "key", "mesh", "numeric", "pair", "plugin", "sensor", "site", "tendon"]
DATA_KINDS = ["actuator", "body", "camera", "equality", "geom", "joint", "sensor", "site",
              "tendon"]


def objects(m, kind):
  objtype, count, _ = _named.KINDS[kind]
  return [(i, mujoco.mj_id2name(m, objtype, i)) for i in range(getattr(m, count))]


@pytest.mark.parametrize("kind", MODEL_KINDS)
def test_model_kind_by_id_and_name(every, kind):
  m, _ = every
  objs = objects(m, kind)
  assert objs, f"the test model has no {kind}"
  for i, name in objs:
    a = getattr(m, kind)(i)
    assert a.id == i and a.name == (name or "")
    if name:
      b = getattr(m, kind)(name)
      assert b.id == i
    attrs = [x for x in dir(a) if x not in ("id", "name")]
    assert attrs, kind
    for attr in attrs:
      field, how, _ = a._layout[attr]
      flat = getattr(m, field)
      view = getattr(a, attr)
      assert np.shares_memory(view, flat) or view.size == 0, (kind, attr)
      if how == "row":
        expect = flat[i:i + 1] if flat.ndim == 1 else flat[i]
        assert np.array_equal(view, expect), (kind, attr)


@pytest.mark.parametrize("kind", DATA_KINDS)
def test_data_kind_by_id_and_name(every, kind):
  m, d = every
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  for i, name in objects(m, kind):
    a = getattr(d, kind)(name if name else i)
    assert a.id == i
    for attr in [x for x in dir(a) if x not in ("id", "name")]:
      view = getattr(a, attr)
      field = a._layout[attr][0]
      assert view.size == 0 or np.shares_memory(view, getattr(d, field)), (kind, attr)


def test_mujoco_style_named_access(every):
  m, d = every
  mujoco.mj_resetDataKeyframe(m, d, 0)
  mujoco.mj_forward(m, d)
  assert np.array_equal(d.body("hand").xpos, d.xpos[3])
  assert m.joint("hinge").qposadr[0] == 7 and m.jnt("ball").qposadr[0] == 8
  assert m.joint("root").type[0] == mujoco.mjtJoint.mjJNT_FREE
  assert np.array_equal(d.joint("root").qpos, d.qpos[:7])          # free joint: 7 coordinates
  assert d.joint("ball").qvel.shape == (3,) and d.joint("slide").qpos.shape == (1,)
  assert m.joint("hinge").damping[0] == 0.1                          # dof_damping by joint
  assert m.geom(1).type[0] == mujoco.mjtGeom.mjGEOM_HFIELD
  assert m.geom("knob").size[0] == 0.05
  assert np.array_equal(m.key("home").qpos, m.key_qpos[0])
  assert d.actuator("push").act.shape == (1,) and d.actuator("elbow").act.shape == (0,)
  assert np.array_equal(d.sensor("where").data, d.site("tip").xpos)
  assert np.array_equal(d.tendon("sum").length, d.ten_length)
  assert m.numeric("gain").size[0] == 3


def test_named_writes_go_to_the_data(every):
  m, d = every
  d.actuator("elbow").ctrl = 0.75
  assert d.ctrl[0] == 0.75
  d.joint("ball").qpos = [0, 1, 0, 0]
  assert np.array_equal(d.qpos[8:12], [0, 1, 0, 0])
  d.body("arm").xfrc_applied[2] = 3.0
  assert d.xfrc_applied[2, 2] == 3.0
  m.geom("rod").friction[0] = 0.5
  assert m.geom_friction[m.geom("rod").id, 0] == 0.5
  with pytest.raises(ValueError):
    d.joint("ball").qpos = [1, 0, 0]
  with pytest.raises(AttributeError):
    d.body("arm").nope


def test_bad_names_and_ids(every):
  m, d = every
  with pytest.raises(KeyError):
    m.body("nope")
  with pytest.raises(KeyError, match="Valid names.*'floor'"):
    m.geom()                                     # no key: the name "", as in MuJoCo
  with pytest.raises(ValueError, match="Valid names"):
    d.joint("nope")
  with pytest.raises(IndexError):
    m.geom(m.ngeom)
  with pytest.raises(ValueError):
    m.geom(-1)
  with pytest.raises(TypeError):
    m.body(1.5)
  with pytest.raises(TypeError):
    m.body(None)
