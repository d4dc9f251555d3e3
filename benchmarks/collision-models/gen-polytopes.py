#!/usr/bin/env python3
"""Write the convex meshes of the collision benchmark (moduco-bench-collision).

Eight random convex polytopes, each the convex hull of 12 to 28 points on a random ellipsoid
(about 5 to 9 cm across): polytope-0..3.obj (ASCII OBJ) and polytope-4..7.stl (binary STL).
Faces are triangles with outward normals; the output is deterministic (fixed seed).

    python3 benchmarks/collision-models/gen-polytopes.py [OUTDIR]
"""
import itertools
import math
import os
import random
import struct
import sys


# points on an ellipsoid with semi-axes a, b, c
def ellipsoid_points(rng, count, a, b, c):
    pts = []
    while len(pts) < count:
        v = [rng.gauss(0, 1) for _ in range(3)]
        n = math.sqrt(sum(x * x for x in v))
        if n < 1e-6:
            continue
        pts.append((a * v[0] / n, b * v[1] / n, c * v[2] / n))
    return pts


def sub(p, q):
    return (p[0] - q[0], p[1] - q[1], p[2] - q[2])


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


# hull faces by brute force: a triangle is a face when every other point lies behind it
def hull(pts):
    centre = tuple(sum(p[k] for p in pts) / len(pts) for k in range(3))
    faces = []
    for i, j, k in itertools.combinations(range(len(pts)), 3):
        n = cross(sub(pts[j], pts[i]), sub(pts[k], pts[i]))
        if dot(n, n) < 1e-18:
            continue
        side = [dot(n, sub(p, pts[i])) for p in pts]
        scale = 1e-12 * math.sqrt(dot(n, n))
        if all(s <= scale for s in side):
            faces.append((i, j, k))
        elif all(s >= -scale for s in side):
            faces.append((i, k, j))
    # outward: the centre is behind every face
    for f in faces:
        n = cross(sub(pts[f[1]], pts[f[0]]), sub(pts[f[2]], pts[f[0]]))
        assert dot(n, sub(centre, pts[f[0]])) < 0
    used = sorted({v for f in faces for v in f})
    remap = {v: i for i, v in enumerate(used)}
    return [pts[v] for v in used], [tuple(remap[v] for v in f) for f in faces]


def write_obj(path, verts, faces):
    with open(path, "w") as f:
        f.write("# convex polytope for moduco-bench-collision (gen-polytopes.py)\n")
        for v in verts:
            f.write("v %.6f %.6f %.6f\n" % v)
        for a, b, c in faces:
            f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def write_stl(path, verts, faces):
    with open(path, "wb") as f:
        f.write(b"convex polytope for moduco-bench-collision".ljust(80, b" "))
        f.write(struct.pack("<I", len(faces)))
        for face in faces:
            p = [verts[i] for i in face]
            n = cross(sub(p[1], p[0]), sub(p[2], p[0]))
            ln = math.sqrt(dot(n, n))
            f.write(struct.pack("<3f", *(x / ln for x in n)))
            for q in p:
                f.write(struct.pack("<3f", *q))
            f.write(struct.pack("<H", 0))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(20220202)
    for i in range(8):
        count = rng.randint(12, 28)
        axes = [rng.uniform(0.025, 0.045) for _ in range(3)]
        verts, faces = hull(ellipsoid_points(rng, count, *axes))
        name = "polytope-%d.%s" % (i, "obj" if i < 4 else "stl")
        (write_obj if i < 4 else write_stl)(os.path.join(out, name), verts, faces)
        print("%s: %d vertices, %d faces" % (name, len(verts), len(faces)))


if __name__ == "__main__":
    main()
