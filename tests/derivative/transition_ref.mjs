// Transition Jacobians as MuJoCo 3.14.0 computes them (mjd_transitionFD of @mujoco/mujoco,
// WebAssembly), for tests/derivative/test_transition_mujoco3.c (through tu_mjs3Json).
//
//   node transition_ref.mjs MODEL.xml NSTEP CENTERED
//
// The model's folder is copied into the in-memory file system and the model compiled, reset to
// its first keyframe when it has one, the controls set to ctrl_i = 0.2 sin(i + 1) (MuJoCo clamps
// them to a limited control range when it uses them), NSTEP mj_steps taken, and mjd_transitionFD(eps 1e-6, CENTERED 0|1) evaluated. Output on stdout:
//   {"version", "nv", "na", "nu", "nsensordata", "qpos", "qvel", "act", "ctrl",
//    "A", "B", "C", "D", "D_steps"}  (matrices flat, row-major, as MuJoCo lays them out)
// D_steps is D by brute force, from sensordata after mj_step with each control moved by +-eps
// (centered) or +eps (forward): 3.14's centered mjd_transitionFD flips the sign of D for the
// acceleration-stage sensors (docs/derivatives.md), so the test compares D with D_steps.
// or {"version", "error": "MuJoCo's first line"} when it does not compile.
import path from 'node:path';

import { copyFolder, fail, loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'transition_ref.mjs';

console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

function buffer(mj, n) {
  return new mj.DoubleBuffer(Math.max(n, 1));
}

// d at the point of the test: keyframe 0 (if any), ctrl_i = 0.2 sin(i + 1), nstep mj_steps
function prepare(mj, m, d, nstep) {
  if (m.nkey > 0) {
    mj.mj_resetDataKeyframe(m, d, 0);
  }
  for (let i = 0; i < m.nu; i++) {
    d.ctrl[i] = 0.2 * Math.sin(i + 1);
  }
  for (let i = 0; i < nstep; i++) {
    mj.mj_step(m, d);
  }
}

// sensordata after one more mj_step with control j moved by du, on a replay of the nstep steps
function sensorsAfter(mj, m, nstep, j, du) {
  const e = new mj.MjData(m);
  try {
    prepare(mj, m, e, nstep);
    e.ctrl[j] += du;
    mj.mj_step(m, e);
    return Array.from(e.sensordata);
  } finally {
    e.delete();
  }
}

// D (nsensordata x nu, row-major) from differences of whole steps, eps 1e-6
function stepsD(mj, m, nstep, centered) {
  const eps = 1e-6;
  const ns = m.nsensordata;
  const out = new Array(ns * m.nu).fill(0);
  for (let j = 0; j < m.nu; j++) {
    const plus = sensorsAfter(mj, m, nstep, j, eps);
    const minus = sensorsAfter(mj, m, nstep, j, centered ? -eps : 0);
    for (let i = 0; i < ns; i++) {
      out[i * m.nu + j] = (plus[i] - minus[i]) / (centered ? 2 * eps : eps);
    }
  }
  return out;
}

const main = async () => {
  const [file, nstepText, centeredText] = process.argv.slice(2);
  const nstep = Number(nstepText);
  if (!file || !Number.isInteger(nstep) || nstep < 0 || !['0', '1'].includes(centeredText)) {
    fail(NAME, `usage: node ${NAME} MODEL.xml NSTEP 0|1`);
  }
  const mj = await loadMujoco(NAME);
  copyFolder(mj, path.dirname(path.resolve(file)), '/models');
  const err = {};
  const m = loadFile(mj, `/models/${path.basename(file)}`, err);
  if (!m) {
    process.stdout.write(`${JSON.stringify({ version: mj.mj_versionString(),
      error: err.message || 'error' })}\n`);
    return;
  }
  const d = new mj.MjData(m);
  const bufs = [];
  try {
    prepare(mj, m, d, nstep);
    const dSteps = stepsD(mj, m, nstep, centeredText === '1');
    const ndx = 2 * m.nv + m.na;
    const ns = m.nsensordata;
    const sizes = [ndx * ndx, ndx * m.nu, ns * ndx, ns * m.nu];
    for (const n of sizes) {
      bufs.push(buffer(mj, n));
    }
    mj.mjd_transitionFD(m, d, 1e-6, centeredText === '1', ...bufs);
    const out = { version: mj.mj_versionString(), nv: m.nv, na: m.na, nu: m.nu,
      nsensordata: ns, qpos: Array.from(d.qpos), qvel: Array.from(d.qvel),
      act: Array.from(d.act), ctrl: Array.from(d.ctrl), D_steps: dSteps };
    ['A', 'B', 'C', 'D'].forEach((k, j) => {
      out[k] = Array.from(bufs[j].GetView()).slice(0, sizes[j]);
    });
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    bufs.forEach((b) => b.delete());
    d.delete();
    m.delete();
  }
};
main().catch((e) => fail(NAME, e.stack || e));
