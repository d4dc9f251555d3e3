// Height-field arrays as MuJoCo 3.3.8 compiles them (npm package mujoco-js 0.0.7, WebAssembly).
//
//   node hfield_data.mjs DIR MODEL.xml...
//
// Every regular file of DIR (models and binary height-field files) is copied into the in-memory
// file system, then each MODEL.xml is loaded from there. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "nrow": [], "ncol": [], "adr": [], "size": [], "data": [],
//                           "contacts": [[geom1, geom2], ...]}]}
// The float32 data are written as the doubles that hold them, so they convert back exactly.
// contacts: the geom pairs in contact after mj_forward at qpos0, each once, geom1 < geom2, sorted.
// mujoco-js is resolved from tests/mjs3/node_modules (npm ci there, run by
// scripts/setup-debian.sh); without it the script exits with status 3 and says so.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const mjs3 = new URL('../mjs3/', import.meta.url);

async function loadEngine() {
  let entry;
  try {
    entry = createRequire(new URL('package.json', mjs3)).resolve('mujoco-js');
  } catch (e) {
    process.stderr.write(`hfield_data.mjs: mujoco-js is not installed in ${mjs3.pathname}` +
                         'node_modules: run scripts/setup-debian.sh (npm ci in tests/mjs3)\n');
    process.exit(3);
  }
  const loadMujoco = (await import(pathToFileURL(entry).href)).default;
  return loadMujoco();
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 2) {
    process.stderr.write('usage: node hfield_data.mjs DIR MODEL.xml...\n');
    process.exit(1);
  }
  const [dir, ...models] = args;
  const mj = await loadEngine();
  mj.FS.mkdir('/hf');
  for (const f of fs.readdirSync(dir)) {
    const p = path.join(dir, f);
    if (fs.statSync(p).isFile()) {
      mj.FS.writeFile(`/hf/${f}`, fs.readFileSync(p));
    }
  }
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    let m;
    try {
      m = mj.MjModel.loadFromXML(`/hf/${file}`);
    } catch (e) {
      m = null;
    }
    if (!m) {
      out.models.push({ file, error: true });
      continue;
    }
    const d = new mj.MjData(m);
    try {
      mj.mj_forward(m, d);
      const pairs = new Set();
      for (let i = 0; i < d.ncon; i++) {
        const c = d.contact.get(i);
        pairs.add(`${Math.min(c.geom1, c.geom2)} ${Math.max(c.geom1, c.geom2)}`);
      }
      out.models.push({
        file, nrow: Array.from(m.hfield_nrow), ncol: Array.from(m.hfield_ncol),
        adr: Array.from(m.hfield_adr), size: Array.from(m.hfield_size),
        data: Array.from(m.hfield_data),
        contacts: [...pairs].map((p) => p.split(' ').map(Number)).sort((a, b) => a[0] - b[0] ||
                                                                           a[1] - b[1]),
      });
    } finally {
      d.delete();
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e) => {
  process.stderr.write(`hfield_data.mjs: ${e.stack || e}\n`);
  process.exit(1);
});
