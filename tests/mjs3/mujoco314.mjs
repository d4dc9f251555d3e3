// MuJoCo 3.14.0 (the official npm package @mujoco/mujoco 3.14.0, WebAssembly, Apache-2.0) for the
// reference scripts of the tests, beside mujoco.mjs (3.3.8, mujoco-js 0.0.7) while the suites
// move over. Resolved from tests/mjs3/node_modules (npm ci there, pinned by package-lock.json, run
// by scripts/setup-debian.sh); without it, or with another version, the script exits with status
// 3 and says so. Differences from 3.3.8's API used here: models load with
// MjModel.from_xml_path from the in-memory file system (write the model's folder there first,
// copyFolder); the dense inertia comes from mj_fullM(m, d, dst) into a DoubleBuffer (read with .GetView();
// a plain Float64Array silently stays empty) and there is no d.qM.
import { createRequire } from 'node:module';
import { basename as pathBasename, dirname as pathDirname, resolve as pathResolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { copyFolder as copyFolderImpl, fail, forwardModels as forwardWith, writeFile } from './mujoco.mjs';

export { copyFolder, copyTree, fail, writeFile } from './mujoco.mjs';

export const VERSION = '3.14.0';

const mjs3 = new URL('./', import.meta.url);

// the MuJoCo 3.14 module (name: the calling script, for messages)
export async function loadMujoco(name) {
  let entry;
  try {
    entry = createRequire(new URL('package.json', mjs3)).resolve('@mujoco/mujoco');
  } catch (e) {
    fail(name, `@mujoco/mujoco is not installed in ${mjs3.pathname}node_modules: run ` +
               'scripts/setup-debian.sh (npm ci in tests/mjs3)', 3);
  }
  const mj = await (await import(pathToFileURL(entry).href)).default();
  const version = mj.mj_versionString();
  if (version !== VERSION) {
    fail(name, `@mujoco/mujoco runs MuJoCo ${version}, expected ${VERSION} (npm ci in ` +
               'tests/mjs3)', 3);
  }
  return mj;
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
    m = mj.MjModel.from_xml_path(vpath);
  } catch (e) {
    err.message = String(e && e.message ? e.message : e).split('\n')[0];
  }
  if (!m && !err.message) {
    err.message = `MuJoCo ${VERSION} did not compile ${vpath}`;
  }
  return m || null;
}

// compile the model file `file` on disk (its folder's .xml files copied to /models first); exits
// through fail(name, ...) with MuJoCo's message when it does not compile
export function loadDiskXML(mj, name, file) {
  copyFolderImpl(mj, pathDirname(pathResolve(file)), '/models', (n) => n.endsWith('.xml'));
  const err = {};
  const m = loadFile(mj, `/models/${pathBasename(file)}`, err);
  if (!m) {
    fail(name, `MuJoCo ${mj.mj_versionString()} refused ${file}: ${err.message}`);
  }
  return m;
}

// the dense nv x nv inertia of d (after mj_forward) as a Float64Array, row-major (3.14 signature:
// mj_fullM(m, d, dst))
export function fullM(mj, m, d) {
  const buf = new mj.DoubleBuffer(m.nv * m.nv);
  try {
    mj.mj_fullM(m, d, buf);
    return Float64Array.from(buf.GetView());
  } finally {
    buf.delete();
  }
}

// forwardModels of mujoco.mjs on MuJoCo 3.14: each MODEL.xml of `node NAME DIR MODEL.xml...`
// compiled and run through mj_forward at qpos0, record(m, d)'s fields printed per model
export function forwardModels(name, record) {
  forwardWith(name, record, { loadMujoco, loadFile });
}

// the values of model field name (one per object, in order) as MuJoCo's printed model lists them.
// For the mjtByte fields (jnt_limited, jnt_actfrclimited, ...): reading them from the MjModel
// throws in 3.14.0 (its bindings have no type for a bool memory view), mj_printModel has them.
export function printedField(mj, m, name) {
  const vpath = '/.printed_model.txt';
  mj.mj_printModel(m, vpath);
  const text = mj.FS.readFile(vpath, { encoding: 'utf8' });
  mj.FS.unlink(vpath);
  const out = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] === name) {
      out.push(...words.slice(1).map(Number));
    }
  }
  return out;
}
