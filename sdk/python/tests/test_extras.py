"""Moduco's own extras: plugins, solver/integrator by name, warnings, timers, rollout."""

import os
import subprocess

import numpy as np
import pytest

import moduco as mujoco
from conftest import CLI, SOURCE

HUMANOID = os.path.join(SOURCE, "models", "humanoid.xml")
S = mujoco.mjtState


def test_plugins_match_the_cli():
  plugins = mujoco.plugins()
  assert len(plugins) > 10
  assert {"name", "kind", "version", "file", "description"} <= set(plugins[0])
  text = subprocess.run([CLI, "plugins"], check=True, capture_output=True, text=True).stdout
  for p in plugins:
    assert p["name"] in text and os.path.exists(p["file"])
  kinds = {p["kind"] for p in plugins}
  assert {"solver", "integrator"} <= kinds
  assert isinstance(mujoco.plugin_messages(), str)


def with_option(attr):
  from conftest import EVERY_KIND
  return mujoco.MjModel.from_xml_string(EVERY_KIND.replace("<option ", f"<option {attr} "))


@pytest.mark.parametrize("kind,name,attr", [
    ("integrator", "RK4", 'integrator="RK4"'),
    ("integrator", "implicitfast", 'integrator="implicitfast"'),
    ("solver", "PGS", 'solver="PGS"'),
    ("solver", "CG", 'solver="CG"')])
def test_choose_plugin_by_name_equals_the_model_option(kind, name, attr):
  ref = with_option(attr)
  m = with_option("")
  getattr(m, "set_" + kind)(name)
  assert getattr(m.opt, kind) == getattr(ref.opt, kind)
  a, b = mujoco.MjData(m), mujoco.MjData(ref)
  mujoco.mj_step(m, a, nstep=40)
  mujoco.mj_step(ref, b, nstep=40)
  assert np.array_equal(a.qpos, b.qpos) and np.array_equal(a.qvel, b.qvel)


def test_unknown_plugin_name_lists_the_available_ones():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  with pytest.raises(ValueError, match="available"):
    m.set_solver("no-such-solver")
  with pytest.raises(ValueError, match="unknown integrator"):
    m.set_integrator("no-such-integrator")
  with pytest.raises(TypeError):
    m.set_solver(3)


def test_warnings_counters_text_and_policy():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  d = mujoco.MjData(m)
  W = mujoco.mjtWarning
  d.qpos[3] = np.nan
  mujoco.mj_step(m, d)
  assert d.warning[W.mjWARN_BADQPOS].number == 1
  assert np.isfinite(d.qpos).all()                   # auto-reset
  assert "qpos" in mujoco.warning_text(W.mjWARN_BADQPOS).lower()
  # every type escalated: with BADQPOS alone, the BADQACC that follows auto-resets the data
  # (and clears the pending error) in the core
  assert mujoco.set_warning_policy(d, (1 << W.mjNWARNING) - 1) == 0
  assert mujoco.warning_error(d) == -1
  d.qpos[3] = np.nan
  mujoco.mj_step(m, d)
  assert mujoco.warning_error(d) == W.mjWARN_BADQPOS
  assert np.isnan(d.qpos[3])                         # escalated: state kept for inspection
  mujoco.clear_warning_error(d)
  assert mujoco.warning_error(d) == -1
  with pytest.raises(ValueError):
    mujoco.warning_text(99)
  with pytest.raises(ValueError):
    mujoco.set_warning_policy(d, 1 << 30)
  with pytest.raises(TypeError):
    mujoco.warning_error(m)


def test_plugin_timers():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  d = mujoco.MjData(m)
  d.profile = 1
  mujoco.mj_step(m, d, nstep=5)
  T = mujoco.mjtTimerPlugin
  assert m.timer_plugin_name(T.mjTIMERPLUGIN_INTEGRATOR).lower() == m.opt.integrator_name.lower()
  assert d.timer_plugin[T.mjTIMERPLUGIN_INTEGRATOR].number == 5
  stage = d.timer[mujoco.mjtTimer.mjTIMER_INTEGRATOR].duration
  assert 0 < d.timer_plugin[T.mjTIMERPLUGIN_INTEGRATOR].duration <= stage
  with pytest.raises(ValueError):
    m.timer_plugin_name(10000)


def sequential(m, x0, ctrl):
  """Reference rollout with mj_step: state (FULLPHYSICS) and sensordata after every step."""
  d = mujoco.MjData(m)
  ns = mujoco.mj_stateSize(m, S.mjSTATE_FULLPHYSICS)
  nroll, nstep = ctrl.shape[:2]
  states = np.zeros((nroll, nstep, ns))
  sens = np.zeros((nroll, nstep, m.nsensordata))
  for r in range(nroll):
    mujoco.mj_resetData(m, d)
    mujoco.mj_setState(m, d, x0[r], S.mjSTATE_FULLPHYSICS)
    for t in range(nstep):
      d.ctrl = ctrl[r, t]
      mujoco.mj_step(m, d)
      mujoco.mj_getState(m, d, states[r, t], S.mjSTATE_FULLPHYSICS)
      sens[r, t] = d.sensordata
  return states, sens


def rollout_inputs(m, nroll=4, nstep=30):
  d = mujoco.MjData(m)
  ns = mujoco.mj_stateSize(m, S.mjSTATE_FULLPHYSICS)
  x0 = np.zeros((nroll, ns))
  for r in range(nroll):
    mujoco.mj_resetData(m, d)
    d.qvel = 0.1 * r * np.ones(m.nv)
    mujoco.mj_getState(m, d, x0[r], S.mjSTATE_FULLPHYSICS)
  rng = np.random.default_rng(0)
  return x0, rng.uniform(-1, 1, (nroll, nstep, m.nu))


def test_rollout_equals_stepping(model_path):
  m = mujoco.MjModel.from_xml_path(model_path)
  x0, ctrl = rollout_inputs(m)
  ref_states, ref_sens = sequential(m, x0, ctrl)
  state, sens = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, ctrl)
  assert np.array_equal(state, ref_states) and np.array_equal(sens, ref_sens)
  two, sens2 = mujoco.rollout.rollout(m, [mujoco.MjData(m), mujoco.MjData(m)], x0, ctrl)
  assert np.array_equal(two, state) and np.array_equal(sens2, sens)


def test_rollout_arguments():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  d = mujoco.MjData(m)
  x0, ctrl = rollout_inputs(m, nroll=2, nstep=5)
  state, _ = mujoco.rollout.rollout(m, d, x0[0], ctrl[0])      # one state, one sequence
  assert state.shape == (1, 5, x0.shape[1])
  state, _ = mujoco.rollout.rollout(m, d, x0, nstep=3)          # no controls
  assert state.shape == (2, 3, x0.shape[1])
  out = np.zeros((2, 5, x0.shape[1]))
  got, _ = mujoco.rollout.rollout(m, d, x0, ctrl, state=out)
  assert got is out and out.any()
  with pytest.raises(ValueError):
    mujoco.rollout.rollout(m, d, x0[:, :-1], ctrl)
  with pytest.raises(ValueError):
    mujoco.rollout.rollout(m, d, x0, ctrl[:, :, :-1])
  with pytest.raises(ValueError):
    mujoco.rollout.rollout(m, d, x0)
  with pytest.raises(TypeError):
    mujoco.rollout.rollout(d, d, x0, ctrl)
  with pytest.raises(TypeError):
    mujoco.rollout.rollout(m, None, x0, ctrl)
  with pytest.raises(ValueError):
    mujoco.rollout.rollout(m, d, x0, ctrl, state=np.zeros(3))
  with pytest.raises(TypeError):
    mujoco.rollout.rollout(m, d, x0, ctrl, sensordata=np.zeros((2, 5, m.nsensordata), np.float32))


def test_message_handler_receives_warnings_from_any_thread():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  d = mujoco.MjData(m)
  got = []
  handler = got.append
  assert mujoco.set_message_handler(handler) is None
  try:
    d.qvel[0] = np.nan
    mujoco.mj_step(m, d)
    assert any("QVEL" in s.upper() for s in got), got
    # a rollout worker thread raising a warning reaches the same handler
    got.clear()
    ns = mujoco.mj_stateSize(m, S.mjSTATE_FULLPHYSICS)
    x0 = np.zeros((4, ns))
    x0[:, 1 + m.nq] = np.nan                       # qvel[0] of every rollout
    mujoco.rollout.rollout(m, d, x0, nstep=2, nthread=2)
    assert got
    assert np.all(mujoco.rollout.warnings(m, 2, 4) > 0)
  finally:
    assert mujoco.set_message_handler(None) is handler
  with pytest.raises(TypeError):
    mujoco.set_message_handler(3)


def test_rollout_object_as_in_mujoco_3():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  x0, ctrl = rollout_inputs(m, nroll=3, nstep=4)
  ref = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, ctrl)
  with mujoco.rollout.Rollout(nthread=2) as r:
    got = r.rollout(m, mujoco.MjData(m), x0, ctrl)
  assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])
  with pytest.raises(ValueError):
    mujoco.rollout.Rollout(nthread=0)


def test_rollout_with_one_model_per_rollout():
  """MuJoCo's sequence of models (e.g. randomized masses): each rollout uses its own model,
  results in input order, bitwise those of stepping each model."""
  path = os.path.join(SOURCE, "models", "humanoid.xml")
  base = mujoco.MjModel.from_xml_path(path)
  heavy = mujoco.MjModel.from_xml_path(path)
  heavy.body_mass[:] *= 1.5
  x0, ctrl = rollout_inputs(base, nroll=4, nstep=6)
  models = [base, heavy, heavy, base]
  state, sens = mujoco.rollout.rollout(models, [mujoco.MjData(base)] * 2, x0, ctrl,
                                       persistent_pool=True)
  for r, m in enumerate(models):
    ref_s, ref_d = sequential(m, x0[r:r + 1], ctrl[r:r + 1])
    assert np.array_equal(state[r], ref_s[0]) and np.array_equal(sens[r], ref_d[0]), r
  assert not np.array_equal(state[0], state[1])            # the mass change mattered
  mujoco.rollout.shutdown_persistent_pool()
  assert "_rollout_pools" not in base.__dict__
  again, _ = mujoco.rollout.rollout([base], mujoco.MjData(base), x0, ctrl)
  assert np.array_equal(again[0], state[0]) and np.array_equal(again[3], state[3])
  with pytest.raises(ValueError):
    mujoco.rollout.rollout([base, heavy], mujoco.MjData(base), x0, ctrl)   # 2 models, 4 rollouts
  other = mujoco.MjModel.from_xml_path(os.path.join(SOURCE, "models", "pendulum.xml"))
  with pytest.raises(ValueError):
    mujoco.rollout.rollout([base, other, base, base], mujoco.MjData(base), x0, ctrl)
  with pytest.raises(TypeError):
    mujoco.rollout.rollout([base, "x", base, base], mujoco.MjData(base), x0, ctrl)
