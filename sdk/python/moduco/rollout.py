"""Batch rollouts over Moduco's C thread pool (core/engine/rollout.c), with the call signature
of MuJoCo's ``mujoco.rollout.rollout``.

Every rollout starts from mj_resetData and the initial state (mjSTATE_FULLPHYSICS layout), so
results do not depend on the thread count. The GIL is released while the pool runs.
"""

import weakref

import numpy as np

from . import _moduco

_FULLPHYSICS = 1 | 2 | 4 | 8 | 4096     # mjSTATE_FULLPHYSICS: time, qpos, qvel, act, plugin
_CTRL = 32                               # mjSTATE_CTRL
_live_pools = weakref.WeakSet()          # models that hold a pool (shutdown_persistent_pool)


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


def _models(model, nroll):
  """The model of every rollout: one MjModel, or a sequence of nroll (or 1) compatible ones."""
  if isinstance(model, _moduco.Model):
    return [model]
  if not isinstance(model, (list, tuple)) or not model:
    raise TypeError(f"rollout: expected MjModel or a sequence of MjModel, got "
                    f"{type(model).__name__}")
  for m in model:
    if not isinstance(m, _moduco.Model):
      raise TypeError(f"rollout: expected MjModel in the model sequence, got {type(m).__name__}")
  if len(model) not in (1, nroll):
    raise ValueError(f"rollout: {len(model)} models for {nroll} rollouts (give 1 or {nroll})")
  sizes = [(m.nq, m.nv, m.nu, m.na, m.nsensordata) for m in model]
  if any(s != sizes[0] for s in sizes):
    raise ValueError("rollout: the models differ in nq, nv, nu, na or nsensordata")
  return list(model)


def rollout(model, data, initial_state, control=None, *, control_spec=_CTRL,
            skip_checks=False, nstep=None, initial_warmstart=None, state=None,
            sensordata=None, chunk_size=None, persistent_pool=False, nthread=None):
  """Roll out nroll trajectories of nstep steps.

  model: an MjModel, or a sequence of nroll MjModel of the same sizes (e.g. randomized
  parameters; rollouts of each distinct model run together on its pool). initial_state: (nroll,
  nstate) in the mjSTATE_FULLPHYSICS layout (a single state is used for every rollout).
  control: (nroll, nstep, nu) controls applied before each step, or (nstep, nu) for all
  rollouts; None: zero controls. Returns (state, sensordata) of shapes (nroll, nstep, nstate)
  and (nroll, nstep, nsensordata), the state after each step. data (an MjData or a list of them)
  is only used to pick the thread count (len(data)); nthread overrides it. state/sensordata:
  optional float64 output arrays to fill. persistent_pool and chunk_size are accepted for
  MuJoCo's signature: pools are always kept (on the model) and the C pool sizes its own chunks.
  """
  threads = _nthread(data, nthread)
  if int(control_spec) != _CTRL:
    raise ValueError("rollout: only control_spec=mjSTATE_CTRL is supported")
  if initial_warmstart is not None:
    raise ValueError("rollout: initial_warmstart is not supported (every rollout starts cold)")

  first = model[0] if isinstance(model, (list, tuple)) and model else model
  if not isinstance(first, _moduco.Model):
    raise TypeError(f"rollout: expected MjModel, got {type(first).__name__}")
  ns = _moduco.mj_stateSize(first, _FULLPHYSICS)
  x0 = np.asarray(initial_state, dtype=np.float64)
  if x0.ndim == 1:
    x0 = x0[None, :]
  if x0.ndim != 2 or x0.shape[1] != ns:
    raise ValueError(f"rollout: initial_state must be (nroll, {ns}), got {x0.shape}")
  nroll = x0.shape[0]
  models = _models(model, nroll)

  ctrl = None
  if control is not None:
    ctrl = np.asarray(control, dtype=np.float64)
    if ctrl.ndim == 2:
      ctrl = np.broadcast_to(ctrl, (nroll,) + ctrl.shape)
    if ctrl.ndim != 3 or ctrl.shape[0] != nroll or ctrl.shape[2] != first.nu:
      raise ValueError(f"rollout: control must be (nroll={nroll}, nstep, nu={first.nu}), "
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
    sensordata = np.empty((nroll, nstep, first.nsensordata))
  if len(models) == 1:
    _run(models[0], threads, x0, ctrl, nstep, state, sensordata)
    return state, sensordata

  # several models: the rollouts of each distinct model together, results back in input order
  for m in {id(m): m for m in models}.values():
    idx = np.array([i for i, mi in enumerate(models) if mi is m])
    s = np.empty((len(idx), nstep, ns))
    sd = np.empty((len(idx), nstep, first.nsensordata))
    _run(m, threads, x0[idx], None if ctrl is None else ctrl[idx], nstep, s, sd)
    state[idx] = s
    sensordata[idx] = sd
  return state, sensordata


def _run(model, threads, x0, ctrl, nstep, state, sensordata):
  """One model's rollouts on its pool (the C pool checks the output arrays)."""
  pool = _pool(model, threads, x0.shape[0])
  try:
    _live_pools.add(model)
  except TypeError:          # a bare _moduco.Model has no weak references: its pool stays
    pass
  pool.rollout(x0.shape[0], nstep, _FULLPHYSICS, np.ascontiguousarray(x0),
               None if ctrl is None else np.ascontiguousarray(ctrl), state, sensordata)


def shutdown_persistent_pool():
  """Free the thread pools kept on the models (MuJoCo's name; they are made again on demand)."""
  for model in list(_live_pools):
    model.__dict__.pop("_rollout_pools", None)
  _live_pools.clear()


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
