"""Batch rollouts on a Dask cluster (dask.distributed, Debian python3-distributed).

    from dask.distributed import Client
    import moduco, moduco.distributed
    client = Client("tcp://scheduler:8786")            # or Client(LocalCluster(...))
    state, sensordata = moduco.distributed.rollout(client, "model.xml", x0, ctrl)

The batch is split into chunks; each worker compiles the model once (cached per process by the
model's content) and runs its chunks with the C rollout (moduco.rollout). Results come back in
input order and are bitwise identical to a local moduco.rollout.rollout: every rollout starts
from mj_resetData and its initial state, whatever process runs it.
"""

import hashlib
import math
import os

import numpy as np

_models = {}            # per worker process: model key -> MjModel
_compiles = [0]         # per worker process: number of compilations (for tests and reports)


def _spec(model, assets):
  """What a worker needs to compile the model, and a key of its content."""
  if not isinstance(model, str):
    raise TypeError(f"distributed.rollout: model must be a file path or MJCF text, got "
                    f"{type(model).__name__}")
  if assets is not None and not isinstance(assets, dict):
    raise TypeError("distributed.rollout: assets must be a dict of file name -> bytes")
  h = hashlib.sha256()
  if model.lstrip().startswith("<"):
    spec = ("xml", model, dict(assets or {}))
    h.update(model.encode())
    for name in sorted(spec[2]):
      content = spec[2][name]
      h.update(name.encode() + b"\0" + (content.encode() if isinstance(content, str)
                                         else bytes(content)))
  else:
    path = os.path.abspath(model)
    if not os.path.exists(path):
      raise ValueError(f"distributed.rollout: no model file {path}")
    spec = ("path", path, dict(assets or {}))
    with open(path, "rb") as f:
      h.update(path.encode() + b"\0" + f.read())
  return h.hexdigest(), spec


def _model(key, spec):
  """The worker's compiled model for key (compiled on first use)."""
  m = _models.get(key)
  if m is None:
    import moduco
    kind, source, assets = spec
    m = (moduco.MjModel.from_xml_string(source, assets) if kind == "xml"
         else moduco.MjModel.from_xml_path(source, assets))
    _models[key] = m
    _compiles[0] += 1
  return m


def _run_chunk(key, spec, x0, ctrl, nstep, nthread):
  """Worker side: one chunk of rollouts with the C rollout."""
  from moduco import rollout as local
  m = _model(key, spec)
  return local.rollout(m, None, x0, ctrl, nstep=nstep, nthread=nthread)


def compile_count():
  """Number of model compilations in this process (run on workers with client.run)."""
  return _compiles[0]


def rollout(client, model, initial_state, control=None, *, nstep=None, assets=None,
            chunk_size=None, nthread=1):
  """Rollouts of moduco.rollout.rollout spread over the workers of a dask.distributed Client.

  model: an MJCF file path (seen by every worker: a shared or local file system) or MJCF text
  with its assets (file name -> bytes), shipped to the workers. initial_state (nroll, nstate,
  mjSTATE_FULLPHYSICS layout), control (nroll, nstep, nu) or None with nstep. chunk_size:
  rollouts per task (default: two tasks per worker). nthread: C threads per task. Returns
  (state, sensordata) of shapes (nroll, nstep, nstate), (nroll, nstep, nsensordata).
  """
  key, spec = _spec(model, assets)
  x0 = np.asarray(initial_state, dtype=np.float64)
  if x0.ndim != 2:
    raise ValueError(f"distributed.rollout: initial_state must be (nroll, nstate), got "
                     f"{x0.shape}")
  nroll = x0.shape[0]
  ctrl = None
  if control is not None:
    ctrl = np.asarray(control, dtype=np.float64)
    if ctrl.ndim != 3 or ctrl.shape[0] != nroll:
      raise ValueError(f"distributed.rollout: control must be (nroll={nroll}, nstep, nu), got "
                       f"{ctrl.shape}")
    nstep = ctrl.shape[1] if nstep is None else nstep
  if nstep is None:
    raise ValueError("distributed.rollout: give nstep or a control sequence")
  if chunk_size is None:
    nworkers = max(1, len(client.scheduler_info().get("workers", {})))
    chunk_size = max(1, math.ceil(nroll / (2 * nworkers)))
  if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
    raise ValueError(f"distributed.rollout: chunk_size must be a positive int, got "
                     f"{chunk_size!r}")
  # inputs go to the workers as scattered data, not inside the task graph; hash=False gives
  # every call its own keys (content-hashed keys shared by two calls get cancelled when the
  # first call's futures are released)
  starts = range(0, nroll, chunk_size)
  x0s = client.scatter([x0[a:a + chunk_size] for a in starts], hash=False)
  ctrls = (client.scatter([ctrl[a:a + chunk_size] for a in starts], hash=False)
           if ctrl is not None else [None] * len(x0s))
  [spec_future] = client.scatter([spec], broadcast=True, hash=False)
  futures = [client.submit(_run_chunk, key, spec_future, x, c, nstep, nthread, pure=False)
             for x, c in zip(x0s, ctrls)]
  results = client.gather(futures)
  if not results:
    raise ValueError("distributed.rollout: empty batch")
  return (np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results]))
