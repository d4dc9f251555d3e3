// Contacts as MuJoCo 3.14.0 finds them (npm package @mujoco/mujoco, WebAssembly), for the
// collision suites on MuJoCo 3.x behaviour (tests/collision/test_collision_gjk.c).
//
//   node contacts314_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is compiled and run through mj_forward at qpos0 (forwardModels of
// tests/mjs3/mujoco314.mjs). Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "contacts": [[geom1, geom2, dist, px, py, pz, nx, ny, nz],
//                                                ...]}]}
// in MuJoCo's contact order.
import { forwardModels } from '../mjs3/mujoco314.mjs';
import { contactRows } from './contacts_ref.mjs';

forwardModels('contacts314_ref.mjs', contactRows);
