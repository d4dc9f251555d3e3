// Sensor and camera reference values from MuJoCo 3.14.0 (npm package @mujoco/mujoco 3.14.0,
// WebAssembly), for tests/sensor (test_camera.c, test_sensor.c through mjs3_ref.c).
//
//   node mjs3_sensors.mjs MODEL.xml STATES.json
//
// MODEL.xml     MJCF on the host file system; it and the .bin files next to it (height fields)
//               are copied into the in-memory file system
// STATES.json   {"qpos": [[...nq], ...]}
// Prints one JSON object: the camera model fields (cam_fovy, cam_intrinsic, cam_sensorsize,
// cam_resolution, cam_orthographic (3.14's cam_projection: 0 perspective, 1 orthographic),
// cam_pos0, cam_poscom0, cam_mat0) and, per state after mj_forward, sensordata, site_xpos,
// cam_xpos and cam_xmat. Exit status 3: @mujoco/mujoco missing (tests/mjs3/mujoco314.mjs); 4: the
// model did not load.
import fs from 'node:fs';
import path from 'node:path';

import { copyFolder, fail, loadMujoco, loadXML } from '../mjs3/mujoco314.mjs';

const [xmlPath, statesPath] = process.argv.slice(2);
if (!statesPath) {
  fail('mjs3_sensors.mjs', 'usage: node mjs3_sensors.mjs MODEL.xml STATES.json');
}
const mj = await loadMujoco('mjs3_sensors.mjs');
copyFolder(mj, path.dirname(xmlPath), '', (name) => name.endsWith('.bin'));
const err = {};
const m = loadXML(mj, fs.readFileSync(xmlPath, 'utf8'), '/model.xml', err);
if (!m) {
  fail('mjs3_sensors.mjs', `MuJoCo 3.14.0 did not load the model: ${err.message}`, 4);
}
const d = new mj.MjData(m);
const states = JSON.parse(fs.readFileSync(statesPath, 'utf8'));

const out = {
  version: mj.mj_versionString(),
  ncam: m.ncam,
  nq: m.nq,
  nsensordata: m.nsensordata,
  cam_fovy: Array.from(m.cam_fovy),
  cam_intrinsic: Array.from(m.cam_intrinsic),
  cam_sensorsize: Array.from(m.cam_sensorsize),
  cam_resolution: Array.from(m.cam_resolution),
  cam_orthographic: Array.from(m.cam_projection),
  cam_pos0: Array.from(m.cam_pos0),
  cam_poscom0: Array.from(m.cam_poscom0),
  cam_mat0: Array.from(m.cam_mat0),
  states: [],
};
for (const q of states.qpos) {
  for (let i = 0; i < m.nq; i++) {
    d.qpos[i] = q[i];
  }
  mj.mj_forward(m, d);
  out.states.push({
    sensordata: Array.from(d.sensordata),
    site_xpos: Array.from(d.site_xpos),
    cam_xpos: Array.from(d.cam_xpos),
    cam_xmat: Array.from(d.cam_xmat),
  });
}
d.delete();
m.delete();
process.stdout.write(JSON.stringify(out));
