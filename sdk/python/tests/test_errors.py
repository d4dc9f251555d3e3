"""Bad input raises TypeError/ValueError with a useful message; it never crashes."""

import os

import numpy as np
import pytest

import moduco as mujoco
from conftest import SOURCE

PENDULUM = os.path.join(SOURCE, "models", "pendulum.xml")


def test_bad_xml_names_file_and_line(tmp_path):
  bad = tmp_path / "bad.xml"
  bad.write_text("<mujoco>\n  <worldbody>\n    <geom type='sphere' size='-1' bogus='2'/>\n"
                 "  </worldbody>\n</mujoco>\n")
  with pytest.raises(ValueError, match=r"bad\.xml:3"):
    mujoco.MjModel.from_xml_path(str(bad))
  with pytest.raises(ValueError, match=r":\d+"):
    mujoco.MjModel.from_xml_string("<mujoco><worldbody><body></mujoco>")
  with pytest.raises(ValueError, match="no_such_file"):
    mujoco.MjModel.from_xml_path(str(tmp_path / "no_such_file.xml"))
  with pytest.raises(TypeError):
    mujoco.MjModel.from_xml_path(3)
  with pytest.raises(TypeError):
    mujoco.MjModel.from_xml_string(b"<mujoco/>")
  with pytest.raises(TypeError):
    mujoco.MjModel()


def test_assets_are_seen_by_the_compiler(tmp_path):
  xml = """<mujoco><asset><mesh name="m" file="tet.obj"/></asset>
    <worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
  obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
  m = mujoco.MjModel.from_xml_string(xml, assets={"tet.obj": obj})
  assert m.nmesh == 1 and m.mesh_vertnum[0] >= 4
  (tmp_path / "model.xml").write_text(xml)
  m = mujoco.MjModel.from_xml_path(str(tmp_path / "model.xml"), assets={"tet.obj": obj})
  assert m.nmesh == 1
  with pytest.raises(ValueError, match="tet.obj"):
    mujoco.MjModel.from_xml_string(xml)
  with pytest.raises(TypeError):
    mujoco.MjModel.from_xml_string(xml, assets={"tet.obj": 5})


def test_wrong_argument_types():
  m = mujoco.MjModel.from_xml_path(PENDULUM)
  d = mujoco.MjData(m)
  with pytest.raises(TypeError):
    mujoco.mj_step(d, m)
  with pytest.raises(TypeError):
    mujoco.mj_step(m, None)
  with pytest.raises(TypeError):
    mujoco.mj_forward("m", d)
  with pytest.raises(TypeError):
    mujoco.MjData(None)
  with pytest.raises(ValueError):
    mujoco.mj_step(m, d, nstep=0)
  with pytest.raises(TypeError):
    mujoco.mj_step(m, d, nstep="3")
  with pytest.raises(TypeError):
    mujoco.mj_name2id(m, "body", "x")
  with pytest.raises(ValueError):
    mujoco.mj_name2id(m, 99, "x")
  with pytest.raises(TypeError):
    mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, 5)


def test_wrong_shapes_and_dtypes():
  m = mujoco.MjModel.from_xml_path(os.path.join(SOURCE, "models", "humanoid.xml"))
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  with pytest.raises(ValueError, match="expected"):
    mujoco.mj_mulM(m, d, np.zeros(m.nv - 1), np.zeros(m.nv))
  with pytest.raises(ValueError):
    mujoco.mj_mulM(m, d, np.zeros(m.nv), np.zeros(m.nv + 2))
  with pytest.raises(TypeError, match="float64"):
    mujoco.mj_mulM(m, d, np.zeros(m.nv, dtype=np.float32), np.zeros(m.nv))
  with pytest.raises(TypeError):
    mujoco.mj_mulM(m, d, [0.0] * m.nv, np.zeros(m.nv))
  with pytest.raises(ValueError, match="C-contiguous"):
    mujoco.mj_mulM(m, d, np.zeros(2 * m.nv)[::2], np.zeros(m.nv))
  with pytest.raises(TypeError):
    mujoco.mj_mulM(m, d, np.zeros(m.nv), ["x"] * m.nv)
  with pytest.raises(ValueError):
    mujoco.mj_solveM(m, d, np.zeros((2, m.nv + 1)), np.zeros((2, m.nv + 1)))
  with pytest.raises(ValueError):
    mujoco.mj_fullM(m, np.zeros((m.nv, m.nv)), np.zeros(m.nM - 1))
  with pytest.raises(ValueError):
    mujoco.mj_setState(m, d, np.zeros(3), mujoco.mjtState.mjSTATE_QPOS)
  with pytest.raises(ValueError):
    mujoco.mj_jac(m, d, np.zeros((3, m.nv)), None, np.zeros(2), 1)
  readonly = np.zeros(m.nv)
  readonly.flags.writeable = False
  with pytest.raises(ValueError):
    mujoco.mj_mulM(m, d, readonly, np.zeros(m.nv))


def test_data_of_another_model_is_refused():
  a = mujoco.MjModel.from_xml_path(PENDULUM)
  b = mujoco.MjModel.from_xml_path(os.path.join(SOURCE, "models", "humanoid.xml"))
  with pytest.raises(ValueError, match="other sizes"):
    mujoco.mj_step(a, mujoco.MjData(b))
  # a model of the same sizes is accepted, as in MuJoCo
  mujoco.mj_step(a, mujoco.MjData(mujoco.MjModel.from_xml_path(PENDULUM)))


def test_option_fields():
  m = mujoco.MjModel.from_xml_path(PENDULUM)
  m.opt.timestep = 0.001
  assert m.opt.timestep == 0.001
  m.opt.iterations = 7
  assert m.opt.iterations == 7
  m.opt.gravity = [0, 0, -1]
  assert list(m.opt.gravity) == [0, 0, -1]
  m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
  assert m.opt.integrator_name.lower() == "rk4"
  assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
  m.opt.solver = mujoco.mjtSolver.mjSOL_CG
  assert m.opt.solver_name.lower() == "cg"
  for bad, exc in (("x", TypeError), (None, TypeError)):
    with pytest.raises(exc):
      m.opt.timestep = bad
  with pytest.raises(TypeError):
    m.opt.iterations = 2.5
  with pytest.raises(ValueError):
    m.opt.integrator = 42
  with pytest.raises(ValueError):
    m.opt.gravity = [0, 0]
  with pytest.raises(AttributeError):
    m.opt.integrator_name = "RK4"
  with pytest.raises(AttributeError):
    m.opt.no_such_option = 1
  assert "timestep" in dir(m.opt)
