// Contacts with their margin fields as MuJoCo 3.14.0 finds them (npm package @mujoco/mujoco,
// WebAssembly), for tests/collision/test_margins.c.
//
//   node margins314_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is compiled and run through mj_forward at qpos0 (forwardModels of
// tests/mjs3/mujoco314.mjs). Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "nefc", "contacts": [[geom1, geom2, dist, includemargin,
//                                                         exclude], ...]}]}
// in MuJoCo's contact order.
import { forwardModels } from '../mjs3/mujoco314.mjs';

forwardModels('margins314_ref.mjs', (m, d) => {
  const contacts = [];
  for (let i = 0; i < d.ncon; i++) {
    const c = d.contact.get(i);
    contacts.push([c.geom1, c.geom2, c.dist, c.includemargin, c.exclude]);
  }
  return { nefc: d.nefc, contacts };
});
