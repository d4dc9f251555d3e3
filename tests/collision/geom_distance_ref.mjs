// Geom distances as MuJoCo 3.14.0 computes them (mj_geomDistance; npm package @mujoco/mujoco,
// WebAssembly), for tests/collision/test_geom_distance.c.
//
//   node geom_distance_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR names two geoms "a" and "b" and gives the distance cap as the custom
// numeric "distmax" (10 without it). It is compiled, run through mj_forward at qpos0, and
// mj_geomDistance(a, b, distmax) taken with the segment fromto. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} | {"file", "dist", "fromto": [6 numbers]}]}
import { copyFolder, fail, loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'geom_distance_ref.mjs';

const main = async () => {
  const [dir, ...models] = process.argv.slice(2);
  if (!models.length) {
    fail(NAME, `usage: node ${NAME} DIR MODEL.xml...`);
  }
  const mj = await loadMujoco(NAME);
  copyFolder(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  const fromto = new mj.DoubleBuffer(6);
  for (const file of models) {
    const m = loadFile(mj, `/models/${file}`);
    if (!m) {
      out.models.push({ file, error: true });
      continue;
    }
    const d = new mj.MjData(m);
    try {
      mj.mj_forward(m, d);
      const a = mj.mj_name2id(m, mj.mjtObj.mjOBJ_GEOM.value, 'a');
      const b = mj.mj_name2id(m, mj.mjtObj.mjOBJ_GEOM.value, 'b');
      const n = mj.mj_name2id(m, mj.mjtObj.mjOBJ_NUMERIC.value, 'distmax');
      const distmax = n >= 0 ? m.numeric_data[m.numeric_adr[n]] : 10;
      const dist = mj.mj_geomDistance(m, d, a, b, distmax, fromto);
      out.models.push({ file, dist, fromto: Array.from(fromto.GetView()) });
    } finally {
      d.delete();
      m.delete();
    }
  }
  fromto.delete();
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
