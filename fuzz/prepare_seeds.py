#!/usr/bin/env python3
"""Build the seed corpora of the fuzz targets (see docs/fuzzing.md).

usage: prepare_seeds.py OUTDIR

OUTDIR/mjcf    every MJCF file of models/ and ../shared/corpus/, with its <include> files appended
               after NUL bytes and renamed inc1.xml, inc2.xml, ... (the harness's in-memory file
               system), plus tests/hardening/inputs/mjcf
OUTDIR/plugin  valid and broken library/descriptor byte strings, plus the saved inputs
OUTDIR/mesh    STL and OBJ files of the corpus (up to 256 KiB each), with a format tag byte
"""
import os
import re
import shutil
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("MODUCO_SHARED_CORPUS",
                        os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
INCLUDE = re.compile(rb'(<include\s+file\s*=\s*")([^"]*)(")')


def mjcf_seed(path):
    """main file plus its includes (recursively), joined with NUL; None if too many files"""
    files = [None]
    names = {}

    def load(p):
        with open(p, "rb") as f:
            data = f.read()
        base = os.path.dirname(p)

        def sub(m):
            inc = os.path.normpath(os.path.join(base, m.group(2).decode("utf-8", "replace")))
            if inc not in names:
                if len(files) >= 16 or not os.path.isfile(inc):
                    return m.group(0)
                names[inc] = "inc%d.xml" % len(files)
                files.append(None)
                files[files.index(None, 1)] = load(inc)
            return m.group(1) + names[inc].encode() + m.group(3)

        return INCLUDE.sub(sub, data)

    files[0] = load(path)
    return b"\0".join(f for f in files if f is not None)


def xml_files(top):
    for d, _, fs in os.walk(top):
        for f in sorted(fs):
            if f.endswith(".xml"):
                yield os.path.join(d, f)


def plugin_seeds():
    """library header then four descriptors, in the harness's byte layout"""
    seeds = []
    for kind in range(1, 8):
        for nplugin in (1, 2, 4):
            lib = struct.pack("<II", 0, nplugin)
            desc = b""
            for _ in range(4):
                name = b"vendor.fuzz%d" % kind
                desc += struct.pack("<III", 0, kind - 1, 0)            # sel, kind, code
                desc += struct.pack("<I", len(name)) + name
                desc += struct.pack("<I", 6) + b"motor2"
                desc += struct.pack("<I", 0xff01)                      # callbacks set
                if kind == 4:
                    desc += struct.pack("<I", 3) + struct.pack("<16i", *([0, 0, 2, 6] * 4))
            seeds.append(lib + desc)
    return seeds


def main():
    out = sys.argv[1]
    for sub in ("mjcf", "plugin", "mesh"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)

    # MJCF: bundled models, the shared corpus, the saved regression inputs
    n = 0
    for top in (os.path.join(ROOT, "models"), SHARED):
        if not os.path.isdir(top):
            continue
        for p in xml_files(top):
            seed = mjcf_seed(p)
            name = os.path.relpath(p, top).replace("/", "_")
            with open(os.path.join(out, "mjcf", name), "wb") as f:
                f.write(seed)
            n += 1
    inputs = os.path.join(ROOT, "tests", "hardening", "inputs")
    for sub in ("mjcf", "plugin", "mesh"):
        d = os.path.join(inputs, sub)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f != "README.md":
                    shutil.copy(os.path.join(d, f), os.path.join(out, sub, "saved_" + f))

    # plugin descriptors
    for i, s in enumerate(plugin_seeds()):
        with open(os.path.join(out, "plugin", "seed%03d" % i), "wb") as f:
            f.write(s)

    # meshes: tag byte 's' (STL) or 'o' (OBJ), then the file
    m = 0
    if os.path.isdir(SHARED):
        for d, _, fs in os.walk(SHARED):
            for f in sorted(fs):
                ext = f.lower().rsplit(".", 1)[-1]
                p = os.path.join(d, f)
                if ext in ("stl", "obj") and os.path.getsize(p) <= 256 * 1024:
                    with open(p, "rb") as src:
                        data = src.read()
                    tag = b"s" if ext == "stl" else b"o"
                    name = os.path.relpath(p, SHARED).replace("/", "_")
                    with open(os.path.join(out, "mesh", name), "wb") as dst:
                        dst.write(tag + data)
                    m += 1
    print("seeds: %d MJCF, %d plugin, %d mesh" % (n, len(plugin_seeds()), m))


if __name__ == "__main__":
    main()
