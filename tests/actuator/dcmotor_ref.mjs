// One step of dcmotor models in MuJoCo 3.14.0 (@mujoco/mujoco, WebAssembly), for
// tests/actuator/test_dcmotor.c.
//
//   node dcmotor_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is reset to its keyframe 0, run through mj_forward (actuator_force,
// qfrc_actuator, qfrc_passive at the start) and one mj_step (qvel and act after it). Output on
// stdout:
//   {"version", "models": [{"file", "error": true, "message"} |
//                          {"file", "actuator_force", "qfrc_actuator", "qfrc_passive", "qvel",
//                           "act"}]}
import { copyFolder, fail, loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'dcmotor_ref.mjs';

const main = async () => {
  const [dir, ...models] = process.argv.slice(2);
  if (!models.length) {
    fail(NAME, `usage: node ${NAME} DIR MODEL.xml...`);
  }
  const mj = await loadMujoco(NAME);
  copyFolder(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    const err = {};
    const m = loadFile(mj, `/models/${file}`, err);
    if (!m) {
      out.models.push({ file, error: true, message: err.message });
      continue;
    }
    const d = new mj.MjData(m);
    try {
      mj.mj_resetDataKeyframe(m, d, 0);
      mj.mj_forward(m, d);
      const rec = {
        file,
        actuator_force: Array.from(d.actuator_force),
        qfrc_actuator: Array.from(d.qfrc_actuator),
        qfrc_passive: Array.from(d.qfrc_passive),
      };
      mj.mj_step(m, d);
      rec.qvel = Array.from(d.qvel);
      rec.act = Array.from(d.act);
      out.models.push(rec);
    } finally {
      d.delete();
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
