// Print names and poses of a model compiled by MuJoCo 3.14 (@mujoco/mujoco, WebAssembly), one object
// per line, for tests/hardening/test_user_needs.c: node mjs3_model.mjs MODEL.xml
//   body NAME PARENT px py pz qw qx qy qz  |  geom NAME BODY px py pz  |  jnt NAME BODY
//   site NAME BODY  |  size nq nbody  |  error MESSAGE (the model did not compile)
import fs from 'node:fs';

import { loadMujoco, loadXML } from '../mjs3/mujoco314.mjs';

const [xmlfile] = process.argv.slice(2);
const mj = await loadMujoco('mjs3_model.mjs');
const err = {};
const m = loadXML(mj, fs.readFileSync(xmlfile, 'utf8'), '/w/model.xml', err);
if (!m) {
  console.log('error', err.message);
  process.exit(0);
}
const name = (adr) => {
  let s = '';
  for (let i = adr; m.names[i]; i++) s += String.fromCharCode(m.names[i]);
  return s || '-';
};
const nums = (a, i, n) => Array.from(a.slice(n * i, n * i + n)).map((x) => x.toPrecision(17));
console.log('size', m.nq, m.nbody);
for (let i = 0; i < m.nbody; i++) {
  console.log('body', name(m.name_bodyadr[i]), m.body_parentid[i], ...nums(m.body_pos, i, 3),
              ...nums(m.body_quat, i, 4));
}
for (let i = 0; i < m.ngeom; i++) {
  console.log('geom', name(m.name_geomadr[i]), m.geom_bodyid[i], ...nums(m.geom_pos, i, 3));
}
for (let i = 0; i < m.njnt; i++) console.log('jnt', name(m.name_jntadr[i]), m.jnt_bodyid[i]);
for (let i = 0; i < m.nsite; i++) console.log('site', name(m.name_siteadr[i]), m.site_bodyid[i]);
m.delete();
