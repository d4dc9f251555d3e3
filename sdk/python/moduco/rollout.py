"""Batch rollouts over Moduco's C thread pool (core/engine/rollout.c), with the call signature
of MuJoCo's ``mujoco.rollout.rollout``.

Every rollout starts from mj_resetData and the initial state (mjSTATE_FULLPHYSICS layout), so
results do not depend on the thread count. The GIL is released while the pool runs.
"""

import numpy as np

from . import _moduco

_FULLPHYSICS = 1 | 2 | 4 | 8 | 4096     # mjSTATE_FULLPHYSICS: time, qpos, qvel, act, plugin
_CTRL = 32                               # mjSTATE_CTRL


def _pool(model, nthread, nroll):
  """The model's cached pool for nthread threads, grown to hold nroll rollouts."""
  pools = model.__dict__.setdefault("_rollout_pools", {})
  pool = pools.get(nthread)
  if pool is None or pool.nbatch < nroll:
    pool = pools[nthread] = _moduco.RolloutPool(model, nthread, max(nroll, 1))
  return pool


def _nthread(data, nthread):
  if nthread is not None:
    if isinstance(nthread, bool) or not isinstance(nthread, (int, np.integer)) or nthread < 1:
      raise ValueError(f"rollout: nthread must be a positive int, got {nthread!r}")
    return int(nthread)
  if isinstance(data, (list, tuple)):
    if not data or not all(isinstance(d, _moduco.Data) for d in data):
      raise TypeError("rollout: data must be an MjData or a non-empty list of MjData")
    return len(data)
  if not isinstance(data, _moduco.Data):
    raise TypeError(f"rollout: expected MjData, got {type(data).__name__}")
  return 1


def rollout(model, data, initial_state, control=None, *, control_spec=_CTRL,
            skip_checks=False, nstep=None, initial_warmstart=None, state=None,
            sensordata=None, chunk_size=None, nthread=None):
  """Roll out nroll trajectories of nstep steps.

  initial_state: (nroll, nstate) in the mjSTATE_FULLPHYSICS layout (a single state is used
  for every rollout). control: (nroll, nstep, nu) controls applied before each step, or
  (nstep, nu) for all rollouts; None: zero controls. Returns (state, sensordata) of shapes
  (nroll, nstep, nstate) and (nroll, nstep, nsensordata), the state after each step. data (an
  MjData or a list of them) is only used to pick the thread count (len(data)); nthread
  overrides it. state/sensordata: optional float64 output arrays to fill.
  """
  if isinstance(model, (list, tuple)):
    if not model or any(m is not model[0] for m in model):
      raise ValueError("rollout: Moduco rolls out one model per call (pass the same model)")
    model = model[0]
  if not isinstance(model, _moduco.Model):
    raise TypeError(f"rollout: expected MjModel, got {type(model).__name__}")
  threads = _nthread(data, nthread)
  if int(control_spec) != _CTRL:
    raise ValueError("rollout: only control_spec=mjSTATE_CTRL is supported")
  if initial_warmstart is not None:
    raise ValueError("rollout: initial_warmstart is not supported (every rollout starts cold)")

  ns = _moduco.mj_stateSize(model, _FULLPHYSICS)
  x0 = np.asarray(initial_state, dtype=np.float64)
  if x0.ndim == 1:
    x0 = x0[None, :]
  if x0.ndim != 2 or x0.shape[1] != ns:
    raise ValueError(f"rollout: initial_state must be (nroll, {ns}), got {x0.shape}")
  nroll = x0.shape[0]

  ctrl = None
  if control is not None:
    ctrl = np.asarray(control, dtype=np.float64)
    if ctrl.ndim == 2:
      ctrl = np.broadcast_to(ctrl, (nroll,) + ctrl.shape)
    if ctrl.ndim != 3 or ctrl.shape[0] != nroll or ctrl.shape[2] != model.nu:
      raise ValueError(f"rollout: control must be (nroll={nroll}, nstep, nu={model.nu}), "
                       f"got {np.shape(control)}")
    if nstep is not None and nstep != ctrl.shape[1]:
      raise ValueError(f"rollout: nstep={nstep} but control has {ctrl.shape[1]} steps")
    nstep = ctrl.shape[1]
    ctrl = np.ascontiguousarray(ctrl)
  if nstep is None:
    raise ValueError("rollout: give nstep or a control sequence")
  if isinstance(nstep, bool) or not isinstance(nstep, (int, np.integer)) or nstep < 0:
    raise ValueError(f"rollout: nstep must be a non-negative int, got {nstep!r}")
  nstep = int(nstep)

  if state is None:
    state = np.empty((nroll, nstep, ns))
  if sensordata is None:
    sensordata = np.empty((nroll, nstep, model.nsensordata))
  pool = _pool(model, threads, nroll)
  pool.rollout(nroll, nstep, _FULLPHYSICS, np.ascontiguousarray(x0), ctrl, state, sensordata)
  return state, sensordata


def warnings(model, nthread=1, n=None):
  """Warnings raised by each rollout of the model's last call on the pool of nthread threads."""
  pool = model.__dict__.get("_rollout_pools", {}).get(nthread)
  if pool is None:
    raise ValueError("rollout.warnings: no rollout ran on that pool")
  return pool.warnings(pool.nbatch if n is None else n)


class Rollout:
  """MuJoCo 3.3's reusable rollout object: ``with Rollout(nthread=2) as r: r.rollout(...)``.

  The thread pools live on the models (cached per thread count), so close() has nothing to free.
  """

  def __init__(self, *, nthread=None):
    if nthread is not None:
      _nthread(None, nthread)                      # validates
    self.nthread = nthread

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  def close(self):
    pass

  def rollout(self, model, data, initial_state, control=None, **kwargs):
    kwargs.setdefault("nthread", self.nthread)
    return rollout(model, data, initial_state, control, **kwargs)
