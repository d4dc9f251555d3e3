#!/usr/bin/env python3
# Write the benchmark scenes of benchmarks/models/ (deterministic; rerun after editing).
#   pile.xml        64 free bodies (spheres, capsules, boxes) dropped on a plane
#   chain64.xml     64-link hinge chain hanging from the world, no contacts
#   rope50.xml      50 capsule links joined by ball joints, falling onto a plane (contacts)
#   humanoids4.xml  four copies of models/humanoid.xml on one floor
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models")


def write(name, text):
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)


def pile():
    lines = []
    n = 0
    for k in range(4):
        for j in range(4):
            for i in range(4):
                x = -0.45 + 0.3 * i + 0.03 * ((j + k) % 3)
                y = -0.45 + 0.3 * j + 0.03 * ((i + 2 * k) % 3)
                z = 0.3 + 0.32 * k
                kind = n % 3
                if kind == 0:
                    geom = '<geom type="sphere" size="0.08"/>'
                elif kind == 1:
                    geom = '<geom type="capsule" size="0.05" fromto="-0.07 0 0 0.07 0 0"/>'
                else:
                    geom = '<geom type="box" size="0.07 0.06 0.05"/>'
                lines.append(f'    <body name="b{n}" pos="{x:.3f} {y:.3f} {z:.3f}" '
                             f'euler="{7 * n % 40} {11 * n % 30} 0">\n'
                             f'      <freejoint/>\n      {geom}\n    </body>')
                n += 1
    write("pile.xml", f'''<!-- Moduco benchmark: 64 free bodies (spheres, capsules, boxes) dropped on a plane. -->
<mujoco model="bench pile">
  <option timestep="0.002" solver="Newton" iterations="50"/>
  <size nconmax="600" njmax="4000"/>
  <default>
    <geom friction="0.8 0.005 0.0001" density="800"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 0.05"/>
    <geom name="wall_x0" type="box" size="0.02 0.9 0.3" pos="-0.9 0 0.3"/>
    <geom name="wall_x1" type="box" size="0.02 0.9 0.3" pos="0.9 0 0.3"/>
    <geom name="wall_y0" type="box" size="0.9 0.02 0.3" pos="0 -0.9 0.3"/>
    <geom name="wall_y1" type="box" size="0.9 0.02 0.3" pos="0 0.9 0.3"/>
{chr(10).join(lines)}
  </worldbody>
</mujoco>
''')


def chain(nlink):
    body = ""
    close = ""
    for i in range(nlink):
        pad = "  " * (i + 2)
        pos = "0 0 2" if i == 0 else "0.05 0 0"
        body += (f'{pad}<body name="l{i}" pos="{pos}">\n'
                 f'{pad}  <joint name="j{i}" axis="0 1 0"/>\n'
                 f'{pad}  <geom fromto="0 0 0 0.05 0 0" size="0.01"/>\n')
        close = f'{pad}</body>\n' + close
    write(f"chain{nlink}.xml", f'''<!-- Moduco benchmark: a {nlink}-link hinge chain hanging from the world (no contacts). -->
<mujoco model="bench chain{nlink}">
  <option timestep="0.001"/>
  <default>
    <joint type="hinge" damping="0.002"/>
    <geom type="capsule" contype="0" conaffinity="0" density="1000"/>
  </default>
  <worldbody>
{body}{close}  </worldbody>
</mujoco>
''')


def rope(nlink):
    body = ""
    close = ""
    for i in range(nlink):
        pad = "  " * (i + 2)
        if i == 0:
            head = f'{pad}<body name="r0" pos="-1.2 0 0.6">\n{pad}  <freejoint/>\n'
        else:
            head = (f'{pad}<body name="r{i}" pos="0.05 0 0">\n'
                    f'{pad}  <joint name="r{i}" type="ball" damping="0.001"/>\n')
        body += head + f'{pad}  <geom fromto="0 0 0 0.05 0 0" size="0.012"/>\n'
        close = f'{pad}</body>\n' + close
    write(f"rope{nlink}.xml", f'''<!-- Moduco benchmark: {nlink} capsules joined by ball joints, falling onto a plane. -->
<mujoco model="bench rope{nlink}">
  <option timestep="0.001" solver="Newton"/>
  <default>
    <geom type="capsule" density="1000" friction="0.6 0.005 0.0001"/>
  </default>
  <contact>
    <exclude body1="r0" body2="r1"/>
  </contact>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 0.05"/>
{body}{close}  </worldbody>
</mujoco>
''')


def humanoids(copies):
    src = open(os.path.join(HERE, "..", "models", "humanoid.xml")).read()
    head = src[src.index("<compiler"):src.index("<worldbody>")]
    body = src[src.index('<body name="torso"'):src.index("  </worldbody>")]
    act = src[src.index("<actuator>") + len("<actuator>"):src.index("</actuator>")]
    bodies, acts = [], []
    for c in range(copies):
        p = f"h{c}_"
        b = re.sub(r'\b(name|joint|site)="([^"]+)"', lambda m: f'{m.group(1)}="{p}{m.group(2)}"',
                   body)
        x, y = 1.5 * (c % 2), 1.5 * (c // 2)
        b = b.replace('pos="0 0 1.15"', f'pos="{x} {y} 1.15"', 1)
        bodies.append("    " + b.rstrip())
        acts.append(re.sub(r'\b(name|joint)="([^"]+)"',
                           lambda m: f'{m.group(1)}="{p}{m.group(2)}"', act).rstrip())
    write(f"humanoids{copies}.xml", f'''<!-- Moduco benchmark: {copies} copies of models/humanoid.xml on one floor. -->
<mujoco model="bench humanoids{copies}">
  {head.rstrip()}
  <worldbody>
    <geom name="ground" type="plane" size="0 0 0.05" rgba="0.3 0.35 0.4 1"/>
{chr(10).join(bodies)}
  </worldbody>
  <actuator>{"".join(acts)}
  </actuator>
</mujoco>
''')


os.makedirs(OUT, exist_ok=True)
pile()
chain(64)
rope(50)
humanoids(4)
