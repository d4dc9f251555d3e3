"""A Gymnasium-style environment over moduco, without a gymnasium dependency: reset() returns
(observation, info), step(action) returns (observation, reward, terminated, truncated, info),
like Gymnasium's MuJoCo environments (written against MuJoCo's API, run with moduco as mujoco).

    PYTHONPATH=build/python /usr/bin/python3 sdk/examples/python/gym_env.py [ant|hopper] [STEPS]

runs a random policy on the corpus gym_ant or dm_hopper model and prints the episode returns.
"""

import os
import sys

import numpy as np

import moduco as mujoco

CORPUS = os.environ.get("MODUCO_CORPUS", "/work/shared/corpus")


class MujocoEnv:
  """Base: a model, its data, frame skipping, a random-state reset and a time limit."""

  def __init__(self, model_path, frame_skip, max_steps=1000, reset_noise=0.1):
    self.model = mujoco.MjModel.from_xml_path(model_path)
    self.data = mujoco.MjData(self.model)
    self.frame_skip = frame_skip
    self.max_steps = max_steps
    self.reset_noise = reset_noise
    self.dt = self.model.opt.timestep * frame_skip
    lo, hi = self.model.actuator_ctrlrange.T
    self.action_low, self.action_high = lo.copy(), hi.copy()
    self.rng = np.random.default_rng()
    self.steps = 0

  def reset(self, seed=None):
    if seed is not None:
      self.rng = np.random.default_rng(seed)
    m, d = self.model, self.data
    mujoco.mj_resetData(m, d)
    n = self.reset_noise
    d.qpos = m.qpos0 + self.rng.uniform(-n, n, m.nq)
    d.qvel = n * self.rng.standard_normal(m.nv)
    mujoco.mj_forward(m, d)
    self.steps = 0
    return self.observation(), {}

  def step(self, action):
    action = np.clip(np.asarray(action, dtype=float), self.action_low, self.action_high)
    x_before = self.data.qpos[0]
    self.data.ctrl = action
    mujoco.mj_step(self.model, self.data, nstep=self.frame_skip)
    mujoco.mj_rnePostConstraint(self.model, self.data)
    self.steps += 1
    forward = (self.data.qpos[0] - x_before) / self.dt
    reward, terminated = self.reward(forward, action)
    truncated = self.steps >= self.max_steps
    info = {"x_velocity": forward, "time": self.data.time}
    return self.observation(), reward, terminated, truncated, info

  def sample_action(self):
    return self.rng.uniform(self.action_low, self.action_high)


class AntEnv(MujocoEnv):
  """Gymnasium Ant on the corpus gym_ant model: walk along +x while staying upright."""

  def __init__(self, **kw):
    super().__init__(os.path.join(CORPUS, "gym_ant", "ant.xml"), frame_skip=5, **kw)

  def observation(self):
    d = self.data
    return np.concatenate([d.qpos[2:], d.qvel, np.clip(d.cfrc_ext[1:], -1, 1).ravel()])

  def reward(self, forward, action):
    z = self.data.body("torso").xpos[2]
    healthy = np.isfinite(self.data.qpos).all() and 0.2 <= z <= 1.0
    return forward + 1.0 - 0.5 * float(action @ action), not healthy


class HopperEnv(MujocoEnv):
  """Gymnasium Hopper on the corpus dm_hopper model: hop along +x without falling."""

  def __init__(self, **kw):
    super().__init__(os.path.join(CORPUS, "dm_hopper", "hopper.xml"), frame_skip=4,
                     reset_noise=0.005, **kw)

  def observation(self):
    d = self.data
    return np.concatenate([d.qpos[1:], np.clip(d.qvel, -10, 10)])

  def reward(self, forward, action):
    d = self.data
    z = d.joint("rootz").qpos[0] + 1.0          # rootz is the height above the initial torso
    angle = d.joint("rooty").qpos[0]
    healthy = np.isfinite(d.qpos).all() and z > 0.7 and abs(angle) < 0.2
    return forward + 1.0 - 1e-3 * float(action @ action), not healthy


ENVS = {"ant": AntEnv, "hopper": HopperEnv}


def random_policy(name, steps, seed=0):
  """Episode returns of a random policy over `steps` environment steps."""
  env = ENVS[name](max_steps=200)
  env.reset(seed=seed)
  returns, total = [], 0.0
  for _ in range(steps):
    obs, reward, terminated, truncated, _ = env.step(env.sample_action())
    assert np.isfinite(obs).all()
    total += reward
    if terminated or truncated:
      returns.append(total)
      total = 0.0
      env.reset()
  return returns, obs.shape


if __name__ == "__main__":
  name = sys.argv[1] if len(sys.argv) > 1 else "ant"
  steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
  returns, shape = random_policy(name, steps)
  print(f"{name}: observation {shape}, {len(returns)} episodes finished in {steps} steps, "
        f"returns {np.round(returns, 2).tolist()}")
