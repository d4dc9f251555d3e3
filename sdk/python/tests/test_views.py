"""MjModel / MjData arrays: generated from the C field tables, zero-copy, bitwise equal to the
C API (moduco dump) on the same models."""

import copy

import numpy as np
import pytest

import moduco as mujoco
from conftest import dump


def test_every_model_array_has_its_table_shape(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  fields = m._fields()
  assert len(fields) > 150
  for name, rows, cols, ndim in fields:
    arr = getattr(m, name)
    n = getattr(m, rows)
    if name == "names":
      assert isinstance(arr, bytes) and len(arr) == m.nnames
    elif ndim == 1:
      assert cols == 1 and arr.shape == (n,), name
    else:
      assert arr.shape == (n, cols), name
  assert m.key_qpos.ndim == 2 and m.body_mass.ndim == 1    # symbolic columns stay 2-D


def test_every_data_array_has_its_table_shape(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  d = mujoco.MjData(m)
  fields = d._fields()
  assert len(fields) > 50
  for name, rows, cols, ndim in fields:
    arr = getattr(d, name)
    assert arr.ndim == ndim, name
    assert arr.flags.writeable and arr.flags.c_contiguous, name
    assert arr.shape[0] == getattr(m, rows), name
    assert arr.size == getattr(m, rows) * cols, name


def test_sizes_and_known_values():
  m = mujoco.MjModel.from_xml_string("""
    <mujoco><option timestep="0.004" gravity="0 0 -3"/>
      <worldbody><body name="b" pos="0 0 1"><joint name="j" type="hinge"/>
        <geom type="sphere" size="0.1" mass="2"/></body></worldbody>
      <actuator><motor joint="j" gear="5"/></actuator></mujoco>""")
  assert (m.nq, m.nv, m.nu, m.nbody, m.njnt, m.ngeom) == (1, 1, 1, 2, 1, 1)
  assert m.body_mass[1] == 2.0
  assert m.actuator_gear[0, 0] == 5.0
  assert m.opt.timestep == 0.004
  assert list(m.opt.gravity) == [0, 0, -3]
  assert m.body_pos.dtype == np.float64 and m.jnt_type.dtype == np.int32
  assert m.jnt_limited.dtype == np.uint8
  assert b"b\x00" in m.names


def test_views_are_zero_copy():
  m = mujoco.MjModel.from_xml_path(mujoco_path("pendulum.xml"))
  d = mujoco.MjData(m)
  q = d.qpos
  q[0] = 0.5
  assert d.qpos[0] == 0.5                 # same memory through another view
  mujoco.mj_step(m, d)
  assert q[0] == d.qpos[0]                # the old view sees the step
  assert np.shares_memory(d.qpos, d.qpos)
  m.opt.gravity[2] = -1.0                 # option vectors are views too
  assert m.opt.gravity[2] == -1.0
  g = m.body_mass
  g[1] = 7.0
  assert m.body_mass[1] == 7.0


def test_views_keep_their_owner_alive():
  m = mujoco.MjModel.from_xml_path(mujoco_path("pendulum.xml"))
  q = mujoco.MjData(m).qpos               # the data object is only referenced by the view
  q[:] = 1.0
  import gc
  gc.collect()
  assert q[0] == 1.0


def mujoco_path(name):
  from conftest import SOURCE
  import os
  return os.path.join(SOURCE, "models", name)


@pytest.mark.parametrize("steps", [0, 25])
def test_views_equal_the_c_api_bitwise(model_path, steps):
  ref = dump(model_path, steps)
  m = mujoco.MjModel.from_xml_path(model_path)
  m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
  d = mujoco.MjData(m)
  if steps:
    mujoco.mj_step(m, d, nstep=steps)
  mujoco.mj_forward(m, d)
  assert d.time == ref["time"]
  for key in ("qpos", "qvel", "act", "qacc", "qfrc_bias", "qfrc_passive", "qfrc_actuator",
              "qfrc_constraint", "actuator_force", "ten_length", "actuator_length",
              "sensordata", "energy"):
    got = getattr(d, key)
    assert np.array_equal(got, np.array(ref[key], dtype=float).reshape(got.shape)), key
  assert np.array_equal(d.xpos, np.array(ref["xpos"]))
  assert np.array_equal(d.xquat, np.array(ref["xquat"]))
  full = np.zeros((m.nv, m.nv))
  mujoco.mj_fullM(m, full, d.qM)
  assert np.array_equal(full, np.array(ref["qM"]).reshape(m.nv, m.nv))
  assert d.ncon == ref["ncon"] and len(d.contact) == d.ncon
  for i, c in enumerate(ref["contact"]):
    assert (d.contact.geom1[i], d.contact.geom2[i]) == (c["geom1"], c["geom2"])
    assert d.contact.dist[i] == c["dist"]
    assert np.array_equal(d.contact.pos[i], c["pos"])
    assert np.array_equal(d.contact.frame[i, :3], c["normal"])
  assert d.nefc == ref["nefc"]
  assert np.array_equal(d.efc_force, np.array(ref["efc_force"], dtype=float))


def test_contact_structured_view():
  m = mujoco.MjModel.from_xml_path(mujoco_path("humanoid.xml"))
  d = mujoco.MjData(m)
  mujoco.mj_step(m, d, nstep=100)
  assert d.ncon > 0
  c = d.contact
  assert c.dtype == mujoco.contact_dtype and c.shape == (d.ncon,)
  assert c[0].geom1 == c.geom1[0] and c[0].dim == c.dim[0]
  assert np.allclose(np.linalg.norm(c.frame[:, :3], axis=1), 1.0)
  rows = c.efc_address[c.efc_address >= 0]
  assert np.all(rows < d.nefc)
  assert d.efc_J.shape == (d.nefc, m.nv) and d.efc_KBIP.shape == (d.nefc, 4)


def test_diagnostics_views():
  m = mujoco.MjModel.from_xml_path(mujoco_path("humanoid.xml"))
  d = mujoco.MjData(m)
  assert d.warning.shape == (mujoco.mjtWarning.mjNWARNING,)
  assert d.timer.shape == (mujoco.mjtTimer.mjNTIMER,)
  assert d.solver.dtype.names[:2] == ("improvement", "gradient")
  d.profile = 1
  mujoco.mj_step(m, d, nstep=3)
  assert d.timer[mujoco.mjtTimer.mjTIMER_STEP].number == 3
  assert d.timer.duration[mujoco.mjtTimer.mjTIMER_STEP] > 0
  assert d.solver_niter == d.solver_iter


def test_copy_and_deepcopy_are_independent(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  d = mujoco.MjData(m)
  mujoco.mj_step(m, d, nstep=5)
  for fn in (copy.copy, copy.deepcopy):
    c = fn(d)
    assert type(c) is mujoco.MjData and c.model is m
    assert c.time == d.time and np.array_equal(c.qpos, d.qpos)
    assert not np.shares_memory(c.qpos, d.qpos)
    mujoco.mj_step(m, c, nstep=3)
    mujoco.mj_step(m, d, nstep=3)
    assert np.array_equal(c.qpos, d.qpos) and np.array_equal(c.qvel, d.qvel)
  m2 = copy.deepcopy(m)
  assert type(m2) is mujoco.MjModel and m2.nq == m.nq
  m2.body_mass[-1] += 1
  assert m2.body_mass[-1] != m.body_mass[-1]


def test_assignment_copies_with_checks():
  m = mujoco.MjModel.from_xml_path(mujoco_path("humanoid.xml"))
  d = mujoco.MjData(m)
  q = d.qpos
  d.qpos = np.arange(m.nq)
  assert np.array_equal(q, np.arange(m.nq))     # copied into the same memory
  d.xfrc_applied = np.ones(m.nbody * 6)          # same size: reshaped
  assert d.xfrc_applied.shape == (m.nbody, 6) and d.xfrc_applied.sum() == m.nbody * 6
  with pytest.raises(ValueError, match="shape"):
    d.qpos = np.zeros(m.nq + 1)
  with pytest.raises(TypeError):
    d.qpos = ["a"] * m.nq
  with pytest.raises(TypeError):
    m.geom_group = np.zeros(m.ngeom)             # float into int
  with pytest.raises(AttributeError):
    m.nq = 3
  with pytest.raises(AttributeError):
    d.ncon = 2
  with pytest.raises(AttributeError):
    del d.qpos
  with pytest.raises(AttributeError):
    d.not_a_field
  d.qvel = 0.25                                  # a scalar fills the array
  assert np.all(d.qvel == 0.25)
  d.time = 2.5
  assert d.time == 2.5


def test_structural_model_fields_are_read_only():
  m = mujoco.MjModel.from_xml_path(mujoco_path("humanoid.xml"))
  for name in ("jnt_qposadr", "body_parentid", "geom_type", "dof_Madr", "sensor_adr",
               "pair_geom1", "name_bodyadr", "actuator_trnid"):
    assert not getattr(m, name).flags.writeable, name
    with pytest.raises(ValueError):
      getattr(m, name)[...] = 0
    with pytest.raises(AttributeError, match="read-only"):
      setattr(m, name, getattr(m, name).copy())
  with pytest.raises(AttributeError):
    m.names = b"x"
  m.geom_contype[:] = 0            # contact filtering stays writable, as do the real numbers
  m.geom_conaffinity[:] = 0
  m.body_mass[1] = 2.0
  d = mujoco.MjData(m)
  mujoco.mj_step(m, d, nstep=50)
  assert d.ncon == 0


def header_list(header, macro):
  """Field names of an X-macro list, read from the public header's text."""
  import re
  from conftest import SOURCE
  import os
  text = open(os.path.join(SOURCE, "sdk", "include", "moduco", header)).read()
  body = text[text.index(f"#define {macro}(X)"):]
  body = body[:body.index("\n\n")]
  return re.findall(r"X\(\s*\w+\s*,\s*(\w+)\s*,", body), re.findall(r"X\((\w+)\)", body)


def test_every_header_field_is_exposed():
  """The tables are the headers' X-macro lists: a field added there appears here."""
  m = mujoco.MjModel.from_xml_path(mujoco_path("pendulum.xml"))
  d = mujoco.MjData(m)
  fields, _ = header_list("mcmodel.h", "MC_MODEL_POINTERS")
  assert [f[0] for f in m._fields()] == fields
  _, sizes = header_list("mcmodel.h", "MC_MODEL_SIZES")
  assert list(m._sizes()) == sizes and all(isinstance(getattr(m, s), int) for s in sizes)
  fields, _ = header_list("mcdata.h", "MC_DATA_POINTERS")
  assert [f[0] for f in d._fields()] == fields
