// Contact sensors, height fields and contact physics as MuJoCo 3.14 computes them (npm package
// @mujoco/mujoco 3.14.0, WebAssembly), for tests/sensor/test_contact_sensor.c and
// tests/sensor/test_hfield_png.c (through tu_mjs3Json).
//
//   node contact_ref.mjs DIR NSTEP MODEL.xml...
//
// Every file of DIR is copied into the in-memory file system and each MODEL.xml (a name in DIR)
// is compiled, reset to its first keyframe when it has one (qpos0 otherwise), run through
// mj_forward and recorded; then NSTEP mj_steps are taken, mj_forward runs again and the state is
// recorded again. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": "MuJoCo's first line"} |
//                          {"file", "nq", "nv", "nsensordata", "sensor_dim", "sensor_adr",
//                           "hfield_nrow", "hfield_ncol", "hfield_size", "hfield_data",
//                           "forward": {<data>}, "stepped": {<data>}}]}
// with <data>: qpos, qvel, qacc, sensordata, ncon and contacts ([geom1, geom2, dist, pos[3],
// frame[9]] each). mujoco314.mjs loads the module (status 3 and a message when it is missing).
import fs from 'node:fs';

import { copyFolder, fail, loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'contact_ref.mjs';

// MuJoCo's warnings (printed through console.log) go to stderr: stdout carries the JSON only
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

function record(m, d) {
  const out = { ncon: d.ncon, contacts: [] };
  for (const f of ['qpos', 'qvel', 'qacc', 'sensordata']) {
    out[f] = Array.from(d[f]);
  }
  for (let i = 0; i < d.ncon; i++) {
    const c = d.contact.get(i);
    out.contacts.push([c.geom1, c.geom2, c.dist, ...Array.from(c.pos), ...Array.from(c.frame)]);
    c.delete?.();
  }
  return out;
}

const main = async () => {
  const [dir, nstepText, ...models] = process.argv.slice(2);
  const nstep = Number(nstepText);
  if (!models.length || !Number.isInteger(nstep) || nstep < 0 || !fs.existsSync(dir)) {
    fail(NAME, `usage: node ${NAME} DIR NSTEP MODEL.xml...`);
  }
  const mj = await loadMujoco(NAME);
  copyFolder(mj, dir, '/models');
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
      const rec = { file, nq: m.nq, nv: m.nv, nsensordata: m.nsensordata };
      for (const f of ['sensor_dim', 'sensor_adr', 'hfield_nrow', 'hfield_ncol', 'hfield_size',
        'hfield_data']) {
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
