"""mjd_transitionFD and mjd_inverseFD against differences taken in Python with mj_step and
mj_inverse at the same points, and their argument checks."""

import numpy as np
import pytest

import moduco as mujoco

# hinge and slide joints only (qpos is its own tangent space), an actuator with activation and
# position/velocity/actuator sensors, no contact: a smooth transition
ARM = """
<mujoco>
  <option timestep="0.005"><flag contact="disable"/></option>
  <worldbody>
    <body pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.2"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04"/>
      <body pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
        <body pos="0.4 0 0">
          <joint name="reach" type="slide" axis="1 0 0" stiffness="20"/>
          <geom type="sphere" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general name="drive" joint="shoulder" dyntype="filter" dynprm="0.05" gear="3"/>
    <motor joint="elbow" gear="2"/>
  </actuator>
  <sensor>
    <jointpos joint="elbow"/>
    <jointvel joint="shoulder"/>
    <actuatorfrc actuator="drive"/>
  </sensor>
</mujoco>
"""


def arm_state():
  m = mujoco.MjModel.from_xml_string(ARM)
  d = mujoco.MjData(m)
  d.qpos = [0.4, -0.7, 0.05]
  d.qvel = [0.3, -0.2, 0.1]
  d.act = [0.2]
  d.ctrl = [0.5, -0.3]
  return m, d


def next_state(m, d0, x, u):
  """(x_next, sensordata) after one mj_step from x = (qpos, qvel, act) with ctrl u."""
  d = mujoco.MjData(m)
  nv, na = m.nv, m.na
  d.qpos = x[:nv]
  d.qvel = x[nv:2 * nv]
  d.act = x[2 * nv:2 * nv + na]
  d.ctrl = u
  d.time = d0.time
  mujoco.mj_step(m, d)
  return np.concatenate([d.qpos, d.qvel, d.act]), d.sensordata.copy()


def test_transition_fd_matches_differences_of_steps():
  m, d = arm_state()
  eps = 1e-6
  ndx, nu, ns = 2 * m.nv + m.na, m.nu, m.nsensordata
  A = np.zeros((ndx, ndx))
  B = np.zeros((ndx, nu))
  C = np.zeros((ns, ndx))
  D = np.zeros((ns, nu))
  assert mujoco.mjd_transitionFD(m, d, eps, True, A, B, C, D) == 0
  x = np.concatenate([d.qpos, d.qvel, d.act])
  u = d.ctrl.copy()
  for k in range(ndx):
    dx = np.zeros(ndx)
    dx[k] = eps
    xp, sp = next_state(m, d, x + dx, u)
    xm, sm = next_state(m, d, x - dx, u)
    np.testing.assert_allclose(A[:, k], (xp - xm) / (2 * eps), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(C[:, k], (sp - sm) / (2 * eps), rtol=1e-6, atol=1e-7)
  for k in range(nu):
    du = np.zeros(nu)
    du[k] = eps
    xp, sp = next_state(m, d, x, u + du)
    xm, sm = next_state(m, d, x, u - du)
    np.testing.assert_allclose(B[:, k], (xp - xm) / (2 * eps), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(D[:, k], (sp - sm) / (2 * eps), rtol=1e-6, atol=1e-7)
  # the activation filter: d act_next / d ctrl0 = h / tau, and the state came back unchanged
  assert B[2 * m.nv, 0] == pytest.approx(0.005 / 0.05, rel=1e-6)
  np.testing.assert_array_equal(d.qpos, [0.4, -0.7, 0.05])


def test_transition_fd_outputs_may_be_none_and_agree():
  m, d = arm_state()
  ndx = 2 * m.nv + m.na
  A = np.zeros((ndx, ndx))
  A2 = np.zeros((ndx, ndx))
  B = np.zeros((ndx, m.nu))
  mujoco.mjd_transitionFD(m, d, 1e-6, False, A, B, None, None)
  mujoco.mjd_transitionFD(m, d, 1e-6, False, A2, None, None, None)
  np.testing.assert_array_equal(A, A2)
  assert np.any(B != 0)


def test_inverse_fd_acceleration_block_is_the_inertia():
  m, d = arm_state()
  mujoco.mj_forward(m, d)
  nv, ns = m.nv, m.nsensordata
  out = [np.zeros((nv, nv)) for _ in range(3)] + [np.zeros((nv, ns)) for _ in range(3)]
  DmDq = np.zeros((nv, m.nM))
  assert mujoco.mjd_inverseFD(m, d, 1e-6, False, *out, DmDq) == 0
  M = np.zeros((nv, nv))
  mujoco.mj_fullM(m, M, d.qM)
  np.testing.assert_allclose(out[2], M, rtol=1e-6, atol=1e-8)
  # d qfrc_inverse / d qvel (forward differences, as mjd_inverseFD): joint damping plus the bias
  # force's velocity terms, against a difference of mj_inverse in Python
  eps = 1e-6
  for k in range(nv):
    e = mujoco.MjData(m)
    e.qpos, e.qvel, e.qacc = d.qpos, d.qvel, d.qacc
    mujoco.mj_inverse(m, e)
    e2 = mujoco.MjData(m)
    e2.qpos, e2.qvel, e2.qacc = d.qpos, d.qvel, d.qacc
    e2.qvel[k] += eps
    mujoco.mj_inverse(m, e2)
    fwd = (e2.qfrc_inverse - e.qfrc_inverse) / eps
    np.testing.assert_allclose(out[1][k], fwd, rtol=1e-6, atol=1e-7)


def test_bad_arguments_raise():
  m, d = arm_state()
  ndx = 2 * m.nv + m.na
  with pytest.raises(ValueError):
    mujoco.mjd_transitionFD(m, d, 1e-6, True, np.zeros((ndx, ndx + 1)), None, None, None)
  with pytest.raises(TypeError):
    mujoco.mjd_transitionFD(m, d, 1e-6, True, np.zeros((ndx, ndx), np.float32), None, None,
                            None)
  with pytest.raises(ValueError):
    mujoco.mjd_transitionFD(m, d, 0.0, True, None, None, None, None)
  with pytest.raises(ValueError):
    mujoco.mjd_inverseFD(m, d, -1.0, False, None, None, None, None, None, None, None)
  with pytest.raises(TypeError):
    mujoco.mjd_inverseFD(m, d, 1e-6, False, None, None, None)
  with pytest.raises(TypeError):
    mujoco.mjd_transitionFD(m, m, 1e-6, True, None, None, None, None)


# mjd_transitionImplicit (Moduco only: the constraint solver differentiated implicitly at kappa)

BOX = """
<mujoco>
  <option timestep="0.01" cone="elliptic" solver="ipm"/>
  <extension><plugin plugin="ipm"><config key="recovery" value="1e10"/></plugin></extension>
  <worldbody>
    <geom type="plane" size="5 5 0.1" friction="0.5" margin="0.01"/>
    <body pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="ry" type="hinge" axis="0 1 0"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.5" margin="0.01"/>
      <site name="c" size="0.12"/>
    </body>
  </worldbody>
  <actuator><motor joint="x"/><motor joint="z"/></actuator>
  <sensor><velocimeter site="c"/><accelerometer site="c"/><touch site="c"/></sensor>
</mujoco>
"""


def box_in_stiction():
  """The 1 kg box resting on the plane, pushed by 2 N (below static friction, 4.9 N)."""
  m = mujoco.MjModel.from_xml_string(BOX)
  d = mujoco.MjData(m)
  d.ctrl = [2.0, 0.0]
  for _ in range(30):
    mujoco.mj_step(m, d)
  assert d.ncon > 0
  return m, d


def outputs(m):
  ndx, nu, ns = 2 * m.nv + m.na, m.nu, m.nsensordata
  return [np.zeros((ndx, ndx)), np.zeros((ndx, nu)), np.zeros((ns, ndx)), np.zeros((ns, nu))]


def test_transition_implicit_equals_fd_without_constraints():
  # no constraint rows: the implicit path is centered differences of the same steps
  m, d = arm_state()
  fd, im = outputs(m), outputs(m)
  assert mujoco.mjd_transitionFD(m, d, 1e-6, True, *fd) == 0
  assert mujoco.mjd_transitionImplicit(m, d, 1e-6, 1e-4, *im) == 0
  for a, b in zip(im, fd):
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_transition_implicit_smooths_stiction_and_threads_agree():
  m, d = box_in_stiction()
  fd, im, im2 = outputs(m), outputs(m), outputs(m)
  qpos = d.qpos.copy()
  assert mujoco.mjd_transitionFD(m, d, 1e-6, True, *fd) == 0
  assert mujoco.mjd_transitionImplicit(m, d, 1e-6, 1e-4, *im) == 0
  assert mujoco.mjd_transitionImplicit(m, d, eps=1e-6, kappa=1e-4, A=im2[0], B=im2[1],
                                       C=im2[2], D=im2[3], nthread=2) == 0
  for a, b in zip(im, im2):
    np.testing.assert_array_equal(a, b)       # 2 threads give the serial bits
  np.testing.assert_array_equal(d.qpos, qpos)   # state restored
  vx, ax, touch = m.nv, 3, 6                    # row of qvel_x; accelerometer x; touch
  assert abs(fd[1][vx, 0]) < 1e-6               # the stuck box: finite differences are flat
  assert 1e-4 < im[1][vx, 0] < m.opt.timestep   # the relaxed contact yields to the push
  assert im[3][ax, 0] == pytest.approx(im[1][vx, 0] / m.opt.timestep, rel=1e-6)
  # touch reads the contact force rows: its entries are those of finite differences
  np.testing.assert_allclose(im[2][touch], fd[2][touch], rtol=1e-9, atol=1e-9)
  np.testing.assert_allclose(im[3][touch], fd[3][touch], rtol=1e-9, atol=1e-9)


def test_transition_implicit_refusals():
  m, d = box_in_stiction()
  A = np.zeros((2 * m.nv, 2 * m.nv))
  with pytest.raises(ValueError):
    mujoco.mjd_transitionImplicit(m, d, 1e-6, -1.0, A, None, None, None)
  with pytest.raises(ValueError):
    mujoco.mjd_transitionImplicit(m, d, 1e-6, 1e-4, A, None, None, None, 0)
  with pytest.raises(ValueError):
    mujoco.mjd_transitionImplicit(m, d, 1e-6, 1e-4, np.zeros((3, 3)), None, None, None)
  m.set_solver("newton")
  with pytest.raises(ValueError):                # newton has no derivative, and rows are active
    mujoco.mjd_transitionImplicit(m, d, 1e-6, 1e-4, A, None, None, None)
