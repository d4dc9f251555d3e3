// Forward dynamics and compiled fields as MuJoCo 3.3.8 computes them (npm package mujoco-js 0.0.7,
// WebAssembly), for the model-feature suites (tests/compiler/test_model_features.c, through
// tu_mjs3Json) and the corpus check (scripts/corpus_check.sh).
//
//   node forward_ref.mjs DIR NSTEP MODEL.xml...
//
// Every file of DIR and of its subfolders is copied into the in-memory file system and each
// MODEL.xml (a path relative to DIR) is compiled, reset to its first keyframe when it has one
// (qpos0 otherwise), run through mj_forward and recorded; then NSTEP mj_steps are taken and the
// state is recorded again. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": "MuJoCo's first line"} |
//                          {"file", "nq", "nv", "nu", "nbody", "ngeom", <model fields>,
//                           "forward": {<data fields>}, "stepped": {<data fields>}}]}
// mujoco-js is loaded by tests/mjs3/mujoco.mjs (status 3 and a message when it is missing).

import { copyTree, fail, loadFile, loadMujoco } from '../mjs3/mujoco.mjs';

const NAME = 'forward_ref.mjs';

// MuJoCo's warnings (printed through console.log) go to stderr: stdout carries the JSON only
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const MODEL_FIELDS = ['body_mass', 'body_inertia', 'body_ipos', 'body_iquat', 'geom_type',
  'geom_size', 'geom_pos', 'geom_quat', 'geom_rbound', 'jnt_actfrclimited', 'jnt_actfrcrange',
  'eq_data'];
const DATA_FIELDS = ['qpos', 'qvel', 'qacc', 'qfrc_actuator', 'actuator_force', 'qfrc_bias',
  'qfrc_passive', 'qfrc_constraint', 'xpos', 'sensordata'];

function record(m, d) {
  const out = { ncon: d.ncon, contacts: [], energy: Array.from(d.energy) };
  for (const f of DATA_FIELDS) {
    out[f] = Array.from(d[f]);
  }
  for (let i = 0; i < d.ncon; i++) {
    const c = d.contact.get(i);
    out.contacts.push([c.geom1, c.geom2, c.dist, ...Array.from(c.pos), ...Array.from(c.frame)
      .slice(0, 3)]);
    c.delete?.();
  }
  return out;
}

const main = async () => {
  const [dir, nstepText, ...models] = process.argv.slice(2);
  const nstep = Number(nstepText);
  if (!models.length || !Number.isInteger(nstep) || nstep < 0) {
    fail(NAME, `usage: node ${NAME} DIR NSTEP MODEL.xml...`);
  }
  const mj = await loadMujoco(NAME);
  copyTree(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    const err = {};
    const m = loadFile(mj, `/models/${file}`, err);
    if (!m) {
      out.models.push({ file, error: err.message || 'error' });
      continue;
    }
    const d = new mj.MjData(m);
    try {
      const rec = { file, nq: m.nq, nv: m.nv, nu: m.nu, nbody: m.nbody, ngeom: m.ngeom };
      for (const f of MODEL_FIELDS) {
        rec[f] = m[f] ? Array.from(m[f]) : [];
      }
      if (m.nkey > 0) {
        mj.mj_resetDataKeyframe(m, d, 0);
      }
      mj.mj_forward(m, d);
      rec.forward = record(m, d);
      for (let i = 0; i < nstep; i++) {
        mj.mj_step(m, d);
      }
      mj.mj_forward(m, d);
      rec.stepped = record(m, d);
      out.models.push(rec);
    } finally {
      d.delete();
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
