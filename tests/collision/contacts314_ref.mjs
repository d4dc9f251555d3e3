// Contacts as MuJoCo 3.14.0 finds them (npm package @mujoco/mujoco, WebAssembly), for the
// collision suites on MuJoCo 3.x behaviour (tests/collision/test_collision_gjk.c).
//
//   node contacts314_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is compiled and run through mj_forward at qpos0. Output on stdout, one
// JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "contacts": [[geom1, geom2, dist, px, py, pz, nx, ny, nz],
//                                                ...]}]}
// in MuJoCo's contact order.
import { copyFolder, fail, loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NAME = 'contacts314_ref.mjs';

const main = async () => {
  const [dir, ...models] = process.argv.slice(2);
  if (!models.length) {
    fail(NAME, `usage: node ${NAME} DIR MODEL.xml...`);
  }
  const mj = await loadMujoco(NAME);
  copyFolder(mj, dir, '/models');
  const out = { version: mj.mj_versionString(), models: [] };
  for (const file of models) {
    const m = loadFile(mj, `/models/${file}`);
    if (!m) {
      out.models.push({ file, error: true });
      continue;
    }
    const d = new mj.MjData(m);
    try {
      mj.mj_forward(m, d);
      const contacts = [];
      for (let i = 0; i < d.ncon; i++) {
        const c = d.contact.get(i);
        contacts.push([c.geom1, c.geom2, c.dist, ...Array.from(c.pos),
                       ...Array.from(c.frame).slice(0, 3)]);
      }
      out.models.push({ file, contacts });
    } finally {
      d.delete();
      m.delete();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
main().catch((e) => fail(NAME, e.stack || e));
