"""`moduco bench` from Python: A/B benchmarks of solvers, integrators and MuJoCo 2.2.2.

    import moduco.bench
    report = moduco.bench.run(["models/humanoid.xml"], solver=["newton", "pgs"], steps=1000)
    for arm in report["arms"]:
        print(arm["solver"], arm["steps_per_second"]["median"], arm["ratio_to_baseline"])

This runs the `moduco bench` command (docs/bench.md) and returns its JSON report as a dict, so
Python gets exactly the figures the command prints. Keyword options are the command's flags:
solver=["a", "b"] is --solver a,b; profile=True is --profile; reference="mujoco" is --reference
mujoco. The command is found in $MODUCO_CLI, then beside a build-tree package
(<build>/bin/moduco), then on PATH.
"""

import json
import os
import shutil
import subprocess
import tempfile


def command():
  """Path of the moduco command; RuntimeError if there is none."""
  env = os.environ.get("MODUCO_CLI")
  if env and os.access(env, os.X_OK):
    return env
  here = os.path.dirname(os.path.abspath(__file__))
  beside = os.path.join(here, "..", "..", "bin", "moduco")   # <build>/python/moduco -> <build>/bin
  if os.access(beside, os.X_OK):
    return os.path.abspath(beside)
  found = shutil.which("moduco")
  if found:
    return found
  raise RuntimeError("moduco.bench: the moduco command was not found (set MODUCO_CLI, or use "
                     "the package of a CMake build tree, or put moduco on PATH)")


def _flags(options):
  args = []
  for key, value in options.items():
    flag = "--" + key.replace("_", "-")
    if value is None or value is False:
      continue
    if value is True:
      args.append(flag)
    elif isinstance(value, (list, tuple)):
      args += [flag, ",".join(str(v) for v in value)]
    else:
      args += [flag, str(value)]
  return args


def run(models, **options):
  """Run `moduco bench MODELS... [options]` and return its JSON report (a dict).

  Raises ValueError with the command's message for a bad command line (exit code 2); arms that
  failed (exit code 1) are kept in the report with their "error", as the command does.
  """
  if isinstance(models, (str, os.PathLike)):
    models = [models]
  if not models:
    raise ValueError("moduco.bench.run: give at least one model")
  if "json" in options:
    raise ValueError("moduco.bench.run: the report is returned; do not pass json=")
  with tempfile.TemporaryDirectory(prefix="moduco-bench-") as tmp:
    out = os.path.join(tmp, "report.json")
    proc = subprocess.run([command(), "bench", *map(str, models), *_flags(options),
                           "--json", out], capture_output=True, text=True)
    if proc.returncode == 2 or not os.path.exists(out):
      raise ValueError(f"moduco bench: {proc.stderr.strip() or proc.stdout.strip()}")
    with open(out) as f:
      report = json.load(f)
  report["text"] = proc.stdout
  return report
