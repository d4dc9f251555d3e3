// Reference trajectories from MuJoCo 3.3.8 (npm package mujoco-js 0.0.7, WebAssembly).
//
//   node run_mujoco.mjs MANIFEST.json [OUT.json]    (no OUT.json: the output goes to stdout)
//   node run_mujoco.mjs --version
//
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
// qfrc_bias, qfrc_actuator, ten_length, and M, the dense mass matrix built from qM); also the
// compiled constants that come from numerical procedures (fluid added mass, muscle length ranges
// and the muscle parameters derived from them).
// A case that fails to load is reported as {"name", "error"}; the exit status is then 2.
import fs from 'node:fs';
import path from 'node:path';

import { loadMujoco, loadXML } from './mujoco.mjs';

const INTEGRATORS = { euler: 0, rk4: 1, implicit: 2, implicitfast: 3 };

function usage(msg) {
  process.stderr.write(`run_mujoco.mjs: ${msg}\n` +
                       'usage: node run_mujoco.mjs MANIFEST.json [OUT.json] | --version\n');
  process.exit(1);
}

// dense nv x nv mass matrix from the tree-sparse qM (row i: M(i,i), then its ancestors)
function denseM(m, d) {
  const nv = m.nv;
  const M = new Array(nv * nv).fill(0);
  for (let i = 0; i < nv; i++) {
    let adr = m.dof_Madr[i];
    M[i * nv + i] = d.qM[adr++];
    for (let j = m.dof_parentid[i]; j >= 0; j = m.dof_parentid[j]) {
      M[i * nv + j] = d.qM[adr];
      M[j * nv + i] = d.qM[adr];
      adr++;
    }
  }
  return M;
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

function runCase(mj, c, index) {
  if (!(c.integrator in INTEGRATORS)) {
    throw new Error(`case '${c.name}': unknown integrator '${c.integrator}'`);
  }
  const xml = fs.readFileSync(c.file, 'utf8');
  const m = loadXML(mj, xml, `/work/case${index}_${path.basename(c.file)}`);
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
        ten_length: Array.from(d.ten_length), M: denseM(m, d),
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
  const args = process.argv.slice(2);
  const mj = await loadMujoco('run_mujoco.mjs');
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
    const r = runCase(mj, c, i);
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
