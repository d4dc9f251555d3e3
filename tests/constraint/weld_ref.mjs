// Equality-constraint rows as MuJoCo 3.14.0 builds them (@mujoco/mujoco, WebAssembly), for
// tests/constraint/test_weld_mujoco3.c (through tu_mjs3Json).
//
//   node weld_ref.mjs MODEL.xml
//
// The model's folder is copied into the in-memory file system, the model compiled, reset to its
// first keyframe when it has one and run through mj_forward. Output on stdout, one JSON object:
//   {"version", "body_invweight0", "dof_invweight0", "nefc", "efc_diagApprox", "efc_R", "efc_D",
//    "efc_vel", "efc_aref", "efc_force", "qacc"}
// (3.14 names the diagonal approximation efc_diagA).

import { fail, loadDiskXML, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'weld_ref.mjs';
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const main = async () => {
  const [file] = process.argv.slice(2);
  if (!file) {
    fail(NAME, `usage: node ${NAME} MODEL.xml`);
  }
  const mj = await loadMujoco(NAME);
  const m = loadDiskXML(mj, NAME, file);
  const d = new mj.MjData(m);
  try {
    if (m.nkey > 0) {
      mj.mj_resetDataKeyframe(m, d, 0);
    }
    mj.mj_forward(m, d);
    const rows = (a) => Array.from(a).slice(0, d.nefc);
    process.stdout.write(`${JSON.stringify({ version: mj.mj_versionString(),
      body_invweight0: Array.from(m.body_invweight0), dof_invweight0: Array.from(m.dof_invweight0),
      nefc: d.nefc,
      efc_diagApprox: rows(d.efc_diagA), efc_R: rows(d.efc_R), efc_D: rows(d.efc_D),
      efc_vel: rows(d.efc_vel), efc_aref: rows(d.efc_aref), efc_force: rows(d.efc_force),
      qacc: Array.from(d.qacc) })}\n`);
  } finally {
    d.delete();
    m.delete();
  }
};
main().catch((e) => fail(NAME, e.stack || e));
