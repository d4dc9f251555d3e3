// The MuJoCo 3 harness a reference script runs on: MuJoCo 3.14.0 (mujoco314.mjs) unless its
// arguments start with `--mujoco 3.3.8` (mujoco.mjs, mujoco-js 0.0.7), which the suites pass only
// where they document a difference between 3.3.8 and 3.14 (docs/mujoco3.md). Both modules export
// loadMujoco, loadFile, loadXML, writeFile, copyFolder, copyTree, fail and fullM.
import * as mujoco338 from './mujoco.mjs';
import * as mujoco314 from './mujoco314.mjs';

const HARNESS = { '3.3.8': mujoco338, '3.14.0': mujoco314 };

// the harness module and the arguments after the option (null harness: an unknown version)
export function harnessFromArgs(args) {
  if (args[0] === '--mujoco') {
    return { h: HARNESS[args[1]] || null, rest: args.slice(2) };
  }
  return { h: mujoco314, rest: args };
}

// the mjtByte model field name of m (one value per object): 3.14.0 gives these through its
// printed model only (printedField), 3.3.8 as an array
export function byteField(h, mj, m, name) {
  return h === mujoco314 ? mujoco314.printedField(mj, m, name) : Array.from(m[name]);
}
