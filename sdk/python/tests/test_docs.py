"""The tutorial of docs/python.md runs as written (from the repository root)."""

import os
import re
import subprocess
import sys

from conftest import SOURCE


def test_tutorial_runs():
  text = open(os.path.join(SOURCE, "docs", "python.md")).read()
  blocks = re.findall(r"```python\n(.*?)```", text, re.S)
  assert len(blocks) >= 2
  tutorial = blocks[0]
  assert "mj_step" in tutorial and "rollout" in tutorial
  out = subprocess.run([sys.executable, "-c", tutorial], cwd=SOURCE, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
  assert out.returncode == 0, out.stderr
  assert "newton" in out.stdout
