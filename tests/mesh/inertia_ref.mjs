// Body mass properties and the mesh-derived geom and mesh fields as MuJoCo 3.3.8 compiles them
// (npm package mujoco-js 0.0.7, WebAssembly), for the mesh suites (tests/mesh/*.c, through
// tu_mjs3Json).
//
//   node inertia_ref.mjs DIR MODEL.xml...
//
// Every file of DIR and of its subfolders (models and the mesh files they name) is copied into the
// in-memory file system and each MODEL.xml (a path relative to DIR) is compiled. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": "MuJoCo's message"} |
//                          {"file", "body_mass": [...], "body_inertia": [...], "body_ipos": [...],
//                           "body_iquat": [...], "geom_type", "geom_pos", "geom_quat",
//                           "geom_size", "geom_rbound", "mesh_vertadr", "mesh_vertnum",
//                           "mesh_vert": [...]}]}
// with every body (world included), geom and mesh, flattened as in mjModel. mujoco-js is loaded by
// tests/mjs3/mujoco.mjs (status 3 and a message when it is missing).
import fs from 'node:fs';
import path from 'node:path';

import { copyFolder, fail, loadMujoco, writeFile } from '../mjs3/mujoco.mjs';

const NAME = 'inertia_ref.mjs';

// the text of a C++ exception thrown by the compiler (mjCError starts with its message); mem: a
// function returning the current wasm memory buffer
function exceptionText(e, mem) {
  if (!e || typeof e.excPtr !== 'number') {
    return String(e && e.message ? e.message : e);
  }
  const bytes = new Uint8Array(mem());
  let s = '';
  for (let i = e.excPtr; i < bytes.length && bytes[i] && s.length < 1000; i++) {
    s += String.fromCharCode(bytes[i]);
  }
  return s.split('\n')[0];
}

// copy host folder dir into vdir with its subfolders
function copyTree(mj, dir, vdir) {
  copyFolder(mj, dir, vdir);
  for (const name of fs.readdirSync(dir)) {
    if (fs.statSync(path.join(dir, name)).isDirectory()) {
      copyTree(mj, path.join(dir, name), `${vdir}/${name}`);
    }
  }
}

const main = async () => {
  const [dir, ...models] = process.argv.slice(2);
  if (!models.length) {
    fail(NAME, `usage: node ${NAME} DIR MODEL.xml...`);
  }
  const mj = await loadMujoco(NAME);

  // a model kept alive for a view of the wasm memory (where exceptions keep their message)
  writeFile(mj, '/probe/empty.xml', '<mujoco><worldbody><body><geom size="1"/></body>' +
            '</worldbody></mujoco>');
  const keep = mj.MjModel.loadFromXML('/probe/empty.xml');
  const mem = () => keep.body_mass.buffer;

  copyTree(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    let m = null;
    try {
      m = mj.MjModel.loadFromXML(`/models/${file}`);
    } catch (e) {
      out.models.push({ file, error: exceptionText(e, mem) || 'error' });
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
  keep.delete();
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
