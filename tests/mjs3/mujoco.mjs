// MuJoCo 3.3.8 (npm package mujoco-js 0.0.7, WebAssembly) for the reference scripts of the tests
// (tests/*/*.mjs). mujoco-js is resolved from tests/mjs3/node_modules (npm ci there, run by
// scripts/setup-debian.sh); without it, or with another MuJoCo version, the script exits with
// status 3 and says so.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const VERSION = '3.3.8';

const mjs3 = new URL('./', import.meta.url);

// print "name: message" on stderr and exit with status
export function fail(name, message, status = 1) {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(status);
}

// the MuJoCo 3.3.8 module (name: the calling script, for messages)
export async function loadMujoco(name) {
  let entry;
  try {
    entry = createRequire(new URL('package.json', mjs3)).resolve('mujoco-js');
  } catch (e) {
    fail(name, `mujoco-js is not installed in ${mjs3.pathname}node_modules: run ` +
               'scripts/setup-debian.sh (npm ci in tests/mjs3)', 3);
  }
  const mj = await (await import(pathToFileURL(entry).href)).default();
  const version = mj.mj_versionString();
  if (version !== VERSION) {
    fail(name, `mujoco-js runs MuJoCo ${version}, expected ${VERSION} (mujoco-js 0.0.7: npm ci ` +
               'in tests/mjs3)', 3);
  }
  return mj;
}

// write data (string or bytes) to vpath of the in-memory file system, making its folders
export function writeFile(mj, vpath, data) {
  let dir = '';
  for (const part of path.posix.dirname(vpath).split('/').filter(Boolean)) {
    dir += `/${part}`;
    if (!mj.FS.analyzePath(dir).exists) {
      mj.FS.mkdir(dir);
    }
  }
  mj.FS.writeFile(vpath, data);
}

// copy the regular files of host folder dir accepted by keep(name) into vdir
export function copyFolder(mj, dir, vdir, keep = () => true) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (keep(name) && fs.statSync(p).isFile()) {
      writeFile(mj, `${vdir}/${name}`, fs.readFileSync(p));
    }
  }
}

// copy host folder dir and its subfolders into vdir
export function copyTree(mj, dir, vdir) {
  copyFolder(mj, dir, vdir);
  for (const name of fs.readdirSync(dir)) {
    if (fs.statSync(path.join(dir, name)).isDirectory()) {
      copyTree(mj, path.join(dir, name), `${vdir}/${name}`);
    }
  }
}

// compile the MJCF text xml, written to vpath (default /model.xml); the model, or null with the
// first line of MuJoCo's message in err.message when it does not compile
export function loadXML(mj, xml, vpath = '/model.xml', err = {}) {
  writeFile(mj, vpath, xml);
  return loadFile(mj, vpath, err);
}

// compile vpath of the in-memory file system; as loadXML
export function loadFile(mj, vpath, err = {}) {
  let m = null;
  try {
    m = mj.MjModel.loadFromXML(vpath);
  } catch (e) {
    err.message = String(e && e.message ? e.message : e).split('\n')[0];
  }
  if (!m && !err.message) {
    err.message = `MuJoCo ${VERSION} did not compile ${vpath}`;
  }
  return m || null;
}

// the whole of a script run as `node NAME DIR MODEL.xml...`: every regular file of DIR (models
// and the files they name) is copied into the in-memory file system, each MODEL.xml is compiled
// and run through mj_forward at qpos0, and one JSON object is printed on stdout:
//   {"version", "models": [{"file", "error": true} | {"file", ...record(m, d)}]}
export function forwardModels(name, record) {
  const main = async () => {
    const [dir, ...models] = process.argv.slice(2);
    if (!models.length) {
      fail(name, `usage: node ${name} DIR MODEL.xml...`);
    }
    const mj = await loadMujoco(name);
    copyFolder(mj, dir, '/models');
    const out = { version: mj.mj_versionString(), models: [] };
    for (const file of models) {
      const m = loadFile(mj, `/models/${file}`);
      if (!m) {
        out.models.push({ file, error: true });
        continue;
      }
      const d = new mj.MjData(m);
      try {
        mj.mj_forward(m, d);
        out.models.push({ file, ...record(m, d) });
      } finally {
        d.delete();
        m.delete();
      }
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  };
  main().catch((e) => fail(name, e.stack || e));
}
