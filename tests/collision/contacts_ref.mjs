// Contacts as MuJoCo finds them, for the collision suites (tu_mjs3Contacts of
// tests/common/testutil.h): MuJoCo 3.14.0 (npm package @mujoco/mujoco, WebAssembly) unless the
// arguments start with `--mujoco 3.3.8` (mujoco-js 0.0.7; tests/mjs3/harness.mjs).
//
//   node contacts_ref.mjs [--mujoco 3.3.8] DIR MODEL.xml...
//
// Each MODEL.xml of DIR is loaded into the in-memory file system and run through mj_forward at
// qpos0 (forwardModels of the harness module). Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "contacts": [[geom1, geom2, dist, px, py, pz, nx, ny, nz],
//                                                ...]}]}
// in MuJoCo's contact order. The harness module exits with status 3 and a message when its
// package is missing.
import { harnessFromArgs } from '../mjs3/harness.mjs';

// the contacts of d as [geom1, geom2, dist, px, py, pz, nx, ny, nz] rows (contacts314_ref.mjs too)
export function contactRows(m, d) {
  const contacts = [];
  for (let i = 0; i < d.ncon; i++) {
    const c = d.contact.get(i);
    contacts.push([c.geom1, c.geom2, c.dist, ...Array.from(c.pos),
                   ...Array.from(c.frame).slice(0, 3)]);
  }
  return { contacts };
}

// run `name` as a forwardModels script on the harness its arguments pick: forwardModels reads
// `DIR MODEL.xml...` from process.argv, so the option is taken off there first
export function forwardOnHarness(name, record) {
  const args = process.argv.slice(2);
  const { h, rest } = harnessFromArgs(args);
  if (!h) {
    process.stderr.write(`${name}: unknown MuJoCo version ${args[1]} (3.14.0 or 3.3.8)\n`);
    process.exit(2);
  }
  process.argv.splice(2, args.length - rest.length);
  h.forwardModels(name, record);
}

if (process.argv[1] && process.argv[1].endsWith('contacts_ref.mjs')) {
  forwardOnHarness('contacts_ref.mjs', contactRows);
}
