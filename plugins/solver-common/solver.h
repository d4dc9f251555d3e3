// Moduco solver plugins: math shared by newton, cg, pgs and noslip (static library linked into
// each plugin; SDK headers only, scratch memory from the host stack, no malloc).
//
// Primal solvers (Newton, CG) minimize the reduced cost of the seed
//   0.5 (x - qacc_smooth)' M (x - qacc_smooth) + s(J x - aref)
// over accelerations x; PGS solves the dual over forces with A + R. All of them finish through
// mcs_finish, which writes qacc, efc_force, efc_state, qfrc_constraint and qacc_warmstart.
#ifndef MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_H_
#define MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_H_

#include <moduco/mcplugin.h>

// which primal algorithm
typedef enum { MCS_NEWTON = 0, MCS_CG } mcsPrimal;

// scale of the solver statistics: 1 / (mean diagonal inertia at qpos0 * max(1, nv)), of the full
// model also in an island view (so an island meets at least the whole problem's tolerance)
mcNum mcs_scale(const mcModel* m, const mcData* d);

// Sparse Hessian of Newton (row-sparse efc_J): L' L factor of H = M + J' D J with the pattern of
// M and all constraint rows; arrays on the host stack (solver_sparse.c)
typedef struct {
  int nv;
  int nnz;                        // non-zeros of L (diagonal included)
  int* rowadr;                    // row k of L: columns j < k ascending, then k       (nv)
  int* rownnz;                    //                                                     (nv)
  int* colind;                    //                                                     (nnz)
  mcNum* val;                     //                                                     (nnz)
  mcNum* idiag;                   // 1 / the diagonal of L, for the solves               (nv)
  int* jcoladr;                   // efc_J by columns, the first row of each run of rows with
  int* jcolnnz;                   // the same columns only: start of column c in jrow, jpos
                                  // (nv + 1), number of entries (nv)
  int* jrow;                      // efc row of each entry                    (at most nnzJ)
  int* jpos;                      // position of the entry within its efc row (at most nnzJ)
  int* rrun;                      // rows r .. r + rrun[r] - 1 have the columns of row r (nefc)
  int* map;                       // scratch                                             (3 nv)
  const mcNum** qval;             // scratch of the assembly: for the first row r of a run,
  mcNum* qD;                      // qn[r] quadratic rows (-1: a cone row in the run), their
  int* qn;                        // rows of efc_J and efc_D at qval[r + g], qD[r + g]  (nefc)
  long work;                      // multiply-adds of the elimination (sum of n(n-1)/2 over rows)
} mcsSparseH;

// Symbolic cache of Newton across steps: an int buffer in the solver instance's plugin_data
// holding the row structure of the efc_J it was made for (the key) and the arrays of mcsSparseH
// that depend only on that structure. A step whose efc_J has the same rows with the same columns
// reuses the arrays (same pattern, same operations: bitwise the same result); any other step
// recomputes the parts that depend on row numbers and finds the rows of L component by component
// (trees joined by rows), reusing those of each component whose dofs and rows' columns (in row
// order) are those of a component of the previous pattern, and stores them when they fit.
// Zeroed memory is an empty cache.
typedef struct {
  int* buf;                       // the buffer (NULL: no cache)
  size_t cap;                     // its size in ints
  int slot;                       // 1: an island's slot (mcs_islandSlot), else the whole problem's
} mcsSymbolicCache;

// The slot of island view isl in the cache of the full model m (buf: its plugin_data, of
// mcs_symbolicCacheSize(m) ints); buf NULL when isl has none. A slot holds the pattern of the
// last island solved at that index, keyed by the view's dof tree (dof_parentid) and its rows'
// columns: the island solves of one step have distinct indices, so no two threads share a slot.
mcsSymbolicCache mcs_islandSlot(const mcModel* m, int* buf, int isl);

// ints of the cache for a model: 0 for models that use a dense efc_J by default
size_t mcs_symbolicCacheSize(const mcModel* m);

// How many components of the last pattern reused their rows of L from the cache, and their
// number (*ncomp, when not NULL); -1 when the whole problem's pattern was reused (tests)
int mcs_symbolicCacheReused(const mcsSymbolicCache* cache, int* ncomp);

// ext of the built-in solvers newton, cg and pgs: plugin_data of the size of the symbolic cache.
// Only Newton uses it; all three declare it, so swapping among them (mc_setSolver) keeps data
// made before the swap usable, as with MuJoCo's opt.solver.
extern const mcpPluginExt mcs_solverExt;

// Pattern of L from M and every efc row; 0 if the host stack is full. cache may be NULL.
int mcs_sparseSymbolic(const mcpHost* host, const mcModel* m, mcData* d, mcsSparseH* S,
                       const mcsSymbolicCache* cache);

// Assemble H from qM, the active rows (efc_state, efc_D) and cone Hessians, and factor it.
void mcs_sparseFactor(const mcModel* m, const mcData* d, mcsSparseH* S);

// Rank-1 update (sigma = D) or downdate (sigma = -D) of the factor with efc row r; w is zero
// scratch (nv) and is left zero. Return 0 if a pivot fell below mcMINVAL (refactor then).
int mcs_sparseUpdate(const mcData* d, mcsSparseH* S, int r, mcNum sigma, mcNum* w);

// Entries of L a rank-1 update with efc row r walks (the rows on the elimination-tree path from
// its last column), and multiply-adds of a factorization of the current Hessian (the elimination
// plus the assembly of the quadratic rows): the costs Newton weighs to update or refactor.
long mcs_sparseUpdateWork(const mcData* d, const mcsSparseH* S, int r);
long mcs_sparseFactorWork(const mcData* d, const mcsSparseH* S);

// res = J vec (mcs_mulRows) and res += J' vec (mcs_mulRowsT) over nrow rows given by their non-zeros
// (rnnz, radr, rcol, rval); run: NULL, or S->rrun (rows with the same columns, processed together;
// bitwise the products of the rows one by one). Rows with vec 0 add nothing to J' vec.
void mcs_mulRows(int nrow, const int* rnnz, const int* radr, const int* rcol, const mcNum* rval,
                 const int* run, mcNum* res, const mcNum* vec);
void mcs_mulRowsT(int nrow, const int* rnnz, const int* radr, const int* rcol,
                  const mcNum* rval, const int* run, mcNum* res, const mcNum* vec);

// run[r] for each of nrow rows given by their non-zeros: rows r .. r + run[r] - 1 have the
// columns of row r (the run argument of mcs_mulRows, mcsSparseH.rrun)
void mcs_rowRuns(int nrow, const int* rnnz, const int* radr, const int* rcol, int* run);

// x = inv(H) x with the factor.
void mcs_sparseSolve(const mcsSparseH* S, mcNum* x);

// Primal constraint update at jar = J x - aref: efc_force, efc_state, cone Hessians (con->H);
// return the constraint cost s(jar).
mcNum mcs_constraintUpdate(const mcModel* m, mcData* d, const mcNum* jar, int flg_hessian);

// Inputs (efc_b, efc_R, efc_D, efc_aref, efc_J, qacc_smooth, qLD, contact mu) come from the
// core (the solver contract, docs/plugins.md); products with J go through host->mulJ/mulJT.

// Gauss cost 0.5 (x - qacc_smooth)' M (x - qacc_smooth), with Mx = M x.
mcNum mcs_gaussCost(const mcModel* m, const mcData* d, const mcNum* x, const mcNum* Mx);

// Starting forces of PGS: those of the primal constraint update at qacc_warmstart if their dual
// cost is negative, else zero (zero too if warmstart is disabled). The primal solvers choose
// their starting point in mcs_primal.
void mcs_warmstartDual(const mcpHost* host, const mcModel* m, mcData* d);

// Run a primal solver (Newton or CG) from d->qacc; cache: Newton's symbolic cache or NULL.
void mcs_primal(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, mcsPrimal kind,
                const mcsSymbolicCache* cache);

// Noslip postprocessing: PGS on the friction rows with the regularizer removed.
void mcs_noslip(const mcpHost* host, const mcModel* m, mcData* d, int maxiter);

// No constraints: qacc = qacc_smooth, no constraint force.
void mcs_unconstrained(const mcModel* m, mcData* d);

// qfrc_constraint = J' efc_force and qacc_warmstart = qacc.
void mcs_finish(const mcpHost* host, const mcModel* m, mcData* d);

#endif  // MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_H_
