"""rollout.rollout's control_spec and initial_warmstart (mc_rolloutEx): every combination of the
mjSTATE_USER inputs applied before each step, and qacc_warmstart set after the initial state,
bitwise equal to stepping by hand with mj_setState, for any thread count."""

import numpy as np
import pytest

import moduco as mujoco

S = mujoco.mjtState
FULL = S.mjSTATE_FULLPHYSICS

# a box on the floor welded to a mocap body, a hinged arm with a motor, user data: every
# mjSTATE_USER component has a size; CG with one iteration makes the result depend on the
# warmstart
XML = """
<mujoco>
  <option solver="CG" iterations="1"/>
  <size nuserdata="2"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="target" mocap="true" pos="0 0 0.3"/>
    <body name="box" pos="0 0 0.1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <body pos="0.1 0 0.1">
        <joint name="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
      </body>
    </body>
  </worldbody>
  <equality><weld body1="box" body2="target" solref="0.05 1"/></equality>
  <actuator><motor joint="hinge"/></actuator>
  <sensor><jointpos joint="hinge"/><framepos objtype="body" objname="box"/></sensor>
</mujoco>
"""

SPECS = [S.mjSTATE_CTRL,
         S.mjSTATE_CTRL | S.mjSTATE_QFRC_APPLIED | S.mjSTATE_XFRC_APPLIED,
         S.mjSTATE_MOCAP_POS | S.mjSTATE_MOCAP_QUAT,
         S.mjSTATE_EQ_ACTIVE | S.mjSTATE_QFRC_APPLIED,
         S.mjSTATE_USER]


def inputs(m, cspec, nroll=5, nstep=8, seed=0):
  """Initial states, control vectors of cspec (eq_active 0/1, 1 at the first step) and
  warmstarts near the first step's qacc (so the solver keeps them)."""
  rng = np.random.default_rng(seed)
  d = mujoco.MjData(m)
  x0 = np.zeros((nroll, mujoco.mj_stateSize(m, FULL)))
  for r in range(nroll):
    mujoco.mj_resetData(m, d)
    d.qvel = rng.uniform(-0.3, 0.3, m.nv)
    mujoco.mj_getState(m, d, x0[r], FULL)
  nc = mujoco.mj_stateSize(m, cspec)
  control = 0.5 * rng.uniform(-1, 1, (nroll, nstep, nc))
  if cspec & S.mjSTATE_EQ_ACTIVE:
    before = S.mjSTATE_CTRL | S.mjSTATE_QFRC_APPLIED | S.mjSTATE_XFRC_APPLIED
    eq = mujoco.mj_stateSize(m, cspec & before)
    control[:, :, eq:eq + m.neq] = control[:, :, eq:eq + m.neq] > 0
    control[:, 0, eq:eq + m.neq] = 1
  warm = np.zeros((nroll, m.nv))
  for r in range(nroll):
    mujoco.mj_resetData(m, d)
    mujoco.mj_setState(m, d, x0[r], FULL)
    mujoco.mj_setState(m, d, control[r, 0], cspec)
    mujoco.mj_forward(m, d)
    warm[r] = (0.9 + 0.02 * r) * d.qacc
  return x0, control, warm


def by_hand(m, x0, control, cspec, warm=None):
  """Each rollout with mj_resetData, mj_setState and mj_step: states and sensors per step."""
  d = mujoco.MjData(m)
  nroll, nstep = control.shape[:2]
  state = np.zeros((nroll, nstep, x0.shape[1]))
  sens = np.zeros((nroll, nstep, m.nsensordata))
  for r in range(nroll):
    mujoco.mj_resetData(m, d)
    mujoco.mj_setState(m, d, x0[r], FULL)
    if warm is not None:
      d.qacc_warmstart = warm[r]
    for t in range(nstep):
      mujoco.mj_setState(m, d, control[r, t], cspec)
      mujoco.mj_step(m, d)
      mujoco.mj_getState(m, d, state[r, t], FULL)
      sens[r, t] = d.sensordata
  return state, sens


@pytest.mark.parametrize("cspec", SPECS)
def test_control_spec_and_warmstart_equal_stepping_by_hand(cspec):
  m = mujoco.MjModel.from_xml_string(XML)
  assert m.nmocap == 1 and m.neq == 1 and m.nuserdata == 2
  x0, control, warm = inputs(m, cspec)
  ref_state, ref_sens = by_hand(m, x0, control, cspec, warm)
  for nthread in (1, 3):
    state, sens = mujoco.rollout.rollout(m, [mujoco.MjData(m)] * nthread, x0, control,
                                         control_spec=cspec, initial_warmstart=warm)
    assert np.array_equal(state, ref_state) and np.array_equal(sens, ref_sens), nthread

  # both inputs matter: without the warmstart, or with zero controls, every first step differs
  cold, _ = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, control, control_spec=cspec)
  assert np.array_equal(cold, by_hand(m, x0, control, cspec)[0])
  assert all(not np.array_equal(cold[r, 0], state[r, 0]) for r in range(len(x0)))
  zero, _ = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, np.zeros_like(control),
                                   control_spec=cspec, initial_warmstart=warm)
  assert not np.array_equal(zero[:, -1], state[:, -1])


def test_default_spec_broadcasts_and_model_sequences():
  m = mujoco.MjModel.from_xml_string(XML)
  cspec = S.mjSTATE_USER
  x0, control, warm = inputs(m, cspec, nroll=3, nstep=4)

  # control_spec defaults to mjSTATE_CTRL
  ctrl_only = control[:, :, :m.nu]
  a, _ = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, ctrl_only)
  b, _ = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, ctrl_only, control_spec=S.mjSTATE_CTRL)
  assert np.array_equal(a, b) and np.array_equal(a, by_hand(m, x0, ctrl_only, S.mjSTATE_CTRL)[0])

  # one warmstart (nv,) and one control sequence (nstep, nc) for every rollout
  got, _ = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, control[0], control_spec=cspec,
                                  initial_warmstart=warm[0])
  tiled = np.broadcast_to(control[0], control.shape)
  ref, _ = by_hand(m, x0, tiled, cspec, np.broadcast_to(warm[0], warm.shape))
  assert np.array_equal(got, ref)

  # a sequence of models: each rollout's warmstart and controls go with it
  heavy = mujoco.MjModel.from_xml_string(XML)
  heavy.body_mass[:] *= 1.5
  models = [heavy, m, heavy]
  got, sens = mujoco.rollout.rollout(models, [mujoco.MjData(m)] * 2, x0, control,
                                     control_spec=cspec, initial_warmstart=warm)
  for r, mr in enumerate(models):
    s, sd = by_hand(mr, x0[r:r + 1], control[r:r + 1], cspec, warm[r:r + 1])
    assert np.array_equal(got[r], s[0]) and np.array_equal(sens[r], sd[0]), r


def test_bad_control_spec_and_shapes_refused():
  m = mujoco.MjModel.from_xml_string(XML)
  d = mujoco.MjData(m)
  cspec = S.mjSTATE_CTRL | S.mjSTATE_MOCAP_POS
  x0, control, warm = inputs(m, cspec, nroll=2, nstep=3)
  for bad in (S.mjSTATE_QPOS, S.mjSTATE_CTRL | S.mjSTATE_WARMSTART, 1 << 13, -32, 1.5, "ctrl",
              True, None):
    with pytest.raises(ValueError):
      mujoco.rollout.rollout(m, d, x0, control, control_spec=bad)
  with pytest.raises(ValueError):                        # nu columns for a wider spec
    mujoco.rollout.rollout(m, d, x0, control[:, :, :m.nu], control_spec=cspec)
  with pytest.raises(ValueError):                        # a wider vector for mjSTATE_CTRL
    mujoco.rollout.rollout(m, d, x0, control)
  for bad in (warm[:, :-1], np.zeros((3, m.nv)), np.zeros(m.nv + 1), np.zeros((2, 1, m.nv))):
    with pytest.raises(ValueError):
      mujoco.rollout.rollout(m, d, x0, control, control_spec=cspec, initial_warmstart=bad)
  with pytest.raises(ValueError):
    mujoco.rollout.rollout(m, d, x0, control, control_spec=cspec,
                           initial_warmstart=np.array([["a"] * m.nv] * 2))

  # the pool itself refuses a spec outside mjSTATE_USER and a wrongly sized warmstart
  pool = mujoco._moduco.RolloutPool(m, 1, 2)
  with pytest.raises(ValueError):
    pool.rollout(2, 3, FULL, x0, control, None, None, S.mjSTATE_QVEL, None)
  with pytest.raises(ValueError):
    pool.rollout(2, 3, FULL, x0, control, None, None, cspec, np.zeros(m.nv))
