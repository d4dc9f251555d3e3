// Moduco core: island solves. Each island is gathered into a view (a model and a data holding the
// island's dofs and rows only, in local indices) and handed to the solver plugin; the results are
// scattered back. With a thread pool bound, islands are solved in parallel, each thread building
// its views in its own scratch memory; an island that runs out of it there is solved again on the
// caller, so results never depend on the thread count. Each island's solve also makes the solver
// input efc_b of its rows (every row belongs to an island), so that product runs on the pool too;
// when the island solve is not done, the caller makes all of efc_b before the whole solve.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "engine/engine.h"
#include "engine/io.h"
#include "engine/island.h"
#include "engine/parallel_stages.h"
#include "engine/solver_contract.h"
#include "engine/threadpool.h"
#include "plugin/registry.h"

typedef struct {
  const mcModel* m;
  mcData* d;
  int maxiter;
  int nstat;                      // statistics kept per island (first nstat iterations)
  mcSolverStat* stat;             // nisland x nstat, NULL: none kept
  int* failed;                    // per island: 1 if its view ran out of scratch memory
  int* nnz;                       // per island: the solver's solver_nnz
  int* prepared;                  // per thread: its worker's views are set for this solve
  int* order;                     // task -> island (large first in each thread's block; NULL:
                                  // the identity)
} Job;


//---------------------------------- island views --------------------------------------------------

// does the solver accept island views (ABI 1.4)?
static int islandSolver(const mcpSolver* s) {
  return s && s->hdr.abi_minor >= 4 &&
         s->hdr.struct_size >= offsetof(mcpSolver, islands) + sizeof(int) && s->islands == 1;
}


// is a size name nv (the dof-indexed arrays)?
static int isNv(const char* name) {
  return name[0] == 'n' && name[1] == 'v' && name[2] == 0;
}


// gather n entries of src at ind into a new array of the view's arena (ok cleared if full)
#define DEFINE_GATHER(type)                                                                        \
  static type* gather##type(mcData* v, const type* src, const int* ind, int n, int* ok) {         \
    type* res = mci_arenaAlloc(v, sizeof(type) * (size_t)(n > 0 ? n : 1), _Alignof(type));        \
    if (!res) {                                                                                    \
      *ok = 0;                                                                                     \
      return NULL;                                                                                 \
    }                                                                                              \
    for (int k = 0; k < n; k++) {                                                                  \
      res[k] = src[ind[k]];                                                                        \
    }                                                                                              \
    return res;                                                                                    \
  }
DEFINE_GATHER(mcNum)
DEFINE_GATHER(int)
#undef DEFINE_GATHER
#define GATHER(v, type, src, ind, n, ok) gather##type(v, src, ind, n, &(ok))


// model view of an island's dofs: tree layout of M in local indices (g2l: global -> local); the
// rest of mv was set by prepareWorker
static int modelView(const mcModel* m, mcModel* mv, mcData* v, const int* dof, int n,
                     const int* g2l) {
  int ok = 1;
  int* parent = mci_arenaAlloc(v, sizeof(int) * (size_t)n, _Alignof(int));
  int* Madr = mci_arenaAlloc(v, sizeof(int) * (size_t)n, _Alignof(int));
  int* simplenum = mci_arenaAlloc(v, sizeof(int) * (size_t)n, _Alignof(int));
  if (!parent || !Madr || !simplenum) {
    return 0;
  }
  int nM = 0;
  for (int k = 0; k < n; k++) {
    int p = m->dof_parentid[dof[k]];
    parent[k] = p < 0 ? -1 : g2l[p];
    Madr[k] = nM;
    nM++;
    for (; p >= 0; p = m->dof_parentid[p]) {
      nM++;
    }
  }
  // runs of consecutive simple dofs in local order (the solve and product skip their rows)
  for (int k = n - 1; k >= 0; k--) {
    simplenum[k] = m->dof_simplenum[dof[k]] > 0 ? 1 + (k + 1 < n ? simplenum[k + 1] : 0) : 0;
  }
  mv->nv = n;
  mv->nM = nM;
  mv->dof_simplenum = simplenum;
  mv->dof_parentid = parent;
  mv->dof_Madr = Madr;
  mv->dof_M0 = GATHER(v, mcNum, m->dof_M0, dof, n, ok);
  mv->dof_damping = GATHER(v, mcNum, m->dof_damping, dof, n, ok);
  mv->dof_armature = GATHER(v, mcNum, m->dof_armature, dof, n, ok);
  mv->dof_invweight0 = GATHER(v, mcNum, m->dof_invweight0, dof, n, ok);
  return ok;
}


// qM-layout array of the island's dofs (each dof's diagonal and ancestors, in order)
static mcNum* gatherM(const mcModel* m, const mcModel* mv, mcData* v, const mcNum* src,
                      const int* dof, int n) {
  mcNum* res = mci_arenaAlloc(v, sizeof(mcNum) * (size_t)mv->nM, _Alignof(mcNum));
  if (!res) {
    return NULL;
  }
  for (int k = 0; k < n; k++) {
    int cnt = (k + 1 < n ? mv->dof_Madr[k + 1] : mv->nM) - mv->dof_Madr[k];
    memcpy(res + mv->dof_Madr[k], src + m->dof_Madr[dof[k]], sizeof(mcNum) * (size_t)cnt);
  }
  return res;
}


// the island's rows of efc_J in local columns (dense or row-sparse like the data's)
static int gatherJ(const mcModel* m, const mcData* d, mcData* v, const int* row, int r,
                   const int* dof, int n, const int* g2l) {
  if (!d->efc_J_rownnz) {
    v->efc_J = mci_arenaAlloc(v, sizeof(mcNum) * ((size_t)r * n + 1), _Alignof(mcNum));
    if (!v->efc_J) {
      return 0;
    }
    for (int i = 0; i < r; i++) {
      const mcNum* src = d->efc_J + (size_t)row[i] * m->nv;
      for (int k = 0; k < n; k++) {
        v->efc_J[(size_t)i * n + k] = src[dof[k]];
      }
    }
    return 1;
  }
  int nnz = 0;
  for (int i = 0; i < r; i++) {
    nnz += d->efc_J_rownnz[row[i]];
  }
  int ok = 1;
  v->efc_J_rownnz = GATHER(v, int, d->efc_J_rownnz, row, r, ok);
  v->efc_J_rowadr = mci_arenaAlloc(v, sizeof(int) * (size_t)(r + 1), _Alignof(int));
  v->efc_J_colind = mci_arenaAlloc(v, sizeof(int) * (size_t)(nnz + 1), _Alignof(int));
  v->efc_J_val = mci_arenaAlloc(v, sizeof(mcNum) * (size_t)(nnz + 1), _Alignof(mcNum));
  if (!ok || !v->efc_J_rowadr || !v->efc_J_colind || !v->efc_J_val) {
    return 0;
  }
  for (int i = 0, adr = 0; i < r; i++) {
    int src = d->efc_J_rowadr[row[i]], cnt = d->efc_J_rownnz[row[i]];
    v->efc_J_rowadr[i] = adr;
    for (int k = 0; k < cnt; k++) {
      v->efc_J_colind[adr + k] = g2l[d->efc_J_colind[src + k]];
    }
    memcpy(v->efc_J_val + adr, d->efc_J_val + src, sizeof(mcNum) * (size_t)cnt);
    adr += cnt;
  }
  return 1;
}


// the view data of island isl (v: prepared by prepareWorker, emptied); 0 if its arena is too
// small
static int dataView(const mcModel* m, const mcData* d, const mcModel* mv, mcData* v, int isl,
                    const int* g2l) {
  const int* dof = d->island_dofind + d->island_dofadr[isl];
  const int* row = d->island_efcind + d->island_efcadr[isl];
  int n = d->island_dofnum[isl], r = d->island_efcnum[isl], ok = 1;
  v->island_view = isl;
  v->efc_AR = NULL;
  v->efc_AR_rownnz = v->efc_AR_rowadr = v->efc_AR_colind = NULL;
  v->efc_J = NULL;
  v->efc_J_rownnz = v->efc_J_rowadr = v->efc_J_colind = NULL;
  v->efc_J_val = NULL;
  v->solver_iter = 0;
  v->solver_nnz = 0;

  // dofs
  v->qacc = GATHER(v, mcNum, d->qacc, dof, n, ok);
  v->qacc_smooth = GATHER(v, mcNum, d->qacc_smooth, dof, n, ok);
  v->qacc_warmstart = GATHER(v, mcNum, d->qacc_warmstart, dof, n, ok);
  v->qfrc_smooth = GATHER(v, mcNum, d->qfrc_smooth, dof, n, ok);
  v->qfrc_constraint = GATHER(v, mcNum, d->qfrc_constraint, dof, n, ok);
  v->qLDiagInv = GATHER(v, mcNum, d->qLDiagInv, dof, n, ok);
  v->qLDiagSqrtInv = GATHER(v, mcNum, d->qLDiagSqrtInv, dof, n, ok);
  v->qM = ok ? gatherM(m, mv, v, d->qM, dof, n) : NULL;
  v->qLD = ok ? gatherM(m, mv, v, d->qLD, dof, n) : NULL;
  if (!ok || !v->qM || !v->qLD) {
    return 0;
  }

  // rows (efc_id keeps pointing into the full contact list)
  int ne = 0, nf = 0;
  for (int i = 0; i < r; i++) {
    int t = d->efc_type[row[i]];
    ne += t == mcCNSTR_EQUALITY;
    nf += t == mcCNSTR_FRICTION_DOF || t == mcCNSTR_FRICTION_TENDON;
  }
  v->nefc = r;
  v->ne = ne;
  v->nf = nf;
  v->efc_type = GATHER(v, int, d->efc_type, row, r, ok);
  v->efc_id = GATHER(v, int, d->efc_id, row, r, ok);
  v->efc_state = GATHER(v, int, d->efc_state, row, r, ok);
  v->efc_pos = GATHER(v, mcNum, d->efc_pos, row, r, ok);
  v->efc_margin = GATHER(v, mcNum, d->efc_margin, row, r, ok);
  v->efc_frictionloss = GATHER(v, mcNum, d->efc_frictionloss, row, r, ok);
  v->efc_diagApprox = GATHER(v, mcNum, d->efc_diagApprox, row, r, ok);
  v->efc_D = GATHER(v, mcNum, d->efc_D, row, r, ok);
  v->efc_R = GATHER(v, mcNum, d->efc_R, row, r, ok);
  v->efc_vel = GATHER(v, mcNum, d->efc_vel, row, r, ok);
  v->efc_aref = GATHER(v, mcNum, d->efc_aref, row, r, ok);
  v->efc_b = GATHER(v, mcNum, d->efc_b, row, r, ok);
  v->efc_force = GATHER(v, mcNum, d->efc_force, row, r, ok);
  v->efc_KBIP = mci_arenaAlloc(v, sizeof(mcNum) * 4 * (size_t)(r + 1), _Alignof(mcNum));
  if (!ok || !v->efc_KBIP) {
    return 0;
  }
  for (int i = 0; i < r; i++) {
    memcpy(v->efc_KBIP + 4 * i, d->efc_KBIP + 4 * row[i], 4 * sizeof(mcNum));
  }
  return gatherJ(m, d, v, row, r, dof, n, g2l);
}


// a worker's views for the island solves of d: its data view (mci_workerView) and model view
// with every dof-sized array NULL until an island fills the ones it holds
static void prepareWorker(mciWorker* w, const mcModel* m, const mcData* d) {
  mci_workerView(w, d);
  mcModel* mv = &w->mview;
  mcData* v = &w->view;
  *mv = *m;
#define X(type, name, nr, nc)                                                                      \
  if (isNv(#nr) || isNv(#nc)) {                                                                    \
    mv->name = NULL;                                                                               \
  }
  MC_MODEL_POINTERS(X)
#undef X
#define X(type, name, nr, nc)                                                                      \
  if (isNv(#nr) || isNv(#nc)) {                                                                    \
    v->name = NULL;                                                                                \
  }
  MC_DATA_POINTERS(X)
#undef X
  v->contact = d->contact;        // efc_id keeps pointing into the full contact list
  v->ncon = d->ncon;
  v->island_model = m;
  v->island_M0trace = 0;
  for (int i = 0; i < m->nv; i++) {
    v->island_M0trace += m->dof_M0[i];
  }
  v->nisland = 0;
  v->efc_island = v->island_efcind = NULL;
}


//---------------------------------- one island ----------------------------------------------------

// solve island isl in worker w's view and scatter the results into d; 0 if the worker's memory
// was too small (nothing written to d, the view's warnings undone)
static int solveIsland(const Job* job, mciWorker* w, int isl) {
  const mcModel* m = job->m;
  mcData* d = job->d;
  mcData* v = &w->view;
  const int* dof = d->island_dofind + d->island_dofadr[isl];
  const int* row = d->island_efcind + d->island_efcadr[isl];
  int n = d->island_dofnum[isl], r = d->island_efcnum[isl];

  // empty the view's arena and stack; remember its warnings
  v->parena = 0;
  v->pstack = v->pbase = v->narena;
  v->stack_marks = 0;
  mcWarningStat warn0[mcNWARNING];
  memcpy(warn0, v->warning, sizeof(warn0));
  int stop0 = v->warning_stop;

  // the solver input of the island's rows (mc_fwdConstraint leaves efc_b to the island solves)
  mc_solverInputRows(m, d, row, r);

  // global -> local dof index (only the island's entries are written and read)
  int* g2l = mci_arenaAlloc(v, sizeof(int) * (size_t)m->nv, _Alignof(int));
  int ok = g2l != NULL;
  for (int k = 0; ok && k < n; k++) {
    g2l[dof[k]] = k;
  }
  ok = ok && modelView(m, &w->mview, v, dof, n, g2l) && dataView(m, d, &w->mview, v, isl, g2l);
  if (ok) {
    m->solver->solve(mcp_host(), &w->mview, v, job->maxiter);
  }
  if (!ok || v->warning[mcWARN_CNSTRFULL].number != warn0[mcWARN_CNSTRFULL].number) {
    memcpy(v->warning, warn0, sizeof(warn0));
    v->warning_stop = stop0;
    return 0;
  }

  // scatter (each island writes its own dofs and rows only)
  for (int k = 0; k < n; k++) {
    d->qacc[dof[k]] = v->qacc[k];
    d->qacc_warmstart[dof[k]] = v->qacc_warmstart[k];
    d->qfrc_constraint[dof[k]] = v->qfrc_constraint[k];
  }
  for (int i = 0; i < r; i++) {
    d->efc_force[row[i]] = v->efc_force[i];
    d->efc_state[row[i]] = v->efc_state[i];
  }
  d->island_iter[isl] = v->solver_iter;
  job->nnz[isl] = v->solver_nnz;
  if (job->stat) {
    int keep = v->solver_iter < job->nstat ? v->solver_iter : job->nstat;
    memcpy(job->stat + (size_t)isl * job->nstat, v->solver, sizeof(mcSolverStat) * (size_t)keep);
  }
  job->failed[isl] = 0;
  return 1;
}


// pool task: island task on the thread's worker (its views made by the thread's first task, so
// the caller does not make them all)
static void islandTask(void* ctx, int task, int thread) {
  Job* job = (Job*)ctx;
  mciWorker* w = mci_worker(job->d, thread);
  if (!job->prepared[thread]) {
    prepareWorker(w, job->m, job->d);
    job->prepared[thread] = 1;
  }
  int isl = job->order ? job->order[task] : task;
  job->failed[isl] = !solveIsland(job, w, isl);
}


// the islands' order as tasks of a pool of nthread: by estimated cost (rows x dofs + dofs^2, the
// products and the factorization of a Newton iteration), in contiguous blocks of about equal cost
// (mci_poolRunCut gives thread k its block first, a thread that is done takes the others' last
// ones), largest cost class first in each block (a class: costs within a factor of two; by index
// within a class): the threads start on their large islands and the small ones, taken from the
// blocks' ends, even out the end. Which thread solves an island never changes its result.


// the islands 0 .. n-1 in idx by cost class descending (class: the cost's bit length), ties by
// index ascending: a counting sort (start: NCLASS ints). A comparison sort of the exact costs took
// ~2k cycles a block of 35 islands on humanoid100 (mispredicted branches), on the caller before
// the job; the order only has to put the large islands first and leave the small ones to the
// blocks' ends. Costs are never negative.
#define NCLASS 65

static inline int costClass(long cost) {
  return cost > 0 ? 64 - __builtin_clzll((unsigned long long)cost) : 0;
}

static void sortByCost(const long* cost, int n, int* idx, int* start) {
  memset(start, 0, sizeof(int) * NCLASS);
  for (int i = 0; i < n; i++) {
    start[NCLASS - 1 - costClass(cost[i])]++;
  }
  for (int c = 0, a = 0; c < NCLASS; c++) {
    int k = start[c];
    start[c] = a;
    a += k;
  }
  for (int i = 0; i < n; i++) {
    idx[start[NCLASS - 1 - costClass(cost[i])]++] = i;
  }
}


int mci_islandOrder(mcData* d, int nthread, int* order, int* first) {
  int n = d->nisland;
  mc_markStack(d);                // freed before the islands are solved
  long* cost = mc_stackAlloc(d, sizeof(long) * (size_t)n, _Alignof(long));
  int* tmp = mc_stackAlloc(d, sizeof(int) * NCLASS, _Alignof(int));
  if (!cost || !tmp) {
    mc_freeStack(d);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    long dofs = d->island_dofnum[i], rows = d->island_efcnum[i];
    cost[i] = rows * dofs + dofs * dofs;
  }
  // contiguous blocks of the islands in tree order (the trees a thread made in the tree jobs
  // before: their inertia, Jacobians and rows are in its core's cache), each largest class first
  mci_cutByCost(cost, n, nthread, first);
  for (int k = 0; k < nthread; k++) {
    int lo = first[k];
    sortByCost(cost + lo, first[k + 1] - lo, order + lo, tmp);
    for (int t = lo; t < first[k + 1]; t++) {
      order[t] += lo;
    }
  }
  mc_freeStack(d);
  return 1;
}


//---------------------------------- statistics ----------------------------------------------------

// d->solver[k] over the islands, in island order: improvements, counts and evaluations summed,
// gradients combined as a norm, the largest line slope; solver_iter the most iterations,
// solver_nnz the sum. Island by island, each adding its iterations to the rows of d->solver (the
// same sums in the same order as iteration by iteration over all islands, without a pass over the
// islands for every iteration of the longest solve)
static void mergeStats(mcData* d, const Job* job) {
  int iter = 0, nnz = 0;
  for (int i = 0; i < d->nisland; i++) {
    iter = d->island_iter[i] > iter ? d->island_iter[i] : iter;
    nnz += job->nnz[i];
  }
  d->solver_iter = iter;
  d->solver_nnz = nnz;
  int nk = iter < job->nstat ? iter : job->nstat;
  if (!job->stat || nk <= 0) {
    return;
  }
  memset(d->solver, 0, sizeof(mcSolverStat) * (size_t)nk);   // gradient: the sum of squares first
  for (int i = 0; i < d->nisland; i++) {
    const mcSolverStat* t = job->stat + (size_t)i * job->nstat;
    for (int k = 0, n = d->island_iter[i] < nk ? d->island_iter[i] : nk; k < n; k++) {
      mcSolverStat* s = d->solver + k;
      s->improvement += t[k].improvement;
      s->gradient += t[k].gradient * t[k].gradient;
      s->lineslope = t[k].lineslope > s->lineslope ? t[k].lineslope : s->lineslope;
      s->nactive += t[k].nactive;
      s->nchange += t[k].nchange;
      s->neval += t[k].neval;
      s->nupdate += t[k].nupdate;
    }
  }
  for (int k = 0; k < nk; k++) {
    d->solver[k].gradient = sqrt(d->solver[k].gradient);
  }
}


//---------------------------------- the island solve ----------------------------------------------

// The island job pays on two threads only with solves enough to share: the islands' summed cost
// (rows x dofs + dofs^2, as mci_islandOrder) from MINISLANDCOST. Below it the caller solves them
// in turn (the same bits): the robotiq_2f85 scene's two islands (cost 162-178 a step) ran 0.86x on
// two threads against one, dm_stacker's (99-207) 0.96x (session 21, `moduco-bench-islands
// threads`, paired); humanoid100's islands cost 1,617-24,354 a step (~24 us of solves at the low
// end), 22_humanoids' 17,226-41,580
#define MINISLANDCOST 512

static int islandsPay(const mcData* d) {
  if (mci_poolEager(d)) {
    return 1;
  }
  long cost = 0;
  for (int i = 0; i < d->nisland && cost < MINISLANDCOST; i++) {
    long dofs = d->island_dofnum[i], rows = d->island_efcnum[i];
    cost += rows * dofs + dofs * dofs;
  }
  return cost >= MINISLANDCOST;
}


int mc_solveIslands(const mcModel* m, mcData* d, int maxiter) {
  int nisland = d->nisland, nv = m->nv;
  d->island_solved = 0;
  // one island is solved in its view only when it leaves dofs out (the humanoid of humanoid100
  // on the floor before the objects land: 33 of 627 dofs); holding them all, the view would be
  // the whole problem again
  if (nisland < 1 || (nisland == 1 && d->island_dofnum[0] == nv) || !islandSolver(m->solver) ||
      d->island_view >= 0) {
    return 0;
  }

  // per-island statistics and flags on the data's stack; the caller's worker uses the rest of
  // the data's free memory (the same whether or not a pool is bound)
  mc_markStack(d);
  Job job;
  job.m = m;
  job.d = d;
  job.maxiter = maxiter;
  job.nstat = maxiter < mcNSOLVER ? (maxiter > 0 ? maxiter : 1) : mcNSOLVER;
  job.failed = mc_stackAlloc(d, sizeof(int) * (size_t)nisland, _Alignof(int));
  job.nnz = mc_stackAlloc(d, sizeof(int) * (size_t)nisland, _Alignof(int));
  job.stat = mc_stackAlloc(d, sizeof(mcSolverStat) * (size_t)nisland * job.nstat,
                           _Alignof(mcSolverStat));
  int nthread = mci_threads(d);
  job.prepared = mc_stackAlloc(d, sizeof(int) * (size_t)nthread, _Alignof(int));
  int* first = mc_stackAlloc(d, sizeof(int) * (size_t)(nthread + 1), _Alignof(int));
  // the task order, allocated for any thread count: the caller's fallback below gets the same
  // free memory whether or not a pool is bound
  job.order = mc_stackAlloc(d, sizeof(int) * (size_t)nisland, _Alignof(int));
  if (!job.failed || !job.nnz || !job.stat || !job.prepared) {
    mc_freeStack(d);
    return 0;
  }
  for (int i = 0; i < nisland; i++) {
    job.failed[i] = 1;
  }

  // parallel first (workers' own memory), then on the caller what did not fit there
  if (nthread > 1 && islandsPay(d)) {
    memset(job.prepared, 0, sizeof(int) * (size_t)nthread);
    if (job.order && (!first || !mci_islandOrder(d, nthread, job.order, first))) {
      job.order = NULL;           // no room for the order: the islands in turn (same results)
    }
    mci_poolRunCut(d->threadpool, nisland, islandTask, &job, job.order ? first : NULL);
    for (int t = 0; t < nthread; t++) {
      if (job.prepared[t]) {
        mci_mergeView(d, mci_worker(d, t));
      }
    }
  }
  int nfailed = 0;
  for (int i = 0; i < nisland; i++) {
    nfailed += job.failed[i];
  }
  int ok = 1;
  if (nfailed) {
    mciWorker local;
    size_t start = (d->parena + 63) & ~(size_t)63;
    local.stack = (char*)d->arena + start;
    local.nstack = d->pstack > start ? d->pstack - start : 0;
    prepareWorker(&local, m, d);
    for (int i = 0; i < nisland; i++) {
      if (job.failed[i] && !solveIsland(&job, &local, i)) {
        ok = 0;                   // not even there: the whole problem is solved instead
        break;
      }
    }
    mci_mergeView(d, &local);
    size_t used = d->narena - d->pstack + local.view.maxuse_stack + local.view.maxuse_arena;
    d->maxuse_stack = used > d->maxuse_stack ? used : d->maxuse_stack;
  }
  if (!ok) {
    mc_freeStack(d);
    return 0;
  }

  // dofs of no island: unconstrained (none once every tree touches a row: no pass over nv); by
  // the trees' runs of dofs when the pool's workspace keeps them (a tree is in one island or none:
  // one test a run, not a dof)
  int ndof = 0;
  for (int i = 0; i < nisland; i++) {
    ndof += d->island_dofnum[i];
  }
  const mciTreeDofs* trees = ndof < nv ? mci_treeDofsCache(m, d) : NULL;
  for (int r = 0; trees && r < trees->nrun; r++) {
    int k0 = trees->run[r], len = trees->run[r + 1] - k0;
    if (d->dof_island[k0] < 0) {
      memcpy(d->qacc + k0, d->qacc_smooth + k0, sizeof(mcNum) * (size_t)len);
      memcpy(d->qacc_warmstart + k0, d->qacc_smooth + k0, sizeof(mcNum) * (size_t)len);
      memset(d->qfrc_constraint + k0, 0, sizeof(mcNum) * (size_t)len);
    }
  }
  for (int k = 0; k < (ndof < nv && !trees ? nv : 0); k++) {
    if (d->dof_island[k] < 0) {
      d->qacc[k] = d->qacc_smooth[k];
      d->qacc_warmstart[k] = d->qacc_smooth[k];
      d->qfrc_constraint[k] = 0;
    }
  }
  mergeStats(d, &job);
  mc_freeStack(d);
  d->island_solved = 1;
  return 1;
}
