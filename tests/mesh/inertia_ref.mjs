// Body mass properties and the mesh-derived geom and mesh fields as MuJoCo 3.14.0 compiles them
// (npm package @mujoco/mujoco 3.14.0, WebAssembly), for the mesh suites (tests/mesh/*.c, through
// tu_mjs3Json).
//
//   node inertia_ref.mjs [--mujoco 3.3.8] DIR MODEL.xml...
//
// (--mujoco 3.3.8: MuJoCo 3.3.8, mujoco-js 0.0.7, where a test documents a difference.)
// Every file of DIR and of its subfolders (models and the mesh files they name) is copied into the
// in-memory file system and each MODEL.xml (a path relative to DIR) is compiled. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": "MuJoCo's message"} |
//                          {"file", "body_mass": [...], "body_inertia": [...], "body_ipos": [...],
//                           "body_iquat": [...], "geom_type", "geom_pos", "geom_quat",
//                           "geom_size", "geom_rbound", "mesh_vertadr", "mesh_vertnum",
//                           "mesh_vert": [...]}]}
// with every body (world included), geom and mesh, flattened as in mjModel. The MuJoCo module is
// loaded by tests/mjs3/harness.mjs (status 3 and a message when it is missing).
import { harnessFromArgs } from '../mjs3/harness.mjs';
import { fail } from '../mjs3/mujoco314.mjs';

const NAME = 'inertia_ref.mjs';

const main = async () => {
  const { h, rest } = harnessFromArgs(process.argv.slice(2));
  const [dir, ...models] = rest;
  if (!h || !models.length) {
    fail(NAME, `usage: node ${NAME} [--mujoco 3.3.8] DIR MODEL.xml...`);
  }
  const mj = await h.loadMujoco(NAME);
  h.copyTree(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    const err = {};
    const m = h.loadFile(mj, `/models/${file}`, err);
    if (!m) {
      out.models.push({ file, error: err.message });
      continue;
    }
    try {
      out.models.push({
        file,
        body_mass: Array.from(m.body_mass),
        body_inertia: Array.from(m.body_inertia),
        body_ipos: Array.from(m.body_ipos),
        body_iquat: Array.from(m.body_iquat),
        geom_type: Array.from(m.geom_type),
        geom_pos: Array.from(m.geom_pos),
        geom_quat: Array.from(m.geom_quat),
        geom_size: Array.from(m.geom_size),
        geom_rbound: Array.from(m.geom_rbound),
        mesh_vertadr: Array.from(m.mesh_vertadr),
        mesh_vertnum: Array.from(m.mesh_vertnum),
        mesh_vert: Array.from(m.mesh_vert),
      });
    } finally {
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
