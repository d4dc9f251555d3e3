// Sleeping trees as MuJoCo 3.14.0 steps them (npm package @mujoco/mujoco, WebAssembly), for
// tests/engine/test_sleep.c.
//
//   node sleep314_ref.mjs DIR MODEL.xml...
//
// Each MODEL.xml of DIR is compiled, run through mj_forward (which leaves the sleep state as it
// is) and stepped 600 times with mj_step (forwardModels of tests/mjs3/mujoco.mjs on 3.14). Output on
// stdout, one JSON object:
//   {"version", "models": [{"file", "error": true} |
//                          {"file", "ntree", "dof_length": [...],
//                           "steps": [[tree_asleep..., qpos..., qvel..., ncon, nefc], ...]}]}
// one entry of "steps" after each step.
import { forwardModels } from '../mjs3/mujoco.mjs';
import { loadFile, loadMujoco } from '../mjs3/mujoco314.mjs';

const NSTEP = 600;
let mj = null;  // the module the models are loaded in

const load = async (name) => {
  mj = await loadMujoco(name);
  return mj;
};

forwardModels('sleep314_ref.mjs', (m, d) => {
  const steps = [];
  for (let i = 0; i < NSTEP; i++) {
    mj.mj_step(m, d);
    steps.push([...d.tree_asleep, ...d.qpos, ...d.qvel, d.ncon, d.nefc]);
  }
  return { ntree: m.ntree, dof_length: Array.from(m.dof_length), steps };
}, { loadMujoco: load, loadFile });
