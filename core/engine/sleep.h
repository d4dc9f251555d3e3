// Moduco core: sleeping trees (MuJoCo 3.14's <flag sleep="enable"/>, mcENBL_SLEEP).
//
// A kinematic tree (the dofs below one root dof, numbered by root dof) that stays at rest is put
// to sleep: its velocity is zeroed, it is no longer integrated, and its contacts with static and
// other sleeping bodies are not detected. The rules, measured on MuJoCo 3.14.0 (docs/mujoco3.md):
//   - at rest: max over the tree's dofs of |qvel| * length < opt sleep_tolerance, where length is
//     1 for a translational dof and, for a rotational one, the reach of its body (the largest of
//     the distances from the body's joint anchors to its com and to the anchors of child joints,
//     and the bounding radius of its geoms about its com; at least 1e-5); a tree with an applied
//     force (xfrc_applied on a body, qfrc_applied on a dof) is not at rest;
//   - tree_asleep of an awake tree counts its steps at rest from -11 up to -1 (back to -11 when
//     not at rest); before the integration of a step, every island (trees joined by constraint
//     rows, or a tree alone) whose trees are all at -1 falls asleep together: tree_asleep of each
//     then names the next tree of the island (a cycle), and the island wakes as a whole;
//   - a sleeping tree wakes (-11) when a step starts with a velocity or an applied force on it
//     or with its position changed (its bodies' poses differ from those of the last forward
//     pass), and when a contact, an equality or a constrained tendon joins it to an awake tree
//     or a mocap body (collision detection is then redone); its rows leave with it;
//   - policy: <body sleep> on the tree root (auto: actuated trees never sleep; never; allowed;
//     init: asleep after a reset, the other trees then start one step into their count).
#ifndef MODUCO_CORE_ENGINE_SLEEP_H_
#define MODUCO_CORE_ENGINE_SLEEP_H_

#include <moduco/moduco.h>

// tree_asleep and body_awake after mc_resetData (every tree awake, or asleep for sleep="init")
void mc_sleepReset(const mcModel* m, mcData* d);

// Start of a step: wake the sleeping trees given a velocity, an applied force or a position since
// (with sleeping trees this runs the kinematics once more).
void mc_sleepWakeInputs(const mcModel* m, mcData* d);

// After collision detection: wake the sleeping trees that touch awake ones or that an active
// equality or a constrained tendon (frictional, or at a limit) joins to an awake body (mocap
// bodies count as awake); 1 if any woke (the contacts must then be detected again), 0 if none.
int mc_sleepWakeContacts(const mcModel* m, mcData* d);

// Before integration: count the steps at rest and put the islands at rest to sleep (their qvel
// zeroed). Returns the number of sleeping trees.
int mc_sleepUpdate(const mcModel* m, mcData* d);

// Around integration, with sleeping trees: a copy of qpos (on the stack, in the caller's frame),
// then restore the positions of the sleeping trees from it and zero their velocities.
mcNum* mc_sleepHold(const mcModel* m, mcData* d);
void mc_sleepRelease(const mcModel* m, mcData* d, const mcNum* qpos);

// is the pair of bodies left out of collision detection (neither of them awake)?
static inline int mc_sleepSkipPair(const mcModel* m, const mcData* d, int b1, int b2) {
  return (m->opt.enableflags & mcENBL_SLEEP) && d->body_awake[b1] != 1 && d->body_awake[b2] != 1;
}

// is dof k on a sleeping tree (its limit and friction rows are left out)?
static inline int mc_sleepDofAsleep(const mcModel* m, const mcData* d, int k) {
  return (m->opt.enableflags & mcENBL_SLEEP) && d->body_awake[m->dof_bodyid[k]] == 0;
}

// does equality i join only sleeping and static bodies (its rows are left out)?
int mc_sleepEqualityAsleep(const mcModel* m, const mcData* d, int i);

// does tendon i move only sleeping trees (its limit and friction rows are left out)?
int mc_sleepTendonAsleep(const mcModel* m, const mcData* d, int i);

#endif  // MODUCO_CORE_ENGINE_SLEEP_H_
