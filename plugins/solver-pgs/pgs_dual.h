// Moduco plugin solver-pgs: the dual problem of PGS and its parts (driver pgs_solve.c, dense A and
// sweep pgs_dense.c, row-sparse A and sweep pgs_sparse.c). SDK and solver-common headers only.
#ifndef MODUCO_PLUGINS_SOLVER_PGS_PGS_DUAL_H_
#define MODUCO_PLUGINS_SOLVER_PGS_PGS_DUAL_H_

#include <stdint.h>

#include <moduco/mcplugin.h>

// AR + R with the row-sparse efc_J: rows i and j couple only when their dofs lie in a common
// kinematic tree (B's rows are closed under ancestors), so each row of AR is stored on the rows
// it couples with (CSR: adr, nnz, col, val; diag: 1 / AR_ii)
typedef struct {
  int* adr;
  int* nnz;
  int* col;
  mcNum* val;
  mcNum* diaginv;
} PgsSparseAR;

// the dual problem: AR + R dense (AR) or row-sparse (S), its inverse diagonal, the box of every
// scalar row, efc_b
typedef struct {
  int nefc;
  int ld;                         // row stride of the dense AR and length of the forces swept:
                                  // nefc rounded up to 4 (pgs_stride), zero padded
  const mcNum* AR;                // dense ld x ld (32-byte aligned), or NULL
  const PgsSparseAR* S;           // row-sparse when AR is NULL
  const mcNum* diaginv;           // 1 / (AR + R)_ii
  const mcNum* lo;                // box of the scalar rows: [-frictionloss, frictionloss] for
  const mcNum* hi;                // friction loss, [0, inf) for limits and contacts, free for
                                  // equalities (elliptic rows: unused)
  const mcNum* b;
  int elliptic;                   // some row is an elliptic contact (dense AR only)
  mcNum* fold;                    // dense sweep's scratch: the forces before it (ld, 32-byte
                                  // aligned)
} PgsDual;

// v clamped to the box of scalar row i (lo > v ? lo : v, then hi < v ? hi : v: NaN is kept)
static inline mcNum pgs_clampBox(const PgsDual* P, int i, mcNum v) {
  v = P->lo[i] > v ? P->lo[i] : v;
  return P->hi[i] < v ? P->hi[i] : v;
}


//---------------------------------- dense (pgs_dense.c) -------------------------------------------

// instruction sets of the dense kernels. Every one gives bitwise the same numbers (the same
// products and additions in the same order, no fused multiply-add); AVX is chosen at run time
// where the CPU has it
typedef enum { PGS_ISA_PORTABLE = 0, PGS_ISA_SSE2, PGS_ISA_AVX, PGS_ISA_COUNT } PgsIsa;

// 1 if the kernels of isa are built in and the CPU runs them
int pgs_isaAvailable(PgsIsa isa);

// the best available set, or the one named by MODUCO_PGS_ISA (portable, sse2, avx) when that is
// available; called once when the plugin library loads
PgsIsa pgs_isaSelect(void);

// row stride of the dense AR: n rounded up to a multiple of 4
static inline int pgs_stride(int n) {
  return (n + 3) & ~3;
}

// sum of a_i b_i over n (a multiple of 4; a, b 32-byte aligned) in four lanes: lane k sums the
// products of the indices i = k mod 4 in ascending order, the result is (s0 + s1) + (s2 + s3)
mcNum pgs_dot(const mcNum* a, const mcNum* b, int n, PgsIsa isa);

// words of a dof mask: one bit per dof
static inline int pgs_maskWords(int nv) {
  return (nv + 63) / 64;
}

// A = B B' from BT = B' (nv x ld, zero padded): A_ij = sum over k ascending of BT_ki BT_kj,
// 4 x 4 tiles on and below the diagonal, mirrored above (ld x ld, 32-byte aligned, ld % 4 == 0).
// mask: for rows 4b..4b+3 of B, pgs_maskWords(nv) words from mask + b pgs_maskWords(nv) with the
// bit of dof k set where one of the four may be non-zero; a tile sums over the dofs of both its
// masks only (the products it leaves out are zeros: the same sum for finite B)
void pgs_productBBT(const mcNum* BT, int nv, int ld, const uint64_t* mask, mcNum* A, PgsIsa isa);

// dense AR + R (ld x ld, zero padded) and its inverse diagonal; BT: nv x ld scratch (written at
// the dofs of the masks only), work: 5 nv (32-byte aligned), mask: ld / 4 pgs_maskWords(nv) words,
// the masks of B's blocks afterwards
void pgs_makeDenseAR(const mcModel* m, const mcData* d, mcNum* AR, int ld, mcNum* BT,
                     mcNum* work, uint64_t* mask, mcNum* diaginv, PgsIsa isa);

// the sign changes ((old > 0) != (f > 0)) and the non-zeros of f over n (a multiple of 4; old, f
// 32-byte aligned)
void pgs_countForces(const mcNum* old, const mcNum* f, int n, int* nchange, int* nactive,
                     PgsIsa isa);

// one Gauss-Seidel sweep in row order with the dense AR on the forces f (ld, zero padded,
// 32-byte aligned; P->fold its scratch); return the cost decrease, the scalar rows whose force
// changed sign (nchange) and the non-zero forces after the sweep (nactive)
mcNum pgs_sweepDense(const mcData* d, const PgsDual* P, mcNum* f, int* nchange, int* nactive,
                     PgsIsa isa);


//---------------------------------- row-sparse (pgs_sparse.c) -------------------------------------

// build S on the host stack; 0 if the scratch does not fit
int pgs_makeSparseAR(const mcpHost* host, const mcModel* m, mcData* d, PgsSparseAR* S);

// one Gauss-Seidel sweep in row order with the row-sparse AR (no elliptic rows), as the dense one
mcNum pgs_sweepSparse(const PgsDual* P, mcNum* f, int* nchange, int* nactive);


//---------------------------------- driver (pgs_solve.c) ------------------------------------------

// PGS on the dual from the warmstart forces; fills efc_force, efc_state, qacc, qfrc_constraint,
// qacc_warmstart and the solver statistics
void pgs_solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, PgsIsa isa);

#endif  // MODUCO_PLUGINS_SOLVER_PGS_PGS_DUAL_H_
