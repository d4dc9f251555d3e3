// Height-field arrays as MuJoCo compiles them: MuJoCo 3.14.0 (npm package @mujoco/mujoco,
// WebAssembly) unless the arguments start with `--mujoco 3.3.8` (mujoco-js 0.0.7;
// tests/mjs3/harness.mjs).
//
//   node hfield_data.mjs [--mujoco 3.3.8] DIR MODEL.xml...
//
// Every regular file of DIR (models and binary height-field files) is copied into the in-memory
// file system, then each MODEL.xml is loaded from there. Output on stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "nrow": [], "ncol": [], "adr": [], "size": [], "data": [],
//                           "contacts": [[geom1, geom2], ...]}]}
// The float32 data are written as the doubles that hold them, so they convert back exactly.
// contacts: the geom pairs in contact after mj_forward at qpos0, each once, geom1 < geom2, sorted.
// The harness module exits with status 3 and a message when its package is missing.
import { forwardOnHarness } from './contacts_ref.mjs';

forwardOnHarness('hfield_data.mjs', (m, d) => {
  const pairs = new Set();
  for (let i = 0; i < d.ncon; i++) {
    const c = d.contact.get(i);
    pairs.add(`${Math.min(c.geom1, c.geom2)} ${Math.max(c.geom1, c.geom2)}`);
  }
  return {
    nrow: Array.from(m.hfield_nrow), ncol: Array.from(m.hfield_ncol),
    adr: Array.from(m.hfield_adr), size: Array.from(m.hfield_size),
    data: Array.from(m.hfield_data),
    contacts: [...pairs].map((p) => p.split(' ').map(Number)).sort((a, b) => a[0] - b[0] ||
                                                                       a[1] - b[1]),
  };
});
