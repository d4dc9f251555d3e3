"""Every mj_* function with wrong arguments raises TypeError or ValueError (OverflowError for
integers beyond the C int range, as Python does); nothing crashes."""

import itertools
import os

import numpy as np

import moduco as mujoco
from conftest import SOURCE

HUMANOID = os.path.join(SOURCE, "models", "humanoid.xml")


def test_every_function_with_bad_arguments():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  d = mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  other = mujoco.MjModel.from_xml_path(os.path.join(SOURCE, "models", "pendulum.xml"))
  od = mujoco.MjData(other)
  nv = m.nv
  values = [None, "x", 1.5, -1, 7, 10 ** 9, 2 ** 40, np.zeros(1), np.zeros((3, nv)),
            np.zeros((3, nv), dtype=np.float32), np.zeros(nv)[::-1], [1.0], m, d, od, other]
  functions = sorted(n for n in dir(mujoco) if n.startswith("mj_") and callable(getattr(mujoco, n)))
  assert len(functions) > 40
  calls = 0
  for name in functions:
    fn = getattr(mujoco, name)
    for n in range(0, 6):
      heads = [(), (m,), (m, d), (other, d)]
      for head in heads:
        if len(head) > n:
          continue
        for tail in itertools.islice(itertools.product(values, repeat=n - len(head)), 60):
          if name == "mj_step" and any(isinstance(v, int) and v > 7 for v in tail):
            continue                        # a valid but huge nstep would just run long
          try:
            fn(*head, *tail)
          except (TypeError, ValueError, OverflowError):   # OverflowError: beyond C int
            pass
          calls += 1
  assert calls > 5000
  # the data still steps after all that
  mujoco.mj_resetData(m, d)
  mujoco.mj_step(m, d, nstep=10)
  assert np.isfinite(d.qpos).all()
