// Moduco core: the per-tree parts of kinematics, com quantities, com velocities, the bias forces
// and the tree-sparse L'DL factorization and solve on the in-step thread pool. The bodies are cut
// into ranges of whole trees, a few per thread, balanced by body count; every body's (and dof's)
// arithmetic is the serial stage's, and the only sum across trees (the world's subtree com) is
// done on the caller in the serial order, so the results are bitwise those of mc_kinematics,
// mc_comPos, mc_comVel, mc_rne, mc_factorI and mc_solveLD for any cut. Beside the broad phase the
// whole-model parts (transmissions, actuation) run as one more task, which the ranges' smooth
// acceleration waits for.
#include <sched.h>
#include <stdatomic.h>

#include "engine/engine.h"
#include "engine/fluid.h"
#include "engine/island.h"
#include "engine/parallel_stages.h"
#include "engine/threadpool.h"
#include "math/math.h"

#define MAXRANGE MCI_MAXRANGE     // ranges of one job

#define MAXBLOCKS MAXRANGE        // threads whose blocks the beside job cuts (more: mci_poolRun's)

typedef struct {
  const mcModel* m;
  mcData* d;
  const mciTreeCut* cut;          // the ranges (cached per data, see treeCut)
  int com;                        // the ranges make their com quantities, each thread its roots'
  size_t rootsum;                 // mass-weighted sums at rootsum in its scratch (3 x nbody),
  int ran[MAXRANGE];              // range k's in thread ran[k]'s (rootSums gathers them)
  mcNum* LD;                      // factorization: the factor and its inverse diagonal
  mcNum* diagInv;
  const mcNum* qLD;               // solve: the factor, its inverse diagonal and the ncol
  const mcNum* qLDiagInv;         // right-hand sides x
  mcNum* x;
  int ncol;
  int skipSimple;                 // solve: as mci_solveLDRange
  const mcNum* D;                 // damped solve: the diagonal added to M
} Trees;


// cut bodies 1 .. nbody-1 into at most want ranges of whole trees: a cut before body i is
// allowed when no body from i on belongs to a tree with a smaller root. The n-th cut (from the
// end) is the first allowed one at or past n / want of the bodies, so that the ranges' ends stay
// near the even split (a greedy count per range would let each range's excess add up: 22
// humanoids in 8 ranges gave the two threads' blocks 10 and 12 trees, now 11 and 11)
int mci_cutTrees(const mcModel* m, int want, int* body) {
  int nbody = m->nbody;
  want = want < 1 ? 1 : want > MAXRANGE ? MAXRANGE : want;
  long total = nbody - 1;
  int cut[MAXRANGE + 1], n = 0, count = 0, minroot = nbody;
  for (int i = nbody - 1; i >= 1; i--) {
    int r = m->body_rootid[i];
    minroot = r < minroot ? r : minroot;
    count++;
    if (minroot == i && ((long)count * want >= (n + 1) * total || i == 1)) {
      cut[n++] = i;
    }
  }
  for (int k = 0; k < n; k++) {
    body[k] = cut[n - 1 - k];
  }
  body[n] = nbody;
  return n;
}


// cut objects (geoms or sites, body ids nondecreasing) where the body ranges start; 0 if unsorted
static int cutObjects(const int* bodyid, int nobj, const mciTreeCut* t, int* obj) {
  for (int i = 1; i < nobj; i++) {
    if (bodyid[i] < bodyid[i - 1]) {
      return 0;
    }
  }
  int i = 0;
  obj[0] = 0;
  for (int k = 1; k < t->n; k++) {
    while (i < nobj && bodyid[i] < t->body[k]) {
      i++;
    }
    obj[k] = i;
  }
  obj[t->n] = nobj;
  return 1;
}


const mciTreeCut* mci_treeCutFor(mciTreeCut* c, const mcModel* m, const mcData* d, int want) {
  if (c->model == m && c->signature == d->model_signature && c->want == want &&
      c->nbody == m->nbody && c->ngeom == m->ngeom && c->nsite == m->nsite && c->nv == m->nv &&
      c->ncam == m->ncam && c->njnt == m->njnt) {
    return c;
  }
  c->model = m;
  c->signature = d->model_signature;
  c->want = want;
  c->nbody = m->nbody;
  c->ngeom = m->ngeom;
  c->nsite = m->nsite;
  c->nv = m->nv;
  c->ncam = m->ncam;
  c->njnt = m->njnt;
  c->n = mci_cutTrees(m, want, c->body);
  c->placed = cutObjects(m->geom_bodyid, m->ngeom, c, c->geom) &&
              cutObjects(m->site_bodyid, m->nsite, c, c->site);
  c->camplaced = cutObjects(m->cam_bodyid, m->ncam, c, c->cam);
  for (int i = 0; i < m->ncam; i++) {
    c->camplaced = c->camplaced && mci_camlightInTree(m, i);
  }
  c->dofsorted = cutObjects(m->dof_bodyid, m->nv, c, c->dof);
  c->jntsorted = cutObjects(m->jnt_bodyid, m->njnt, c, c->jnt);
  return c;
}


int mci_besideBlocks(int n, int nthread, int extra, int* first) {
  int e = extra ? 1 : 0;
  first[0] = 0;
  for (int t = 1; t < nthread; t++) {   // thread t's ranges after task 0 (extra)
    first[t] = (int)((long)n * t / nthread) + e;
  }
  first[nthread] = n + e + 1;     // the broad phase before the last block's ranges
  return first[nthread - 1];
}


// the cut of d's pool (want ranges), made on the first job for this model and kept with the pool
// workspace: it depends only on the model's tree layout (the model is read-only while stepping)
static const mciTreeCut* treeCut(const mcModel* m, mcData* d, int want) {
  return mci_treeCutFor(mci_treeCutCache(d), m, d, want);
}


const mciTreeDofs* mci_treeDofsCache(const mcModel* m, mcData* d) {
  if (!d->threadwork || m->nv < 1 || m->nv > MCI_TREEDOFMAX) {
    return NULL;
  }
  mciTreeDofs* c = &mci_treeCutCache(d)->dofs;
  if (c->model != m || c->signature != d->model_signature || c->nv != m->nv) {
    c->nrun = mci_treeDofs(m, c->tree, c->depth, c->run);
    c->model = m;
    c->signature = d->model_signature;
    c->nv = m->nv;
  }
  return c;
}


// a thread's scratch in a tree job: the start of its workspace's stack (idle between jobs; in the
// job beside the broad phase the bottom of its view's arena, which holds no contacts or rows
// there, its stack growing from the top). Each thread has its own: the rne passes and root sums
// of the helpers' ranges used to go to the caller's, whose lines the caller's island solves and
// narrow phase had written, so each step moved them to the helper's core and back.
static mcNum* scratch(const Trees* t, int thread) {
  return (mcNum*)mci_worker(t->d, thread)->stack;
}


// the rne scratch of a thread (cacc, cfrc: 6 x nbody each, at its start) with the world's entries
// (a range reads its roots' parent's); every task writes them, a few numbers, into its own
static void rneScratch(const Trees* t, int thread, mcNum** cacc, mcNum** cfrc) {
  *cacc = scratch(t, thread);
  *cfrc = *cacc + 6 * t->m->nbody;
  mci_rneWorld(t->m, *cacc, *cfrc);
}


// the root sums of a com job's ranges into the caller's scratch (where thread 0's are) for
// mci_comPosWorld: each range's roots from the scratch of the thread that ran it
static mcNum* rootSums(const Trees* t) {
  mcNum* sum = scratch(t, 0) + t->rootsum;
  const mciTreeCut* c = t->cut;
  for (int k = 0; k < c->n; k++) {
    if (t->ran[k] == 0) {
      continue;
    }
    const mcNum* from = scratch(t, t->ran[k]) + t->rootsum;
    for (int i = c->body[k]; i < c->body[k + 1]; i++) {
      if (t->m->body_parentid[i] == 0) {
        mcu_copy3(sum + 3 * i, from + 3 * i);
      }
    }
  }
  return sum;
}


// set up the ranges and nscratch numbers of scratch (each thread's own, see scratch); 0 when the
// stage should run serially
static int makeTrees(const mcModel* m, mcData* d, Trees* t, size_t nscratch) {
  int nthread = mci_threads(d);
  if (nthread < 2 || d->plugin_check || m->nbody < 3) {
    return 0;
  }
  mciWorker* w = mci_worker(d, 0);
  if (!w || sizeof(mcNum) * nscratch > w->nstack) {
    return 0;
  }
  int want = mci_rangesWanted(nthread);
  t->m = m;
  t->d = d;
  t->cut = treeCut(m, d, want);
  if (t->cut->n < 2) {
    return 0;
  }
  t->com = 0;
  t->rootsum = 0;
  return 1;
}


//---------------------------------- position stage ------------------------------------------------

static void positionTask(void* ctx, int k, int thread) {
  Trees* t = (Trees*)ctx;
  const mciTreeCut* c = t->cut;
  int first = c->body[k], last = c->body[k + 1];
  mci_kinematicsRange(t->m, t->d, first, last);
  if (c->placed) {
    mci_placeRange(t->m, t->d, c->geom[k], c->geom[k + 1], c->site[k], c->site[k + 1]);
  }
  if (!t->com) {                  // the com quantities and cameras are the inertia stage's
    return;
  }
  t->ran[k] = thread;
  mci_comPosRange(t->m, t->d, first, last, scratch(t, thread) + t->rootsum);
  if (c->camplaced) {
    mci_camlightRange(t->m, t->d, c->cam[k], c->cam[k + 1]);
  }
}


int mci_positionShared(const mciTreeCut* c, int nthread) {
  int busiest = 0;
  for (int t = 0; t < nthread; t++) {   // mci_poolRun's contiguous blocks of the ranges
    int k0 = (int)((long)c->n * t / nthread), k1 = (int)((long)c->n * (t + 1) / nthread);
    int bodies = c->body[k1] - c->body[k0];
    busiest = bodies > busiest ? bodies : busiest;
  }
  return c->body[c->n] - c->body[0] - busiest;
}


int mci_positionTrees(const mcModel* m, mcData* d, int com) {
  Trees t;
  if (!makeTrees(m, d, &t, com ? 3 * (size_t)m->nbody : 0) ||
      mci_positionShared(t.cut, mci_threads(d)) < MCI_MINPOSSHARED) {
    return 0;
  }

  // the world's frame, the trees in parallel, then what is left on the caller
  t.com = com;
  mci_kinematicsRange(m, d, 0, 1);
  mci_poolRun(d->threadpool, t.cut->n, positionTask, &t);
  if (!t.cut->placed) {
    mci_placeRange(m, d, 0, m->ngeom, 0, m->nsite);
  }
  if (com) {
    mcu_scl3(d->subtree_com, d->xipos, m->body_mass[0]);
    mci_comPosWorld(m, d, rootSums(&t));
    if (!t.cut->camplaced) {
      mci_camlightRange(m, d, 0, m->ncam);
    }
  }
  return 1;
}


//---------------------------------- velocity stage ------------------------------------------------

static void velocityTask(void* ctx, int k, int thread) {
  Trees* t = (Trees*)ctx;
  int first = t->cut->body[k], last = t->cut->body[k + 1];
  mcNum *cacc, *cfrc;
  rneScratch(t, thread, &cacc, &cfrc);
  mci_comVelRange(t->m, t->d, first, last);
  mci_rneRange(t->m, t->d, 0, cacc, cfrc, t->d->qfrc_bias, first, last);
}


int mci_velocityTrees(const mcModel* m, mcData* d) {
  Trees t;
  if (!makeTrees(m, d, &t, 12 * (size_t)m->nbody)) {
    return 0;
  }
  mcu_zero(d->cvel, 6);           // world at rest
  mci_poolRun(d->threadpool, t.cut->n, velocityTask, &t);
  return 1;
}


int mci_velocityEarlyOk(const mcModel* m, const mcData* d) {
  return mci_threads(d) > 1 && !d->plugin_check && !(m->opt.enableflags & mcENBL_SLEEP);
}


int mci_earlyParts(const mcModel* m) {
  int trn = mci_transmissionEarlyOk(m);
  return (trn ? MCI_EARLY_TRN : 0) | (trn || mci_passiveTreesOk(m) ? MCI_EARLY_PASSIVE : 0);
}


// the early parts that are not per tree, in the serial stages' order: transmissions, tendon and
// actuator velocities (trn), passive forces of the whole model (passive); their seconds in time
static void earlyWhole(const mcModel* m, mcData* d, int trn, int passive, double time[2]) {
  double t0 = mc_clockNow(d), t1 = t0;
  if (trn) {
    mc_transmission(m, d);
    t1 = mc_clockNow(d);
    mc_fwdVelocityTendonActuator(m, d);
  }
  if (passive) {
    mc_passive(m, d);
  }
  time[0] = t1 - t0;
  time[1] = mc_clockNow(d) - t1;
}


void mci_velocityEarly(const mcModel* m, mcData* d) {
  double t0 = mc_clockNow(d), time[2];
  int parts = mci_earlyParts(m);
  mc_comVel(m, d);
  mc_rne(m, d, 0, d->qfrc_bias);
  double t1 = mc_clockNow(d);
  earlyWhole(m, d, parts & MCI_EARLY_TRN, parts & MCI_EARLY_PASSIVE, time);
  if (d->profile) {               // parts of the stages' calls
    d->timer[mcTIMER_VELOCITY].duration += t1 - t0 + time[1];
    d->timer[mcTIMER_POS_KINEMATICS].duration += time[0];
  }
}


//---------------------------------- inertia (and early velocity) beside the broad phase -----------

void mci_inertiaStage(const mcModel* m, mcData* d) {
  double t0 = mc_clockNow(d);
  mc_crb(m, d);
  mc_factorM(m, d);
  mc_clockAdd(d, mcTIMER_POS_INERTIA, t0);
}


void mci_inertiaVelocityStage(const mcModel* m, mcData* d) {
  mci_inertiaStage(m, d);
  mci_velocityEarly(m, d);
}


int mci_comLaterOk(const mcModel* m, const mcData* d) {
  if (mci_threads(d) < 2 || d->plugin_check || (m->opt.enableflags & mcENBL_SLEEP)) {
    return 0;
  }
  for (int i = 0; i < m->ntendon; i++) {   // mc_tendon: a spatial tendon's Jacobian reads cdof
    if (m->tendon_num[i] && m->wrap_type[m->tendon_adr[i]] != mcWRAP_JOINT) {
      return 0;
    }
  }
  return 1;
}


void mci_comInertiaStage(const mcModel* m, mcData* d) {
  mc_comPos(m, d);
  mc_camlight(m, d);
  mci_inertiaStage(m, d);
}


void mci_comInertiaVelocityStage(const mcModel* m, mcData* d) {
  mc_comPos(m, d);
  mc_camlight(m, d);
  mci_inertiaVelocityStage(m, d);
}


typedef struct {
  Trees t;
  int early;                      // the velocity stage's per-tree part too
  int treesok;                    // early: mci_passiveTreesOk
  int passive;                    // early: the passive forces per range
  int extra;                      // early: 0, task 0 has the whole-model parts; else -1
  int com;                        // each range makes its com quantities (and cameras) first
  int broad;                      // the task that runs fn (the first of the last thread's block)
  int actuated;                   // early: task 0 ran mc_fwdActuation after trn (and wholepassive)
  int passivelater;               // early: the passive forces whole after the job (fluid forces
                                  // read every range's cvel, made during the job)
  int accelerate;                 // early: the ranges make the smooth acceleration (set by task 0)
  atomic_int gate;                // early: task 0 is done (the ranges' acceleration waits for it)
  double extratime[3];            // task 0's seconds of transmission, passive forces, actuation
  void (*fn)(void*);
  void* ctx;
  int warn[3 * MAXRANGE];         // per range: pivot warnings, the first and the last dof warned
  double time[3 * MAXRANGE];      // per range (d->profile): seconds of inertia, velocity and
                                  // acceleration
} Beside;


// may the ranges make mc_fwdAcceleration's work once task 0 has run the actuation? Not when a
// geom has adhesion: the velocity stage adds its forces to qfrc_passive after collision (tendon
// armature, which adds to qfrc_bias there, never comes here: mci_simpleRowsZero)
static int accelerationEarlyOk(const mcModel* m) {
  for (int i = 0; i < m->ngeom; i++) {
    if (m->geom_adhesion[i] != 0) {
      return 0;
    }
  }
  return 1;
}


// wait until task 0 is done: the pool's caller takes it first (the first task of its block) and
// it waits for nothing, so this ends; usually it is done before any range gets here
static void awaitGate(atomic_int* gate) {
  for (int spin = 0; !atomic_load_explicit(gate, memory_order_acquire); spin++) {
    if (spin > 64) {
      sched_yield();
    }
  }
}


// a tree range on the thread's view (d's arrays; its own warning counts, see below)
static void besideTask(void* ctx, int task, int thread) {
  Beside* b = (Beside*)ctx;
  const mcModel* m = b->t.m;
  mcData* v = &mci_worker(b->t.d, thread)->view;
  if (task == b->broad) {
    b->fn(b->ctx);
    return;
  }
  if (task == b->extra) {         // whole-model parts: no range writes what they write
    // mci_earlyParts decided here, off the caller (its loop over the actuators): transmissions,
    // tendon and actuator velocities, the passive forces whole after them when not per range
    int trn = mci_transmissionEarlyOk(m);
    int whole = !b->passive && (trn || b->treesok);
    int wholepassive = whole && !mc_fluidOn(m);
    b->passivelater = whole && !wholepassive;
    earlyWhole(m, v, trn, wholepassive, b->extratime);
    if (trn && mci_actuationEarlyOk(m, wholepassive)) {
      double t0 = mc_clockNow(v);  // the actuation reads the actuator lengths, moments and
      b->actuated = mci_fwdActuationEarly(m, v);  // velocities just made, no range's output
      b->extratime[2] = mc_clockNow(v) - t0;
    }
    b->accelerate = b->actuated && !b->passivelater && accelerationEarlyOk(m);
    atomic_store_explicit(&b->gate, 1, memory_order_release);
    return;
  }
  int k = task - (task > b->broad) - (b->extra >= 0 && task > b->extra);
  const mciTreeCut* c = b->t.cut;
  mcWarningStat* w = v->warning + mcWARN_INERTIA;
  int first = c->body[k], last = c->body[k + 1], n0 = w->number;
  double t0 = mc_clockNow(v);
  if (b->com) {                   // mc_comPos and mc_camlight of the range (as positionTask)
    b->t.ran[k] = thread;
    mci_comPosRange(m, v, first, last, scratch(&b->t, thread) + b->t.rootsum);
    if (c->camplaced) {
      mci_camlightRange(m, v, c->cam[k], c->cam[k + 1]);
    }
  }
  mci_inertiaRange(m, v, first, last, c->dof[k], c->dof[k + 1]);
  double t1 = mc_clockNow(v);
  b->time[3 * k] = t1 - t0;
  b->warn[3 * k] = w->number - n0;
  b->warn[3 * k + 2] = w->lastinfo;
  if (w->number - n0 > 1) {       // the first dof warned: the highest whose pivot was replaced
    int i = c->dof[k + 1] - 1;
    while (i > c->dof[k] && v->qLDiagInv[i] != 1 / mcMINVAL) {
      i--;
    }
    b->warn[3 * k + 1] = i;
  } else {
    b->warn[3 * k + 1] = w->lastinfo;
  }
  if (b->early) {
    mcNum *cacc, *cfrc;
    rneScratch(&b->t, thread, &cacc, &cfrc);
    mci_comVelRange(m, v, first, last);
    mci_rneRange(m, v, 0, cacc, cfrc, v->qfrc_bias, first, last);
    if (b->passive) {
      mci_passiveRange(m, v, c->jnt[k], c->jnt[k + 1], c->dof[k], c->dof[k + 1], first, last);
    }
    double t2 = mc_clockNow(v);
    b->time[3 * k + 1] = t2 - t1;

    // mc_fwdAcceleration's work on the range (accelerationTask) when task 0 ran the actuation:
    // its forces are all in (passive, bias and actuator of the range's dofs, the applied ones),
    // and its rows of the factor were made above
    awaitGate(&b->gate);
    if (b->accelerate) {
      mci_smoothRange(m, v, first, last, c->dof[k], c->dof[k + 1]);
      mci_solveLDRange(m, v->qacc_smooth, 1, v->qLD, v->qLDiagInv, c->dof[k], c->dof[k + 1], 1);
      b->time[3 * k + 2] = mc_clockNow(v) - t2;
    }
  }
}


int mci_inertiaTreesBeside(const mcModel* m, mcData* d, void (*stage)(const mcModel*, mcData*),
                           void (*fn)(void*), void* ctx) {
  Beside b;
  int com = stage == mci_comInertiaStage || stage == mci_comInertiaVelocityStage;
  b.early = stage == mci_inertiaVelocityStage || stage == mci_comInertiaVelocityStage;
  size_t nbody = (size_t)m->nbody;
  if ((!b.early && !com && stage != mci_inertiaStage) || !mci_simpleRowsZero(m) ||
      !makeTrees(m, d, &b.t, (b.early ? 12 * nbody : 0) + (com ? 3 * nbody : 0)) ||
      !b.t.cut->dofsorted) {
    return 0;
  }
  // early: the parts of mci_earlyParts, the passive forces per range when they reach no other
  // tree (mci_passiveTreesOk), else whole in task 0, as the stage does them
  int n = b.t.cut->n, nthread = mci_threads(d);
  b.treesok = b.early && mci_passiveTreesOk(m);
  b.passive = b.treesok && b.t.cut->jntsorted;
  b.extra = b.early ? 0 : -1;
  // the com quantities in the ranges (humanoid100: ~36k instructions a step, made where the
  // caller's block would wait for thread 1's broad phase) unless task 0 may run the passive
  // forces whole, which read every tree's; then here
  b.com = com && (!b.early || b.passive);
  b.t.com = b.com;
  b.t.rootsum = b.early ? 12 * nbody : 0;
  if (com && !b.com) {
    mc_comPos(m, d);
    mc_camlight(m, d);
  }
  b.extratime[0] = b.extratime[1] = b.extratime[2] = 0;
  b.actuated = b.accelerate = b.passivelater = 0;
  atomic_init(&b.gate, 0);
  int ntask = n + 1 + (b.extra >= 0);
  b.fn = fn;
  b.ctx = ctx;
  int first[MAXBLOCKS + 1];        // the threads' blocks: each its ranges of the other jobs
  if (nthread <= MAXBLOCKS) {
    b.broad = mci_besideBlocks(n, nthread, b.extra >= 0, first);
  } else {
    b.broad = (int)((long)ntask * (nthread - 1) / nthread);   // >= 1: never task 0
  }

  // a view per thread counts the pivot warnings of its ranges (never printing or stopping:
  // they are replayed on d below); the world's composite inertia and rne entries first
  for (int t = 0; t < nthread; t++) {
    mcData* v = &mci_worker(d, t)->view;
    mci_workerView(mci_worker(d, t), d);
    v->warning_policy = 0;
    v->warning[mcWARN_INERTIA].number = 1;
  }
  if (b.com) {                    // the world's entries as mc_comPos starts them (its com is
    mcu_scl3(d->subtree_com, d->xipos, m->body_mass[0]);   // finished after the job)
    mcu_zero(d->cinert, 10);
  }
  mcu_copy(d->crb, d->cinert, 10);
  if (b.early) {
    mcu_zero(d->cvel, 6);
  }
  mci_poolRunCut(d->threadpool, ntask, besideTask, &b, nthread <= MAXBLOCKS ? first : NULL);
  if (b.passivelater) {           // every range's cvel is made now
    double t0 = mc_clockNow(d);
    mc_passive(m, d);
    b.extratime[1] += mc_clockNow(d) - t0;
  }
  if (b.com) {
    mci_comPosWorld(m, d, rootSums(&b.t));
    if (!b.t.cut->camplaced) {
      mci_camlightRange(m, d, 0, m->ncam);
    }
  }
  mci_treeCutCache(d)->actuated = b.actuated;
  mci_treeCutCache(d)->accelerated = b.accelerate;

  // warnings as the serial factorization gives them (from the last dof down), then the timers
  double inertia = 0, velocity = 0, acceleration = 0;
  for (int k = n - 1; k >= 0; k--) {
    int count = b.warn[3 * k];
    if (count > 0) {
      mc_warning(d, mcWARN_INERTIA, b.warn[3 * k + 1]);
      d->warning[mcWARN_INERTIA].number += count - 1;
      d->warning[mcWARN_INERTIA].lastinfo = b.warn[3 * k + 2];
    }
    inertia += b.time[3 * k];
    velocity += b.early ? b.time[3 * k + 1] : 0;
    acceleration += b.accelerate ? b.time[3 * k + 2] : 0;
  }
  if (d->profile) {
    d->timer[mcTIMER_POS_INERTIA].duration += inertia;
    d->timer[mcTIMER_POS_INERTIA].number++;
    d->timer[mcTIMER_VELOCITY].duration += velocity + b.extratime[1];
    d->timer[mcTIMER_POS_KINEMATICS].duration += b.extratime[0];
    if (b.actuated) {
      d->timer[mcTIMER_ACTUATION].duration += b.extratime[2];
      d->timer[mcTIMER_ACTUATION].number++;
    }
    if (b.accelerate) {
      d->timer[mcTIMER_ACCELERATION].duration += acceleration;
      d->timer[mcTIMER_ACCELERATION].number++;
    }
  }
  return 1;
}


int mci_takeActuationEarly(mcData* d) {
  if (mci_threads(d) < 2) {
    return 0;
  }
  mciTreeCut* c = mci_treeCutCache(d);
  int done = c->actuated;
  c->actuated = 0;
  return done;
}


//---------------------------------- factorization and solve in the tree-sparse layout -------------

// the ranges with their dofs; 0 (serial) also when M has fewer than MINOFFDIAG off-diagonal
// entries, the solve's work: below it a job's synchronization costs more than the job saves
// (humanoid100, 1,716 entries, stepped slower with it on a pool of two; 22_humanoids has 4,752)
#define MINOFFDIAG 4096
static int dofTrees(const mcModel* m, mcData* d, Trees* t) {
  return m->nM - m->nv >= MINOFFDIAG && makeTrees(m, d, t, 0) && t->cut->dofsorted;
}


static void factorTask(void* ctx, int k, int thread) {
  (void)thread;
  Trees* t = (Trees*)ctx;
  mci_factorRange(t->m, NULL, t->LD, t->diagInv, t->cut->dof[k], t->cut->dof[k + 1]);
}


void mci_factorIPool(const mcModel* m, mcData* d, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv) {
  Trees t;
  if (!dofTrees(m, d, &t)) {
    mc_factorI(m, M, qLD, qLDiagInv);
    return;
  }
  if (qLD != M) {
    mcu_copy(qLD, M, m->nM);
  }
  t.LD = qLD;
  t.diagInv = qLDiagInv;
  mci_poolRun(d->threadpool, t.cut->n, factorTask, &t);
}


static void solveTask(void* ctx, int k, int thread) {
  (void)thread;
  Trees* t = (Trees*)ctx;
  mci_solveLDRange(t->m, t->x, t->ncol, t->qLD, t->qLDiagInv, t->cut->dof[k],
                   t->cut->dof[k + 1], t->skipSimple);
}


static void solvePool(const mcModel* m, mcData* d, mcNum* x, int n, const mcNum* qLD,
                      const mcNum* qLDiagInv, int skipSimple) {
  Trees t;
  if (!dofTrees(m, d, &t)) {
    mci_solveLDRange(m, x, n, qLD, qLDiagInv, 0, m->nv, skipSimple);
    return;
  }
  t.qLD = qLD;
  t.qLDiagInv = qLDiagInv;
  t.x = x;
  t.ncol = n;
  t.skipSimple = skipSimple;
  mci_poolRun(d->threadpool, t.cut->n, solveTask, &t);
}


void mci_solveLDPool(const mcModel* m, mcData* d, mcNum* x, int n, const mcNum* qLD,
                     const mcNum* qLDiagInv) {
  solvePool(m, d, x, n, qLD, qLDiagInv, 0);
}


static void accelerationTask(void* ctx, int k, int thread) {
  (void)thread;
  Trees* t = (Trees*)ctx;
  const mciTreeCut* c = t->cut;
  mcData* d = t->d;
  mci_smoothRange(t->m, d, c->body[k], c->body[k + 1], c->dof[k], c->dof[k + 1]);
  mci_solveLDRange(t->m, d->qacc_smooth, 1, d->qLD, d->qLDiagInv, c->dof[k], c->dof[k + 1],
                   t->skipSimple);
}


int mci_accelerationTrees(const mcModel* m, mcData* d) {
  if (mci_threads(d) > 1 && mci_treeCutCache(d)->accelerated) {
    mci_treeCutCache(d)->accelerated = 0;   // done by the ranges beside the broad phase
    return 1;
  }
  Trees t;
  if (!dofTrees(m, d, &t)) {
    return 0;
  }
  t.skipSimple = mci_simpleRowsZero(m);
  mci_poolRun(d->threadpool, t.cut->n, accelerationTask, &t);
  return 1;
}


// a range of mci_solveMDamped: the factor of its damped runs and the solve, in one task
static void dampedTask(void* ctx, int k, int thread) {
  (void)thread;
  Trees* t = (Trees*)ctx;
  mci_solveMDampedRange(t->m, t->d, t->D, t->x, t->LD, t->diagInv, t->cut->dof[k],
                        t->cut->dof[k + 1]);
}


int mci_solveMDampedPool(const mcModel* m, mcData* d, const mcNum* D, mcNum* x, mcNum* LD,
                         mcNum* diagInv) {
  Trees t;
  if (!dofTrees(m, d, &t)) {
    return 0;
  }
  t.D = D;
  t.x = x;
  t.LD = LD;
  t.diagInv = diagInv;
  mci_poolRun(d->threadpool, t.cut->n, dampedTask, &t);
  return 1;
}
