#!/usr/bin/env python3
# Compile time against model size (issue 21: compiling must stay about linear in the bodies).
#
#   python3 benchmarks/compile-scale.py [--moduco build/bin/moduco] [--repeat 3] [SCENE:N ...]
#
# Scenes (written to a temporary folder, deterministic):
#   free:N   N named free bodies, each with a named joint and geom, and a site
#   chain:N  one hinge chain N bodies deep (the constants at qpos0 walk every dof chain)
# Default: free:10000 free:50000 chain:990. Prints the best wall time of `moduco compile` per
# scene (model reading included; the process start is a few ms).
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_scene(n):
    rows = ['<mujoco model="free %d">' % n, '<option timestep="0.002"/>', "<worldbody>"]
    for i in range(n):
        x, y, z = i % 100, (i // 100) % 100, i // 10000
        rows.append('<body name="b%d" pos="%d %d %d"><freejoint name="j%d"/>'
                    '<geom name="g%d" size="0.1"/><site name="s%d"/></body>' % (i, x, y, z, i, i, i))
    rows += ["</worldbody>", "</mujoco>"]
    return "\n".join(rows)


def chain_scene(n):
    head = '<mujoco model="chain %d"><worldbody>' % n
    body = '<body pos="0 0 0.1"><joint axis="%s"/><geom size="0.05" mass="1"/>'
    axes = ["1 0 0", "0 1 0", "0 0 1"]
    return head + "".join(body % axes[i % 3] for i in range(n)) + "</body>" * n + \
        "</worldbody></mujoco>"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--moduco", default=os.path.join(HERE, "..", "build", "bin", "moduco"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("scenes", nargs="*", default=["free:10000", "free:50000", "chain:990"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("| scene | bodies | best of %d (s) |" % a.repeat)
        print("| --- | --- | --- |")
        for spec in a.scenes:
            kind, n = spec.split(":")
            n = int(n)
            text = free_scene(n) if kind == "free" else chain_scene(n)
            path = os.path.join(tmp, "%s%d.xml" % (kind, n))
            with open(path, "w") as f:
                f.write(text)
            best = None
            for _ in range(a.repeat):
                t = time.perf_counter()
                r = subprocess.run([a.moduco, "compile", path], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
                dt = time.perf_counter() - t
                if r.returncode != 0:
                    sys.exit("%s: compile failed: %s" % (spec, r.stderr.strip()))
                best = dt if best is None else min(best, dt)
            print("| %s | %d | %.3f |" % (kind, n, best))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
