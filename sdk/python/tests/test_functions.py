"""The mj_* functions against the C API and against each other on the same models."""

import os

import numpy as np
import pytest

import moduco as mujoco
from conftest import SOURCE, dump

HUMANOID = os.path.join(SOURCE, "models", "humanoid.xml")


def stepped(path, n=20):
  m = mujoco.MjModel.from_xml_path(path)
  d = mujoco.MjData(m)
  d.ctrl = 0.3 * np.sin(np.arange(m.nu))
  mujoco.mj_step(m, d, nstep=n)
  mujoco.mj_forward(m, d)
  return m, d


def test_step_nstep_equals_single_steps(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  a, b = mujoco.MjData(m), mujoco.MjData(m)
  mujoco.mj_step(m, a, nstep=30)
  for _ in range(30):
    mujoco.mj_step(m, b)
  assert np.array_equal(a.qpos, b.qpos) and np.array_equal(a.qvel, b.qvel)
  assert a.time == b.time


def test_step1_step2_equal_step(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  a, b = mujoco.MjData(m), mujoco.MjData(m)
  for _ in range(10):
    mujoco.mj_step(m, a)
    mujoco.mj_step1(m, b)
    mujoco.mj_step2(m, b)
  assert np.array_equal(a.qpos, b.qpos) and np.array_equal(a.qvel, b.qvel)


def test_forward_matches_dump_after_keyframe_free_reset(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  d = mujoco.MjData(m)
  mujoco.mj_step(m, d, nstep=7)
  mujoco.mj_resetData(m, d)
  assert d.time == 0 and np.array_equal(d.qpos, m.qpos0) and not d.qvel.any()
  m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
  mujoco.mj_forward(m, d)
  ref = dump(model_path, 0)
  assert np.array_equal(d.qacc, np.array(ref["qacc"], dtype=float))


def test_reset_keyframe():
  m = mujoco.MjModel.from_xml_string(__import__("conftest").EVERY_KIND)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, 0)
  assert np.array_equal(d.qpos, m.key_qpos[0]) and np.array_equal(d.ctrl, m.key_ctrl[0])
  assert np.array_equal(d.act, m.key_act[0])
  with pytest.raises(ValueError, match="out of range"):
    mujoco.mj_resetDataKeyframe(m, d, 1)


def test_inverse_recovers_applied_forces():
  m, d = stepped(HUMANOID)
  d.qfrc_applied = np.linspace(-1, 1, m.nv)
  mujoco.mj_forward(m, d)
  expected = d.qfrc_applied + d.qfrc_actuator
  mujoco.mj_inverse(m, d)
  assert np.allclose(d.qfrc_inverse, expected, atol=1e-6 * (1 + np.abs(expected).max()))


def test_mulM_solveM_fullM(model_path):
  m, d = stepped(model_path)
  M = np.zeros((m.nv, m.nv))
  mujoco.mj_fullM(m, M, d.qM)
  assert np.array_equal(M, M.T)
  vec = np.cos(np.arange(m.nv))
  res = np.zeros(m.nv)
  mujoco.mj_mulM(m, d, res, vec)
  assert np.allclose(res, M @ vec, rtol=1e-12, atol=1e-12)
  y = np.stack([vec, 2 * vec + 1])
  x = np.zeros_like(y)
  mujoco.mj_solveM(m, d, x, y)
  assert np.allclose(M @ x.T, y.T, rtol=1e-9, atol=1e-9)


def test_state_roundtrip(model_path):
  m, d = stepped(model_path)
  S = mujoco.mjtState
  n = mujoco.mj_stateSize(m, S.mjSTATE_PHYSICS)
  assert n == m.nq + m.nv + m.na
  full = mujoco.mj_stateSize(m, S.mjSTATE_INTEGRATION)
  state = np.zeros(full)
  mujoco.mj_getState(m, d, state, S.mjSTATE_INTEGRATION)
  assert state[0] == d.time
  assert np.array_equal(state[1:1 + m.nq], d.qpos)
  e = mujoco.MjData(m)
  mujoco.mj_setState(m, e, state, S.mjSTATE_INTEGRATION)
  mujoco.mj_step(m, d, nstep=5)
  mujoco.mj_step(m, e, nstep=5)
  assert np.array_equal(d.qpos, e.qpos) and np.array_equal(d.qvel, e.qvel)
  with pytest.raises(ValueError):
    mujoco.mj_getState(m, d, np.zeros(full + 1), S.mjSTATE_INTEGRATION)
  with pytest.raises(ValueError):
    mujoco.mj_stateSize(m, 1 << 20)


def test_energy_matches_dump(model_path):
  ref = dump(model_path, 10)
  m = mujoco.MjModel.from_xml_path(model_path)
  m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
  d = mujoco.MjData(m)
  mujoco.mj_step(m, d, nstep=10)
  mujoco.mj_forward(m, d)
  assert np.array_equal(d.energy, ref["energy"])
  d.energy[:] = 0
  mujoco.mj_energyPos(m, d)
  mujoco.mj_energyVel(m, d)
  assert np.array_equal(d.energy, ref["energy"])


def test_names_roundtrip(every):
  m, _ = every
  O = mujoco.mjtObj
  for objtype, count in ((O.mjOBJ_BODY, m.nbody), (O.mjOBJ_JOINT, m.njnt), (O.mjOBJ_GEOM, m.ngeom),
                         (O.mjOBJ_SITE, m.nsite), (O.mjOBJ_ACTUATOR, m.nu),
                         (O.mjOBJ_SENSOR, m.nsensor), (O.mjOBJ_TENDON, m.ntendon),
                         (O.mjOBJ_KEY, m.nkey), (O.mjOBJ_EQUALITY, m.neq)):
    for i in range(count):
      name = mujoco.mj_id2name(m, objtype, i)
      if name:
        assert mujoco.mj_name2id(m, objtype, name) == i
  assert mujoco.mj_name2id(m, O.mjOBJ_BODY, "nope") == -1
  assert mujoco.mj_id2name(m, O.mjOBJ_BODY, 99) is None


def test_contact_force_and_rne_post_constraint():
  m, d = stepped(HUMANOID, 150)
  assert d.ncon > 0
  f = np.zeros(6)
  active = [i for i in range(d.ncon) if d.contact.efc_address[i] >= 0]
  assert active
  mujoco.mj_contactForce(m, d, active[0], f)
  assert f[0] >= 0            # normal force pushes the bodies apart
  d.cfrc_ext[:] = 0
  mujoco.mj_rnePostConstraint(m, d)
  assert np.abs(d.cfrc_ext).sum() > 0
  with pytest.raises(ValueError):
    mujoco.mj_contactForce(m, d, d.ncon, f)


def test_jacobians_against_finite_differences():
  m, d = stepped(HUMANOID, 5)
  site = 0 if m.nsite else None
  jacp = np.zeros((3, m.nv))
  jacr = np.zeros((3, m.nv))
  body = m.nbody - 1
  mujoco.mj_jacBody(m, d, jacp, jacr, body)
  fd = fd_columns(m, d, lambda e: e.xpos[body], d.xpos[body].copy())
  assert np.allclose(jacp, fd, atol=1e-5)
  p2 = np.zeros((3, m.nv))
  mujoco.mj_jac(m, d, p2, None, d.xpos[body], body)
  assert np.array_equal(p2, jacp)
  mujoco.mj_jacBodyCom(m, d, p2, None, body)
  mujoco.mj_jac(m, d, jacp, None, d.xipos[body], body)
  assert np.array_equal(p2, jacp)
  g = m.ngeom - 1
  mujoco.mj_jacGeom(m, d, p2, None, g)
  mujoco.mj_jac(m, d, jacp, None, d.geom_xpos[g], m.geom_bodyid[g])
  assert np.array_equal(p2, jacp)
  if site is not None:
    mujoco.mj_jacSite(m, d, p2, jacr, site)
    mujoco.mj_jac(m, d, jacp, None, d.site_xpos[site], m.site_bodyid[site])
    assert np.array_equal(p2, jacp)
  with pytest.raises(ValueError):
    mujoco.mj_jacBody(m, d, jacp, None, m.nbody)
  with pytest.raises(TypeError):
    mujoco.mj_jacBody(m, d, np.zeros((3, m.nv), dtype=np.float32), None, 1)


BALL_CHAIN = """<mujoco><worldbody><body pos="0 0 1"><joint type="ball"/><geom size=".1" pos=".2 0 0"/>
  <body pos=".4 0 0"><joint axis="0 1 0"/><joint axis="1 0 0"/><geom size=".1" pos=".2 0 0"/>
  <body pos=".4 0 0"><joint type="ball"/><joint type="slide" axis="0 0 1"/><geom size=".1"/>
  </body></body></body></worldbody></mujoco>"""


@pytest.mark.parametrize("which", ["humanoid", "ball_chain"])
def test_jac_dot_against_finite_differences(which):
  # a point fixed to a moving body: d/dt of its Jacobians by centered differences along qvel
  # (the humanoid's point also agrees with MuJoCo 3.14's mj_jacDot to 9e-16, checked by hand)
  if which == "humanoid":
    m, d = stepped(HUMANOID, 40)
  else:
    m = mujoco.MjModel.from_xml_string(BALL_CHAIN)
    d = mujoco.MjData(m)
    d.qvel[:] = np.linspace(-1.5, 2.0, m.nv)
    mujoco.mj_integratePos(m, d.qpos, np.linspace(0.3, -0.6, m.nv), 1.0)
  mujoco.mj_forward(m, d)
  assert np.abs(d.qvel).max() > 0.1
  local = np.array([0.05, -0.02, 0.03])
  for body in (1, m.nbody - 1, m.nbody // 2):
    p = d.xpos[body] + d.xmat[body].reshape(3, 3) @ local
    jdp = np.zeros((3, m.nv))
    jdr = np.zeros((3, m.nv))
    mujoco.mj_jacDot(m, d, jdp, jdr, p, body)
    eps = 1e-6
    J = []
    for sgn in (1, -1):
      e = mujoco.MjData(m)
      e.qpos = d.qpos
      mujoco.mj_integratePos(m, e.qpos, d.qvel, sgn * eps)
      mujoco.mj_fwdPosition(m, e)
      jp = np.zeros((3, m.nv))
      jr = np.zeros((3, m.nv))
      mujoco.mj_jac(m, e, jp, jr, e.xpos[body] + e.xmat[body].reshape(3, 3) @ local, body)
      J.append((jp, jr))
    fdp = (J[0][0] - J[1][0]) / (2 * eps)
    fdr = (J[0][1] - J[1][1]) / (2 * eps)
    assert np.abs(jdp).max() > 1e-3, body
    assert np.allclose(jdp, fdp, atol=1e-6 * max(1, np.abs(fdp).max())), body
    assert np.allclose(jdr, fdr, atol=1e-6 * max(1, np.abs(fdr).max())), body
  # with qvel zero, the derivative is zero
  d.qvel[:] = 0
  mujoco.mj_forward(m, d)
  mujoco.mj_jacDot(m, d, jdp, jdr, d.xpos[1], 1)
  assert not jdp.any() and not jdr.any()
  with pytest.raises(ValueError):
    mujoco.mj_jacDot(m, d, jdp, None, d.xpos[1], m.nbody)
  with pytest.raises(ValueError):
    mujoco.mj_jacDot(m, d, jdp, None, np.zeros(2), 1)


def fd_columns(m, d, value, at_d, eps=1e-7):
  # forward differences over each dof of the 3-vector value(data) (after mj_fwdPosition)
  fd = np.zeros((3, m.nv))
  for k in range(m.nv):
    e = mujoco.MjData(m)
    e.qpos = d.qpos
    dq = np.zeros(m.nv)
    dq[k] = eps
    mujoco.mj_integratePos(m, e.qpos, dq, 1.0)
    mujoco.mj_fwdPosition(m, e)
    fd[:, k] = (value(e) - at_d) / eps
  return fd


def test_jac_point_axis_against_finite_differences():
  m, d = stepped(HUMANOID, 5)
  body = m.nbody - 1
  point = d.xpos[body] + np.array([0.01, 0.02, -0.03])
  axis_local = np.array([0.6, 0.0, 0.8])
  axis = d.xmat[body].reshape(3, 3) @ axis_local
  jp = np.zeros((3, m.nv))
  ja = np.zeros((3, m.nv))
  mujoco.mj_jacPointAxis(m, d, jp, ja, point, axis, body)
  ref = np.zeros((3, m.nv))
  mujoco.mj_jac(m, d, ref, None, point, body)
  assert np.array_equal(jp, ref)
  fd = fd_columns(m, d, lambda e: e.xmat[body].reshape(3, 3) @ axis_local, axis)
  assert np.abs(ja).max() > 0.1
  assert np.allclose(ja, fd, atol=1e-5)
  mujoco.mj_jacPointAxis(m, d, None, ja, point, axis, body)
  with pytest.raises(ValueError):
    mujoco.mj_jacPointAxis(m, d, jp, ja, point, axis, m.nbody)
  with pytest.raises(ValueError):
    mujoco.mj_jacPointAxis(m, d, jp, ja, point, np.zeros(4), body)


def test_set_const_restores_derived_constants():
  m, d = stepped(HUMANOID, 1)
  ref = m.dof_M0.copy()
  m.dof_M0[:] = 0
  mujoco.mj_setConst(m, d)
  assert np.array_equal(m.dof_M0, ref)


def test_stage_functions_compose_forward(model_path):
  m, d = stepped(model_path, 5)
  e = mujoco.MjData(m)
  e.qpos, e.qvel, e.ctrl, e.act = d.qpos, d.qvel, d.ctrl, d.act
  e.time = d.time
  e.qacc_warmstart = d.qacc_warmstart
  mujoco.mj_fwdPosition(m, e)
  mujoco.mj_fwdVelocity(m, e)
  mujoco.mj_fwdActuation(m, e)
  mujoco.mj_fwdAcceleration(m, e)
  mujoco.mj_fwdConstraint(m, e)
  mujoco.mj_forward(m, d)
  assert np.array_equal(e.qacc_smooth, d.qacc_smooth)
  assert np.allclose(e.qacc, d.qacc, rtol=1e-9, atol=1e-9)


def test_version():
  assert mujoco.mj_version() == mujoco.mjVERSION_HEADER
  assert mujoco.mj_versionString() == mujoco.__version__


def test_jac_subtree_com_against_finite_differences():
  m, d = stepped(HUMANOID, 5)
  mujoco.mj_forward(m, d)
  for body in (0, 1, m.nbody - 3):
    J = np.zeros((3, m.nv))
    mujoco.mj_jacSubtreeCom(m, d, J, body)
    fd = fd_columns(m, d, lambda e, b=body: e.subtree_com[b], d.subtree_com[body])
    assert np.allclose(J, fd, atol=1e-5), body
  with pytest.raises(ValueError):
    mujoco.mj_jacSubtreeCom(m, d, J, m.nbody)


def test_differentiate_pos_inverts_integrate_pos(model_path):
  m, d = stepped(model_path, 10)
  v = np.random.default_rng(3).uniform(-1, 1, m.nv)
  q2 = d.qpos.copy()
  mujoco.mj_integratePos(m, q2, v, 0.01)
  back = np.zeros(m.nv)
  mujoco.mj_differentiatePos(m, back, 0.01, d.qpos, q2)
  assert np.allclose(back, v, rtol=0, atol=1e-9)
  with pytest.raises(ValueError):
    mujoco.mj_differentiatePos(m, np.zeros(m.nv + 1), 0.01, d.qpos, q2)
  with pytest.raises(TypeError):
    mujoco.mj_differentiatePos(m, np.zeros(m.nv, dtype=np.float32), 0.01, d.qpos, q2)


def test_keyword_arguments_as_in_mujoco():
  """Keywords named as MuJoCo's C parameters give the positional results; bad keywords are
  TypeErrors."""
  m, d = stepped(HUMANOID, 5)
  assert mujoco.mj_name2id(m, type=mujoco.mjtObj.mjOBJ_BODY, name="torso") == \
      mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "torso")
  assert mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, id=1) == "torso"
  a, b = np.zeros((3, m.nv)), np.zeros((3, m.nv))
  mujoco.mj_jac(m, d, a, None, d.xpos[2], 2)
  mujoco.mj_jac(m=m, d=d, jacp=b, jacr=None, point=d.xpos[2], body=2)
  assert np.array_equal(a, b)
  n = mujoco.mj_stateSize(m, sig=mujoco.mjtState.mjSTATE_PHYSICS)
  assert n == mujoco.mj_stateSize(m, spec=mujoco.mjtState.mjSTATE_PHYSICS)
  s1, s2 = np.zeros(n), np.zeros(n)
  mujoco.mj_getState(m, d, s1, mujoco.mjtState.mjSTATE_PHYSICS)
  mujoco.mj_getState(m, d, state=s2, sig=mujoco.mjtState.mjSTATE_PHYSICS)
  assert np.array_equal(s1, s2)
  e, f = mujoco.MjData(m), mujoco.MjData(m)
  mujoco.mj_resetData(m, e)
  mujoco.mj_resetData(m=m, d=f)
  mujoco.mj_step(m, e, 3)
  mujoco.mj_step(m=m, d=f, nstep=3)
  assert np.array_equal(e.qpos, f.qpos)
  nv = m.nv
  A = np.zeros((2 * nv + m.na, 2 * nv + m.na))
  A2 = np.zeros_like(A)
  mujoco.mjd_transitionFD(m, d, 1e-6, True, A, None, None, None)
  mujoco.mjd_transitionFD(m, d, eps=1e-6, flg_centered=True, A=A2, B=None, C=None, D=None)
  assert np.array_equal(A, A2)
  with pytest.raises(TypeError, match="unexpected keyword"):
    mujoco.mj_forward(m, d, nope=1)
  with pytest.raises(TypeError, match="multiple values"):
    mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "torso", m=m)
  with pytest.raises(TypeError, match="missing argument 'type'"):
    mujoco.mj_name2id(m, name="torso")
