// Compiled models and forward dynamics as MuJoCo 3.14.0 computes them (@mujoco/mujoco, WebAssembly),
// for the MJCF composition suite (tests/compiler/test_compose.c: <attach>, weld sites, tendon
// actuatorfrcrange).
//
//   node ref314.mjs DIR MODEL.xml...
//
// Every file of DIR and of its subfolders is copied into the in-memory file system and each
// MODEL.xml (relative to DIR) is compiled, reset to its first keyframe when it has one (qpos0
// otherwise) and run through mj_forward. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": "MuJoCo's first line"} |
//                          {"file", <sizes>, "names": {<type>: [names, "" when unnamed]},
//                           <model fields>, "forward": {<data fields>, "qM_diag"}}]}

import { copyTree, fail, fullM, loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'ref314.mjs';

// MuJoCo's warnings (printed through console.log) go to stderr: stdout carries the JSON only
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const SIZES = ['nq', 'nv', 'nu', 'na', 'nbody', 'njnt', 'ngeom', 'nsite', 'nmesh', 'ntendon', 'neq',
  'npair', 'nexclude', 'nsensor', 'nsensordata', 'nkey', 'nnumeric', 'ncam', 'nmocap'];
// name lists: type -> [count field, name address field]
const NAMES = {
  body: ['nbody', 'name_bodyadr'], joint: ['njnt', 'name_jntadr'], geom: ['ngeom', 'name_geomadr'],
  site: ['nsite', 'name_siteadr'], camera: ['ncam', 'name_camadr'], mesh: ['nmesh', 'name_meshadr'],
  tendon: ['ntendon', 'name_tendonadr'], equality: ['neq', 'name_eqadr'],
  pair: ['npair', 'name_pairadr'], actuator: ['nu', 'name_actuatoradr'],
  sensor: ['nsensor', 'name_sensoradr'], numeric: ['nnumeric', 'name_numericadr'],
  key: ['nkey', 'name_keyadr'],
};
const MODEL_FIELDS = ['body_parentid', 'body_pos', 'body_quat', 'body_mass', 'body_inertia',
  'body_ipos', 'body_iquat', 'jnt_type', 'jnt_range', 'dof_damping', 'dof_armature', 'geom_size',
  'geom_pos', 'geom_quat', 'geom_friction', 'site_pos', 'site_quat', 'cam_pos', 'cam_quat', 'qpos0', 'key_qpos', 'key_qvel', 'key_ctrl', 'key_act', 'key_mpos', 'key_mquat',
  'actuator_trnid', 'actuator_gear', 'sensor_objid', 'eq_type', 'eq_obj1id', 'eq_obj2id',
  'eq_data', 'pair_geom1', 'pair_geom2', 'exclude_signature', 'tendon_num',
  'tendon_actfrcrange', 'numeric_data'];
const DATA_FIELDS = ['qacc', 'actuator_force', 'qfrc_actuator', 'qfrc_constraint', 'xpos',
  'sensordata', 'efc_pos'];

// the 0-terminated string of the names buffer at adr
function nameAt(names, adr) {
  let end = adr;
  while (end < names.length && names[end] !== 0) {
    end++;
  }
  return String.fromCharCode(...names.slice(adr, end));
}

function record(mj, m, file) {
  const rec = { file, names: {} };
  for (const s of SIZES) {
    rec[s] = m[s];
  }
  const names = Array.from(m.names);
  for (const [type, [count, adr]] of Object.entries(NAMES)) {
    const adrs = m[count] > 0 ? Array.from(m[adr]) : [];
    rec.names[type] = adrs.map((a) => nameAt(names, a));
  }
  for (const f of MODEL_FIELDS) {
    rec[f] = m[f] ? Array.from(m[f]) : [];
  }
  const d = new mj.MjData(m);
  try {
    if (m.nkey > 0) {
      mj.mj_resetDataKeyframe(m, d, 0);
    }
    mj.mj_forward(m, d);
    rec.forward = { nefc: d.nefc };
    for (const f of DATA_FIELDS) {
      rec.forward[f] = Array.from(d[f]).slice(0, f.startsWith('efc') ? d.nefc : undefined);
    }
    const M = fullM(mj, m, d);
    rec.forward.qM_diag = Array.from({ length: m.nv }, (_, i) => M[i * m.nv + i]);
  } finally {
    d.delete();
  }
  return rec;
}

const main = async () => {
  const [dir, ...models] = process.argv.slice(2);
  if (!models.length) {
    fail(NAME, `usage: node ${NAME} DIR MODEL.xml...`);
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
    try {
      out.models.push(record(mj, m, file));
    } finally {
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
