// Contacts as MuJoCo 3.3.8 finds them (npm package mujoco-js 0.0.7, WebAssembly), for
// tests/collision/test_multiccd.c.
//
//   node multiccd_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is loaded into the in-memory file system and run through mj_forward at
// qpos0. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "contacts": [[geom1, geom2, dist, px, py, pz, nx, ny, nz],
//                                                ...]}]}
// in MuJoCo's contact order. mujoco-js is resolved from tests/mjs3/node_modules (npm ci there, run
// by scripts/setup-debian.sh); without it the script exits with status 3 and says so.
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
    process.stderr.write(`multiccd_ref.mjs: mujoco-js is not installed in ${mjs3.pathname}` +
                         'node_modules: run scripts/setup-debian.sh (npm ci in tests/mjs3)\n');
    process.exit(3);
  }
  const loadMujoco = (await import(pathToFileURL(entry).href)).default;
  return loadMujoco();
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 2) {
    process.stderr.write('usage: node multiccd_ref.mjs DIR MODEL.xml...\n');
    process.exit(1);
  }
  const [dir, ...models] = args;
  const mj = await loadEngine();
  mj.FS.mkdir('/mc');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    mj.FS.writeFile(`/mc/${file}`, fs.readFileSync(path.join(dir, file)));
    let m;
    try {
      m = mj.MjModel.loadFromXML(`/mc/${file}`);
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
      const contacts = [];
      for (let i = 0; i < d.ncon; i++) {
        const c = d.contact.get(i);
        contacts.push([c.geom1, c.geom2, c.dist, ...Array.from(c.pos),
                       ...Array.from(c.frame).slice(0, 3)]);
      }
      out.models.push({ file, contacts });
    } finally {
      d.delete();
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e) => {
  process.stderr.write(`multiccd_ref.mjs: ${e.stack || e}\n`);
  process.exit(1);
});
