// Moduco core: sleeping trees (mcENBL_SLEEP; the rules are in sleep.h).
#include "engine/sleep.h"

#include <math.h>
#include <string.h>

#include "engine/island.h"
#include "math/math.h"

// tree_asleep of an awake tree that has not been at rest (MuJoCo 3.14: -(1 + 10))
#define MCS_AWAKE (-11)

// the smallest rotational dof length (a body without geoms turning about its com)
#define MCS_MINLENGTH 1e-5


//---------------------------------- trees ---------------------------------------------------------

// the kinematic trees of a model, on the stack of d
typedef struct {
  int ntree;
  int* dof_tree;                  // tree of each dof (nv)
  int* body_tree;                 // tree of each body, -1: static (nbody)
  int* policy;                    // mctSleep of each tree, auto resolved (ntree)
} mcsTrees;


// the tree moved by body b, -1 for a static body
static int bodyTree(const mcsTrees* t, int b) {
  return b > 0 ? t->body_tree[b] : -1;
}


// mark the tree of body b as actuated
static void actuateBody(const mcsTrees* t, int* actuated, int b) {
  int k = bodyTree(t, b);
  if (k >= 0) {
    actuated[k] = 1;
  }
}


// mark the trees an actuator moves (joint, tendon path, site, body)
static void actuatedTrees(const mcModel* m, const mcsTrees* t, int* actuated) {
  for (int i = 0; i < m->nu; i++) {
    int id = m->actuator_trnid[2 * i];
    switch (m->actuator_trntype[i]) {
    case mcTRN_JOINT:
    case mcTRN_JOINTINPARENT:
      actuateBody(t, actuated, m->jnt_bodyid[id]);
      break;
    case mcTRN_SLIDERCRANK:
    case mcTRN_SITE:
      actuateBody(t, actuated, m->site_bodyid[id]);
      break;
    case mcTRN_BODY:
      actuateBody(t, actuated, id);
      break;
    case mcTRN_TENDON:
      for (int w = m->tendon_adr[id]; w < m->tendon_adr[id] + m->tendon_num[id]; w++) {
        int obj = m->wrap_objid[w];
        if (m->wrap_type[w] == mcWRAP_JOINT) {
          actuateBody(t, actuated, m->jnt_bodyid[obj]);
        } else if (m->wrap_type[w] == mcWRAP_SITE) {
          actuateBody(t, actuated, m->site_bodyid[obj]);
        } else if (m->wrap_type[w] == mcWRAP_SPHERE || m->wrap_type[w] == mcWRAP_CYLINDER) {
          actuateBody(t, actuated, m->geom_bodyid[obj]);
        }
      }
      break;
    default:
      break;
    }
  }
}


// number the trees by root dof, map dofs and bodies to them, resolve the policies; 0 when the
// stack is full
static int makeTrees(const mcModel* m, mcData* d, mcsTrees* t) {
  int nv = m->nv, nbody = m->nbody;
  t->dof_tree = mcSTACKALLOC(d, (size_t)(nv > 0 ? nv : 1), int);
  t->body_tree = mcSTACKALLOC(d, (size_t)nbody, int);
  t->policy = mcSTACKALLOC(d, (size_t)(nv > 0 ? nv : 1), int);
  if (!t->dof_tree || !t->body_tree || !t->policy) {
    return 0;
  }
  t->ntree = 0;
  for (int k = 0; k < nv; k++) {
    int p = m->dof_parentid[k];
    t->dof_tree[k] = p < 0 ? t->ntree++ : t->dof_tree[p];
  }
  t->body_tree[0] = -1;
  for (int b = 1; b < nbody; b++) {
    t->body_tree[b] = m->body_dofnum[b] ? t->dof_tree[m->body_dofadr[b]]
                                        : t->body_tree[m->body_parentid[b]];
  }

  // policies: the root body's; auto: never for an actuated tree, else allowed
  memset(t->policy, 0, sizeof(int) * (size_t)t->ntree);
  actuatedTrees(m, t, t->policy);
  for (int k = 0; k < nv; k++) {
    if (m->dof_parentid[k] < 0) {
      int tree = t->dof_tree[k], given = m->body_sleep[m->dof_bodyid[k]];
      if (given != mcSLEEP_AUTO) {
        t->policy[tree] = given;
      } else {
        t->policy[tree] = t->policy[tree] ? mcSLEEP_NEVER : mcSLEEP_ALLOWED;
      }
    }
  }
  return 1;
}


// body_awake from tree_asleep (mocap bodies count as awake, as in 3.14)
static void bodyAwake(const mcModel* m, mcData* d, const mcsTrees* t) {
  for (int b = 0; b < m->nbody; b++) {
    int k = bodyTree(t, b);
    d->body_awake[b] = k >= 0 ? d->tree_asleep[k] < 0 : m->body_mocapid[b] >= 0 ? 1 : -1;
  }
}


// the bodies equality i joins (connect, weld, joint; 0 for the world); 0 for a tendon equality
static int equalityBodies(const mcModel* m, int i, int* b1, int* b2) {
  int o1 = m->eq_obj1id[i], o2 = m->eq_obj2id[i];
  switch (m->eq_type[i]) {
  case mcEQ_CONNECT:
  case mcEQ_WELD:
    if (m->eq_objtype[i] == mcOBJ_SITE) {
      o1 = o1 >= 0 ? m->site_bodyid[o1] : 0;
      o2 = o2 >= 0 ? m->site_bodyid[o2] : 0;
    }
    break;
  case mcEQ_JOINT:
    o1 = m->jnt_bodyid[o1];
    o2 = o2 >= 0 ? m->jnt_bodyid[o2] : 0;
    break;
  default:
    return 0;
  }
  *b1 = o1 >= 0 ? o1 : 0;
  *b2 = o2 >= 0 ? o2 : 0;
  return 1;
}


// the sleeping body of a pair joining it to an awake one (body_awake 0 and 1), else -1
static int wakingPair(const mcData* d, int b1, int b2) {
  int a1 = d->body_awake[b1], a2 = d->body_awake[b2];
  return a1 == 0 && a2 == 1 ? b1 : a2 == 0 && a1 == 1 ? b2 : -1;
}


// wake tree k and the other trees of its sleeping cycle; the number woken
static int wakeCycle(mcData* d, int k) {
  int n = 0;
  while (d->tree_asleep[k] >= 0) {
    int next = d->tree_asleep[k];
    d->tree_asleep[k] = MCS_AWAKE;
    n++;
    k = next;
  }
  return n;
}


//---------------------------------- rest --------------------------------------------------------

// the reach of every body from its joints (reach[nbody]): the largest distance from a joint anchor
// to the com, to the anchor of a joint of a child body, and the bounding radius of the geoms about
// the com; at least MCS_MINLENGTH
static void bodyReach(const mcModel* m, mcNum* reach) {
  mcNum v[3];
  for (int b = 0; b < m->nbody; b++) {
    const mcNum* com = m->body_ipos + 3 * b;
    reach[b] = MCS_MINLENGTH;
    for (int g = m->body_geomadr[b]; g < m->body_geomadr[b] + m->body_geomnum[b]; g++) {
      mcu_sub3(v, m->geom_pos + 3 * g, com);
      reach[b] = fmax(reach[b], mcu_norm3(v) + m->geom_rbound[g]);
    }
    for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
      mcu_sub3(v, com, m->jnt_pos + 3 * j);
      reach[b] = fmax(reach[b], mcu_norm3(v));
    }
  }

  // child joints, in the parent's frame
  for (int c = 1; c < m->nbody; c++) {
    int b = m->body_parentid[c];
    for (int i = m->body_jntadr[c]; i < m->body_jntadr[c] + m->body_jntnum[c]; i++) {
      mcNum p[3];
      mcu_rotVecQuat(p, m->jnt_pos + 3 * i, m->body_quat + 4 * c);
      mcu_addTo3(p, m->body_pos + 3 * c);
      for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
        mcu_sub3(v, p, m->jnt_pos + 3 * j);
        reach[b] = fmax(reach[b], mcu_norm3(v));
      }
    }
  }
}


// the largest |qvel| * length over the dofs of every tree (motion[tree]; reach: nbody scratch)
static void treeMotion(const mcModel* m, const mcData* d, const mcsTrees* t, mcNum* reach,
                       mcNum* motion) {
  memset(motion, 0, sizeof(mcNum) * (size_t)t->ntree);
  bodyReach(m, reach);
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j], adr = m->jnt_dofadr[j];
    int ndof = type == mcJNT_FREE ? 6 : type == mcJNT_BALL ? 3 : 1;
    for (int i = 0; i < ndof; i++) {
      int rotational = type == mcJNT_HINGE || type == mcJNT_BALL || (type == mcJNT_FREE && i >= 3);
      mcNum v = fabs(d->qvel[adr + i]) * (rotational ? reach[m->jnt_bodyid[j]] : 1);
      int k = t->dof_tree[adr + i];
      motion[k] = fmax(motion[k], v);
    }
  }
}


// mark the trees with an applied force (pushed[tree] = 1)
static void treePushed(const mcModel* m, const mcData* d, const mcsTrees* t, int* pushed) {
  memset(pushed, 0, sizeof(int) * (size_t)t->ntree);
  for (int k = 0; k < m->nv; k++) {
    if (d->qfrc_applied[k] != 0) {
      pushed[t->dof_tree[k]] = 1;
    }
  }
  for (int b = 1; b < m->nbody; b++) {
    const mcNum* x = d->xfrc_applied + 6 * b;
    int k = t->body_tree[b];
    if (k >= 0 && (x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0 || x[4] != 0 || x[5] != 0)) {
      pushed[k] = 1;
    }
  }
}


//---------------------------------- entry points --------------------------------------------------

void mc_sleepReset(const mcModel* m, mcData* d) {
  mc_markStack(d);
  mcsTrees t;
  if (makeTrees(m, d, &t)) {
    int init = 0;
    for (int k = 0; k < t.ntree; k++) {
      init |= t.policy[k] == mcSLEEP_INIT;
    }
    for (int k = 0; k < m->nv; k++) {
      d->tree_asleep[k] = MCS_AWAKE;
    }
    // sleep="init" trees asleep, each its own cycle; as in MuJoCo 3.14, the trees that may sleep
    // then count the reset as one step at rest
    for (int k = 0; k < t.ntree && (m->opt.enableflags & mcENBL_SLEEP); k++) {
      if (t.policy[k] == mcSLEEP_INIT) {
        d->tree_asleep[k] = k;
      } else if (init && t.policy[k] != mcSLEEP_NEVER) {
        d->tree_asleep[k] = MCS_AWAKE + 1;
      }
    }
    bodyAwake(m, d, &t);
  }
  mc_freeStack(d);
}


// mark the sleeping trees whose bodies the kinematics of the current qpos move from the poses the
// last forward pass left (a position set since); bodies never placed (zero xquat) are skipped
static void treeMoved(const mcModel* m, mcData* d, const mcsTrees* t, int* pushed) {
  int nbody = m->nbody;
  mcNum* pose = mcSTACKALLOC(d, (size_t)(7 * nbody), mcNum);
  if (!pose) {
    return;
  }
  for (int b = 0; b < nbody; b++) {
    memcpy(pose + 7 * b, d->xpos + 3 * b, sizeof(mcNum) * 3);
    memcpy(pose + 7 * b + 3, d->xquat + 4 * b, sizeof(mcNum) * 4);
  }
  mc_kinematics(m, d);
  for (int b = 1; b < nbody; b++) {
    const mcNum* q = pose + 7 * b + 3;
    if (d->body_awake[b] != 0 || (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)) {
      continue;
    }
    if (memcmp(pose + 7 * b, d->xpos + 3 * b, sizeof(mcNum) * 3) ||
        memcmp(q, d->xquat + 4 * b, sizeof(mcNum) * 4)) {
      pushed[t->body_tree[b]] = 1;
    }
  }
}


void mc_sleepWakeInputs(const mcModel* m, mcData* d) {
  if (!(m->opt.enableflags & mcENBL_SLEEP)) {
    return;
  }
  int asleep = 0;
  for (int b = 1; b < m->nbody && !asleep; b++) {
    asleep = d->body_awake[b] == 0;
  }
  if (!asleep) {
    return;
  }
  mc_markStack(d);
  mcsTrees t;
  int* pushed = mcSTACKALLOC(d, (size_t)(m->nv > 0 ? m->nv : 1), int);
  if (pushed && makeTrees(m, d, &t)) {
    treePushed(m, d, &t, pushed);
    for (int k = 0; k < m->nv; k++) {
      if (d->qvel[k] != 0) {
        pushed[t.dof_tree[k]] = 1;
      }
    }
    treeMoved(m, d, &t, pushed);
    int woke = 0;
    for (int k = 0; k < t.ntree; k++) {
      if (pushed[k] && d->tree_asleep[k] >= 0) {
        woke += wakeCycle(d, k);
      }
    }
    if (woke) {
      bodyAwake(m, d, &t);
    }
  }
  mc_freeStack(d);
}


// over the dofs tendon i moves: a sleeping body in *sleeping (kept if one is there already), and
// whether an awake one is there in *awake
static void tendonBodies(const mcModel* m, const mcData* d, int i, int* sleeping, int* awake) {
  const int* span = d->ten_J_span + 2 * i;
  const mcNum* J = d->ten_J + (size_t)i * (size_t)m->nv;
  for (int k = span[0]; k < span[1]; k++) {
    int b = m->dof_bodyid[k];
    if (J[k] != 0 && d->body_awake[b] == 0 && *sleeping < 0) {
      *sleeping = b;
    } else if (J[k] != 0 && d->body_awake[b] == 1) {
      *awake = 1;
    }
  }
}


// is tendon i constrained now (friction, or a limit row: as engine/constraint.c)?
static int tendonConstrained(const mcModel* m, const mcData* d, int i) {
  if (m->tendon_frictionloss[i] > 0 && !(m->opt.disableflags & mcDSBL_FRICTIONLOSS)) {
    return 1;
  }
  const mcNum* range = m->tendon_range + 2 * i;
  mcNum len = d->ten_length[i], margin = m->tendon_margin[i];
  return m->tendon_limited[i] && !(m->opt.disableflags & mcDSBL_LIMIT) &&
         (len - range[0] < margin || range[1] - len < margin);
}


// the sleeping body that contact i (i < ncon), active equality i - ncon, or constrained tendon
// i - ncon - neq joins to an awake one, else -1
static int wakingLink(const mcModel* m, const mcData* d, int i) {
  if (i < d->ncon) {
    return wakingPair(d, m->geom_bodyid[d->contact[i].geom1], m->geom_bodyid[d->contact[i].geom2]);
  }
  int b1, b2, sleeping = -1, awake = 0;
  i -= d->ncon;
  if (i < m->neq) {
    if (!d->eq_active[i] || (m->opt.disableflags & mcDSBL_EQUALITY)) {
      return -1;
    }
    if (equalityBodies(m, i, &b1, &b2)) {
      return wakingPair(d, b1, b2);
    }
    if (m->eq_type[i] == mcEQ_TENDON) {
      tendonBodies(m, d, m->eq_obj1id[i], &sleeping, &awake);
      if (m->eq_obj2id[i] >= 0) {
        tendonBodies(m, d, m->eq_obj2id[i], &sleeping, &awake);
      }
    }
  } else if (tendonConstrained(m, d, i - m->neq)) {
    tendonBodies(m, d, i - m->neq, &sleeping, &awake);
  }
  return awake ? sleeping : -1;
}


int mc_sleepWakeContacts(const mcModel* m, mcData* d) {
  if (!(m->opt.enableflags & mcENBL_SLEEP)) {
    return 0;
  }
  int n = d->ncon + m->neq + m->ntendon, first = 0;
  while (first < n && wakingLink(m, d, first) < 0) {
    first++;
  }
  if (first == n) {
    return 0;
  }
  int woke = 0;
  mc_markStack(d);
  mcsTrees t;
  if (makeTrees(m, d, &t)) {
    for (int i = first; i < n; i++) {
      int b = wakingLink(m, d, i);
      if (b >= 0) {
        woke += wakeCycle(d, t.body_tree[b]);
      }
    }
    bodyAwake(m, d, &t);
  }
  mc_freeStack(d);
  return woke > 0;
}


int mc_sleepEqualityAsleep(const mcModel* m, const mcData* d, int i) {
  if (!(m->opt.enableflags & mcENBL_SLEEP)) {
    return 0;
  }
  int b1, b2;
  if (equalityBodies(m, i, &b1, &b2)) {
    return d->body_awake[b1] != 1 && d->body_awake[b2] != 1;
  }
  return m->eq_type[i] == mcEQ_TENDON && mc_sleepTendonAsleep(m, d, m->eq_obj1id[i]) &&
         (m->eq_obj2id[i] < 0 || mc_sleepTendonAsleep(m, d, m->eq_obj2id[i]));
}


int mc_sleepUpdate(const mcModel* m, mcData* d) {
  if (!(m->opt.enableflags & mcENBL_SLEEP) || m->nv == 0) {
    return 0;
  }
  int nv = m->nv, asleep = 0;
  mc_markStack(d);
  mcsTrees t;
  mcNum* motion = mcSTACKALLOC(d, (size_t)nv, mcNum);
  int* pushed = mcSTACKALLOC(d, (size_t)nv, int);
  int* root = mcSTACKALLOC(d, (size_t)nv, int);
  int* uf = mcSTACKALLOC(d, (size_t)nv, int);
  int* rowtree = mcSTACKALLOC(d, (size_t)(d->nefc > 0 ? d->nefc : 1), int);
  int* last = mcSTACKALLOC(d, (size_t)nv, int);
  mcNum* reach = mcSTACKALLOC(d, (size_t)m->nbody, mcNum);
  if (!motion || !pushed || !root || !uf || !rowtree || !last || !reach || !makeTrees(m, d, &t)) {
    mc_freeStack(d);
    return 0;
  }

  // count the steps at rest of the awake trees
  treeMotion(m, d, &t, reach, motion);
  treePushed(m, d, &t, pushed);
  for (int k = 0; k < t.ntree; k++) {
    int* s = d->tree_asleep + k;
    if (*s >= 0) {
      continue;
    }
    int never = t.policy[k] == mcSLEEP_NEVER;
    if (never || pushed[k] || !(motion[k] < m->sleep_tolerance)) {
      *s = MCS_AWAKE;
    } else if (*s < -1) {
      (*s)++;
    }
  }

  // islands: the sets of trees joined by rows (by root dof); a set sleeps when every tree in it
  // is at -1 (ready[set root]: 1 ready, 0 not)
  mci_treeSets(m, d, root, uf, rowtree);
  int* ready = pushed;                      // reused, by set root dof
  for (int k = 0; k < nv; k++) {
    ready[k] = 1;
  }
  for (int k = 0; k < nv; k++) {
    if (m->dof_parentid[k] < 0 && d->tree_asleep[t.dof_tree[k]] != -1) {
      ready[mci_treeRoot(uf, k)] = 0;
    }
  }

  // link the trees of every ready set into a cycle, in tree order (last[set]: the last tree
  // linked, -1 none yet; root[set]: the first, root reused: the tree roots are no longer needed)
  for (int k = 0; k < nv; k++) {
    last[k] = -1;
  }
  for (int k = 0; k < nv; k++) {
    int s = m->dof_parentid[k] < 0 ? mci_treeRoot(uf, k) : -1;
    if (s < 0 || !ready[s]) {
      continue;
    }
    int tree = t.dof_tree[k];
    if (last[s] < 0) {
      root[s] = tree;
    } else {
      d->tree_asleep[last[s]] = tree;
    }
    last[s] = tree;
  }
  for (int k = 0; k < nv; k++) {
    if (last[k] >= 0) {
      d->tree_asleep[last[k]] = root[k];
    }
  }

  // sleeping trees stand still
  for (int k = 0; k < nv; k++) {
    if (d->tree_asleep[t.dof_tree[k]] >= 0) {
      d->qvel[k] = 0;
    }
  }
  for (int k = 0; k < t.ntree; k++) {
    asleep += d->tree_asleep[k] >= 0;
  }
  bodyAwake(m, d, &t);
  mc_freeStack(d);
  return asleep;
}


int mc_sleepTendonAsleep(const mcModel* m, const mcData* d, int i) {
  if (!(m->opt.enableflags & mcENBL_SLEEP)) {
    return 0;
  }
  const int* span = d->ten_J_span + 2 * i;
  const mcNum* J = d->ten_J + (size_t)i * (size_t)m->nv;
  int moves = 0;
  for (int k = span[0]; k < span[1]; k++) {
    if (J[k] != 0) {
      if (d->body_awake[m->dof_bodyid[k]] != 0) {
        return 0;
      }
      moves = 1;
    }
  }
  return moves;
}


mcNum* mc_sleepHold(const mcModel* m, mcData* d) {
  mcNum* q = mcSTACKALLOC(d, (size_t)(m->nq > 0 ? m->nq : 1), mcNum);
  if (q && m->nq) {
    memcpy(q, d->qpos, sizeof(mcNum) * (size_t)m->nq);
  }
  return q;
}


void mc_sleepRelease(const mcModel* m, mcData* d, const mcNum* qpos) {
  for (int j = 0; j < m->njnt; j++) {
    if (d->body_awake[m->jnt_bodyid[j]] != 0) {
      continue;
    }
    int type = m->jnt_type[j], qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
    int nq = type == mcJNT_FREE ? 7 : type == mcJNT_BALL ? 4 : 1;
    int nv = type == mcJNT_FREE ? 6 : type == mcJNT_BALL ? 3 : 1;
    if (qpos) {
      memcpy(d->qpos + qa, qpos + qa, sizeof(mcNum) * (size_t)nq);
    }
    memset(d->qvel + va, 0, sizeof(mcNum) * (size_t)nv);
  }
}
