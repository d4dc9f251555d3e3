// Forward dynamics and compiled fields as MuJoCo 3.14.0 computes them (npm package @mujoco/mujoco
// 3.14.0, WebAssembly), for the model-feature suites (tests/compiler/test_model_features.c, through
// tu_mjs3Json) and the corpus check (scripts/corpus-check).
//
//   node forward_ref.mjs [--mujoco 3.3.8] DIR NSTEP MODEL.xml...
//
// --mujoco 3.3.8 runs MuJoCo 3.3.8 (mujoco-js 0.0.7, tests/mjs3/mujoco.mjs) instead, for the
// comparisons that document where 3.3.8 and 3.14 differ (docs/mujoco3.md).
// Every file of DIR and of its subfolders is copied into the in-memory file system and each
// MODEL.xml (a path relative to DIR) is compiled, reset to its first keyframe when it has one
// (qpos0 otherwise), run through mj_forward and recorded; then NSTEP mj_steps are taken and the
// state is recorded again. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": "MuJoCo's first line"} |
//                          {"file", "nq", "nv", "nu", "nbody", "ngeom", "nkey", <model fields>,
//                           "forward": {<data fields>}, "stepped": {<data fields>}}]}
// ("stepped".error instead when mj_step or mj_forward throws.) @mujoco/mujoco is loaded by
// tests/mjs3/mujoco314.mjs, mujoco-js by tests/mjs3/mujoco.mjs (status 3 and a message when it is
// missing).
import { byteField, harnessFromArgs } from '../mjs3/harness.mjs';
import { copyTree, fail } from '../mjs3/mujoco314.mjs';

const NAME = 'forward_ref.mjs';

// MuJoCo's warnings (printed through console.log) go to stderr: stdout carries the JSON only
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const MODEL_FIELDS = ['body_mass', 'body_inertia', 'body_ipos', 'body_iquat', 'geom_type',
  'geom_size', 'geom_pos', 'geom_quat', 'geom_rbound', 'jnt_actfrcrange', 'eq_data', 'key_qpos',
  'key_mquat'];
// mjtByte fields (byteField)
const BYTE_FIELDS = ['jnt_actfrclimited'];
const DATA_FIELDS = ['qpos', 'qvel', 'qacc', 'qfrc_actuator', 'actuator_force', 'qfrc_bias',
  'qfrc_passive', 'qfrc_constraint', 'xpos', 'sensordata'];

function record(m, d) {
  const out = { ncon: d.ncon, nefc: d.nefc, contacts: [], energy: Array.from(d.energy) };
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
  const { h, rest } = harnessFromArgs(process.argv.slice(2));
  const [dir, nstepText, ...models] = rest;
  const nstep = Number(nstepText);
  if (!h || !models.length || !Number.isInteger(nstep) || nstep < 0) {
    fail(NAME, `usage: node ${NAME} [--mujoco 3.3.8] DIR NSTEP MODEL.xml...`);
  }
  const mj = await h.loadMujoco(NAME);
  copyTree(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    const err = {};
    const m = h.loadFile(mj, `/models/${file}`, err);
    if (!m) {
      out.models.push({ file, error: err.message || 'error' });
      continue;
    }
    const d = new mj.MjData(m);
    try {
      const rec = { file, nq: m.nq, nv: m.nv, nu: m.nu, nbody: m.nbody, ngeom: m.ngeom,
        nkey: m.nkey };
      for (const f of MODEL_FIELDS) {
        rec[f] = m[f] ? Array.from(m[f]) : [];
      }
      for (const f of BYTE_FIELDS) {
        rec[f] = byteField(h, mj, m, f);
      }
      if (m.nkey > 0) {
        mj.mj_resetDataKeyframe(m, d, 0);
      }
      mj.mj_forward(m, d);
      rec.forward = record(m, d);
      try {
        for (let i = 0; i < nstep; i++) {
          mj.mj_step(m, d);
        }
        mj.mj_forward(m, d);
        rec.stepped = record(m, d);
      } catch (e) {
        rec.stepped = { error: String(e && e.message ? e.message : e).split('\n')[0] };
      }
      out.models.push(rec);
    } finally {
      d.delete();
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
