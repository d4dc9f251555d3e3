"""Batch rollouts over Moduco's C thread pool (core/engine/rollout.c), with the call signature
of MuJoCo's ``mujoco.rollout.rollout``.

Every rollout starts from mj_resetData and the initial state (mjSTATE_FULLPHYSICS layout), so
results do not depend on the thread count. The GIL is released while the pool runs.
"""

import operator
import weakref

import numpy as np

from . import _moduco

_FULLPHYSICS = 1 | 2 | 4 | 8 | 4096     # mjSTATE_FULLPHYSICS: time, qpos, qvel, act, plugin
_CTRL = 32                               # mjSTATE_CTRL
_USER = 0xFE0                            # mjSTATE_USER: ctrl, qfrc/xfrc_applied, eq_active,
                                         # mocap_pos/quat, userdata
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
  control: (nroll, nstep, ncontrol) vectors applied with mj_setState(control_spec) before each
  step, or (nstep, ncontrol) for all rollouts; ncontrol = mj_stateSize(model, control_spec);
  None: nothing applied (zero controls). control_spec: any combination of the mjSTATE_USER bits
  (CTRL, QFRC_APPLIED, XFRC_APPLIED, EQ_ACTIVE, MOCAP_POS, MOCAP_QUAT, USERDATA).
  initial_warmstart: (nroll, nv) or (nv,), set as qacc_warmstart after the initial state.
  Returns (state, sensordata) of shapes (nroll, nstep, nstate) and (nroll, nstep, nsensordata),
  the state after each step. data (an MjData or a list of them) is only used to pick the thread
  count (len(data)); nthread overrides it. state/sensordata: optional float64 output arrays to
  fill. persistent_pool, chunk_size and skip_checks are accepted for MuJoCo's signature: pools
  are always kept (on the model), the C pool sizes its own chunks and the checks always run.
  """
  threads = _nthread(data, nthread)
  cspec = _control_spec(control_spec)

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
  if any(_moduco.mj_stateSize(m, cspec) != _moduco.mj_stateSize(first, cspec) for m in models):
    raise ValueError("rollout: the models differ in the size of control_spec")

  warm = None
  if initial_warmstart is not None:
    warm = np.asarray(initial_warmstart, dtype=np.float64)
    if warm.ndim == 1 or (warm.ndim == 2 and warm.shape[0] == 1):
      warm = np.broadcast_to(warm.reshape(1, -1), (nroll, warm.size))
    if warm.ndim != 2 or warm.shape != (nroll, first.nv):
      raise ValueError(f"rollout: initial_warmstart must be (nroll={nroll}, nv={first.nv}) "
                       f"or (nv,), got {np.shape(initial_warmstart)}")
    warm = np.ascontiguousarray(warm)

  ctrl = None
  if control is not None:
    nc = _moduco.mj_stateSize(first, cspec)
    ctrl = np.asarray(control, dtype=np.float64)
    if ctrl.ndim == 2:
      ctrl = np.broadcast_to(ctrl, (nroll,) + ctrl.shape)
    if ctrl.ndim != 3 or ctrl.shape[0] != nroll or ctrl.shape[2] != nc:
      raise ValueError(f"rollout: control must be (nroll={nroll}, nstep, {nc}) for control_spec "
                       f"{cspec}, got {np.shape(control)}")
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
    _run(models[0], threads, x0, ctrl, cspec, warm, nstep, state, sensordata)
    return state, sensordata

  # several models: the rollouts of each distinct model together, results back in input order
  for m in {id(m): m for m in models}.values():
    idx = np.array([i for i, mi in enumerate(models) if mi is m])
    s = np.empty((len(idx), nstep, ns))
    sd = np.empty((len(idx), nstep, first.nsensordata))
    _run(m, threads, x0[idx], None if ctrl is None else ctrl[idx], cspec,
         None if warm is None else warm[idx], nstep, s, sd)
    state[idx] = s
    sensordata[idx] = sd
  return state, sensordata


def _control_spec(spec):
  """control_spec as an int holding only bits of mjSTATE_USER, else ValueError."""
  try:
    if isinstance(spec, bool):
      raise TypeError
    value = operator.index(spec)
  except TypeError:
    raise ValueError(f"rollout: control_spec must be an int (mjtState bits), got {spec!r}") \
        from None
  if value < 0 or value & ~_USER:
    raise ValueError(f"rollout: control_spec {value} has bits outside mjSTATE_USER ({_USER})")
  return value


def _run(model, threads, x0, ctrl, cspec, warm, nstep, state, sensordata):
  """One model's rollouts on its pool (the C pool checks the output arrays)."""
  pool = _pool(model, threads, x0.shape[0])
  try:
    _live_pools.add(model)
  except TypeError:          # a bare _moduco.Model has no weak references: its pool stays
    pass
  pool.rollout(x0.shape[0], nstep, _FULLPHYSICS, np.ascontiguousarray(x0),
               None if ctrl is None else np.ascontiguousarray(ctrl), state, sensordata, cspec,
               None if warm is None else np.ascontiguousarray(warm))


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
