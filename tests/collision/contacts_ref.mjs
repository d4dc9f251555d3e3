// Contacts as MuJoCo 3.3.8 finds them (npm package mujoco-js 0.0.7, WebAssembly), for the
// collision suites (tu_mjs3Contacts of tests/common/testutil.h).
//
//   node contacts_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is loaded into the in-memory file system and run through mj_forward at
// qpos0 (forwardModels of tests/mjs3/mujoco.mjs). Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "contacts": [[geom1, geom2, dist, px, py, pz, nx, ny, nz],
//                                                ...]}]}
// in MuJoCo's contact order. mujoco-js is loaded by tests/mjs3/mujoco.mjs (status 3 and a message
// when it is missing).
import { forwardModels } from '../mjs3/mujoco.mjs';

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

if (process.argv[1] && process.argv[1].endsWith('contacts_ref.mjs')) {
  forwardModels('contacts_ref.mjs', contactRows);
}
