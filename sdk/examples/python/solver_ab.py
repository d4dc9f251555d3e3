"""A/B of constraint solvers from Python: every registered solver plugin on the same model and
controls; speed and the final state's distance to the first solver.

    PYTHONPATH=build/python /usr/bin/python3 sdk/examples/python/solver_ab.py [MODEL] [STEPS]
"""

import os
import sys
import time

import numpy as np

import moduco as mujoco

HERE = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "models",
                                                          "humanoid.xml")
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000


def run(solver):
  m = mujoco.MjModel.from_xml_path(path)
  m.set_solver(solver)
  d = mujoco.MjData(m)
  ctrl = np.random.default_rng(0).uniform(-0.3, 0.3, (steps, m.nu))
  t0 = time.perf_counter()
  for t in range(steps):
    d.ctrl = ctrl[t]
    mujoco.mj_step(m, d)
  return steps / (time.perf_counter() - t0), d.qpos.copy(), int(d.warning.number.sum())


def main():
  solvers = [p["name"] for p in mujoco.plugins() if p["kind"] == "solver"]
  results = {s: run(s) for s in solvers}
  ref = results[solvers[0]][1]
  print(f"{os.path.basename(path)}, {steps} steps")
  for s, (rate, qpos, warnings) in results.items():
    print(f"  {s:10s} {rate:10,.0f} steps/s  |qpos - {solvers[0]}| = "
          f"{np.abs(qpos - ref).max():.3g}  warnings {warnings}")
  return results


if __name__ == "__main__":
  main()
