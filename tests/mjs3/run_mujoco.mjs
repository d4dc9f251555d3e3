// Reference trajectories from MuJoCo 3.14.0 (npm package @mujoco/mujoco 3.14.0, WebAssembly).
//
//   node run_mujoco.mjs [--mujoco 3.3.8] MANIFEST.json [OUT.json]  (no OUT.json: to stdout)
//   node run_mujoco.mjs [--mujoco 3.3.8] --version
//
// --mujoco 3.3.8: MuJoCo 3.3.8 (mujoco-js 0.0.7) instead, for the cases that document a difference
// between 3.3.8 and 3.14 (tests/mjs3/harness.mjs, docs/mujoco3.md).
// MANIFEST.json: {"cases": [{"name", "file", "integrator", "nstep", "smooth", "timestep"?,
//                            "qpos"?, "qvel"?, "act"?, "ctrl"?}]}
//   file        MJCF path on the host file system (read here, written to the in-memory FS)
//   integrator  euler | rk4 | implicit | implicitfast
//   smooth      true: contacts and all constraints disabled (smooth dynamics only)
//   qpos..ctrl  initial state and the constant controls (length nq, nv, na, nu)
// OUT.json: {"version", "cases": [{"name", "nq", "nv", "na", "nu", "ntendon", "geom_fluid",
//            "actuator_lengthrange", "actuator_gainprm", "actuator_biasprm", "steps": [...]}]}
// with one record per mj_step: the state after the step (qpos, qvel, act) and the forward
// quantities of the state before it, as mj_step leaves them in mjData (qacc, qfrc_passive,
// qfrc_bias, qfrc_actuator, ten_length, and M, the dense mass matrix from the harness's fullM); also
// the compiled constants that come from numerical procedures (fluid added mass, muscle length ranges
// and the muscle parameters derived from them).
// A case that fails to load is reported as {"name", "error"}; the exit status is then 2.
import fs from 'node:fs';
import path from 'node:path';

import { harnessFromArgs } from './harness.mjs';

const INTEGRATORS = { euler: 0, rk4: 1, implicit: 2, implicitfast: 3 };

function usage(msg) {
  process.stderr.write(`run_mujoco.mjs: ${msg}\n` +
                       'usage: node run_mujoco.mjs [--mujoco 3.3.8] MANIFEST.json [OUT.json] | ' +
                       '--version\n');
  process.exit(1);
}

function setArray(dst, src, n, what, name) {
  if (src === undefined || src === null) {
    return;
  }
  if (!Array.isArray(src) || src.length !== n) {
    throw new Error(`case '${name}': ${what} has ${src?.length} values, model needs ${n}`);
  }
  dst.set(src);
}

function runCase(h, mj, c, index) {
  if (!(c.integrator in INTEGRATORS)) {
    throw new Error(`case '${c.name}': unknown integrator '${c.integrator}'`);
  }
  const xml = fs.readFileSync(c.file, 'utf8');
  const m = h.loadXML(mj, xml, `/work/case${index}_${path.basename(c.file)}`);
  if (!m) {
    return { name: c.name, error: `MuJoCo could not load ${c.file}` };
  }
  const d = new mj.MjData(m);
  try {
    m.opt.integrator = INTEGRATORS[c.integrator];
    if (c.timestep) {
      m.opt.timestep = c.timestep;
    }
    if (c.smooth) {
      const bit = mj.mjtDisableBit;
      m.opt.disableflags |= bit.mjDSBL_CONTACT.value | bit.mjDSBL_CONSTRAINT.value;
    }
    setArray(d.qpos, c.qpos, m.nq, 'qpos', c.name);
    setArray(d.qvel, c.qvel, m.nv, 'qvel', c.name);
    setArray(d.act, c.act, m.na, 'act', c.name);
    setArray(d.ctrl, c.ctrl, m.nu, 'ctrl', c.name);

    const steps = [];
    for (let k = 0; k < c.nstep; k++) {
      mj.mj_step(m, d);
      steps.push({
        qpos: Array.from(d.qpos), qvel: Array.from(d.qvel), act: Array.from(d.act),
        qacc: Array.from(d.qacc), qfrc_passive: Array.from(d.qfrc_passive),
        qfrc_bias: Array.from(d.qfrc_bias), qfrc_actuator: Array.from(d.qfrc_actuator),
        ten_length: Array.from(d.ten_length), M: Array.from(h.fullM(mj, m, d)),
      });
    }
    return {
      name: c.name, nq: m.nq, nv: m.nv, na: m.na, nu: m.nu, ntendon: m.ntendon,
      geom_fluid: Array.from(m.geom_fluid),
      actuator_lengthrange: Array.from(m.actuator_lengthrange),
      actuator_gainprm: Array.from(m.actuator_gainprm),
      actuator_biasprm: Array.from(m.actuator_biasprm), steps,
    };
  } finally {
    d.delete();
    m.delete();
  }
}

async function main() {
  const { h, rest: args } = harnessFromArgs(process.argv.slice(2));
  if (!h) {
    usage('--mujoco takes 3.3.8 or 3.14.0');
  }
  const mj = await h.loadMujoco('run_mujoco.mjs');
  if (args.length === 1 && args[0] === '--version') {
    process.stdout.write(`${mj.mj_versionString()}\n`);
    return;
  }
  if (args.length !== 1 && args.length !== 2) {
    usage('expected one or two arguments');
  }
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  } catch (e) {
    usage(`cannot read manifest ${args[0]}: ${e.message}`);
  }
  if (!Array.isArray(manifest.cases)) {
    usage(`${args[0]}: no "cases" array`);
  }
  const out = { version: mj.mj_versionString(), cases: [] };
  let failed = false;
  manifest.cases.forEach((c, i) => {
    const r = runCase(h, mj, c, i);
    failed ||= 'error' in r;
    out.cases.push(r);
  });
  if (args.length === 2) {
    fs.writeFileSync(args[1], JSON.stringify(out));
  } else {
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
  process.exitCode = failed ? 2 : 0;
}

main().catch((e) => {
  process.stderr.write(`run_mujoco.mjs: ${e.stack || e}\n`);
  process.exit(1);
});
