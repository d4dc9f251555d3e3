// Moving contact surfaces and contact adhesion (geom surfacevel and adhesion) as MuJoCo 3.14.0
// steps them (@mujoco/mujoco, WebAssembly), for tests/constraint/test_surface_mujoco3.c (through
// tu_mjs3Json).
//
//   node surface_ref.mjs MODEL.xml STEP...
//
// The model's folder is copied into the in-memory file system, the model compiled and reset to
// its first keyframe when it has one, then stepped; at each STEP (ascending step counts, 0 the
// initial state) mj_forward runs and the state is recorded. Output on stdout, one JSON object:
//   {"version", "nv", "nq", "frames": [{"step", "qpos", "qvel", "qacc_warmstart" (before the
//     mj_forward), "qacc", "qfrc_passive",
//     "sensordata",
//     "efc_type", "efc_vel", "efc_aref", "efc_force", "contacts": [[geom1, geom2, dist,
//     pos[3], frame[9], force[6]] each]}]}
// with force the contact's net force of mj_contactForce.

import { fail, loadDiskXML, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'surface_ref.mjs';
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

function record(mj, m, d, step) {
  const rows = (a) => Array.from(a).slice(0, d.nefc);
  const out = { step, qpos: Array.from(d.qpos), qvel: Array.from(d.qvel), qacc: Array.from(d.qacc),
    qfrc_passive: Array.from(d.qfrc_passive), sensordata: Array.from(d.sensordata), efc_type: rows(d.efc_type),
    efc_vel: rows(d.efc_vel), efc_aref: rows(d.efc_aref), efc_force: rows(d.efc_force),
    contacts: [] };
  const force = new mj.DoubleBuffer(6);
  try {
    for (let i = 0; i < d.ncon; i++) {
      const c = d.contact.get(i);
      mj.mj_contactForce(m, d, i, force);
      out.contacts.push([c.geom1, c.geom2, c.dist, ...Array.from(c.pos), ...Array.from(c.frame),
        ...Array.from(force.GetView())]);
      c.delete?.();
    }
  } finally {
    force.delete();
  }
  return out;
}

const main = async () => {
  const [file, ...stepText] = process.argv.slice(2);
  const steps = stepText.map(Number);
  if (!file || !steps.length || steps.some((s, i) => !Number.isInteger(s) || s < 0 ||
      (i && s <= steps[i - 1]))) {
    fail(NAME, `usage: node ${NAME} MODEL.xml STEP... (ascending)`);
  }
  const mj = await loadMujoco(NAME);
  const m = loadDiskXML(mj, NAME, file);
  const d = new mj.MjData(m);
  try {
    if (m.nkey > 0) {
      mj.mj_resetDataKeyframe(m, d, 0);
    }
    const out = { version: mj.mj_versionString(), nq: m.nq, nv: m.nv, frames: [] };
    let done = 0;
    for (const s of steps) {
      for (; done < s; done++) {
        mj.mj_step(m, d);
      }
      const warm = Array.from(d.qacc_warmstart);
      mj.mj_forward(m, d);
      out.frames.push({ ...record(mj, m, d, s), qacc_warmstart: warm });
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    d.delete();
    m.delete();
  }
};
main().catch((e) => fail(NAME, e.stack || e));
