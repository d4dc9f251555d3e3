// Moduco core: the solver contract (efc_b before the solver; products with J; efc_AR).
#include "engine/solver_contract.h"

#include <string.h>

#include "engine/io.h"
#include "math/math.h"


// dot product in blocks of four (the summation order of the built-in solvers' products, so that
// moving J x into the core changes no bit of their results)
static inline mcNum dot4(const mcNum* a, const mcNum* b, int n) {
  mcNum s = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s += a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) {
    s += a[i] * b[i];
  }
  return s;
}


//---------------------------------- products with J -----------------------------------------------

// J_i vec for row i (sparse or dense)
static inline mcNum rowProduct(const mcModel* m, const mcData* d, int i, const mcNum* vec) {
  if (!d->efc_J_rownnz) {
    return dot4(d->efc_J + (size_t)i * m->nv, vec, m->nv);
  }
  const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
  const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
  mcNum s = 0;
  for (int k = 0, n = d->efc_J_rownnz[i]; k < n; k++) {
    s += val[k] * vec[col[k]];
  }
  return s;
}


void mc_mulJ(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec) {
  for (int i = 0; i < d->nefc; i++) {
    res[i] = rowProduct(m, d, i, vec);
  }
}


void mc_mulJT(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec) {
  int nv = m->nv;
  mcu_zero(res, nv);
  for (int i = 0; i < d->nefc; i++) {
    if (vec[i] == 0) {
      continue;
    }
    if (d->efc_J_rownnz) {
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0, n = d->efc_J_rownnz[i]; k < n; k++) {
        res[col[k]] += vec[i] * val[k];
      }
    } else {
      mcu_addToScl(res, d->efc_J + (size_t)i * nv, vec[i], nv);
    }
  }
}


int mc_rowJ(const mcModel* m, const mcData* d, int row, const int** colind, const mcNum** val) {
  *colind = NULL;
  *val = NULL;
  if (row < 0 || row >= d->nefc) {
    return 0;
  }
  if (d->efc_J_rownnz) {
    *colind = d->efc_J_colind + d->efc_J_rowadr[row];
    *val = d->efc_J_val + d->efc_J_rowadr[row];
    return d->efc_J_rownnz[row];
  }
  *val = d->efc_J + (size_t)row * m->nv;
  return m->nv;
}


//---------------------------------- solver inputs -------------------------------------------------

void mc_solverInputs(const mcModel* m, mcData* d) {
  mc_solverInputRows(m, d, NULL, d->nefc);
}


void mc_solverInputRows(const mcModel* m, mcData* d, const int* rows, int n) {
  for (int k = 0; k < n; k++) {
    int i = rows ? rows[k] : k;
    d->efc_b[i] = rowProduct(m, d, i, d->qacc_smooth) - d->efc_aref[i];
  }
}


//---------------------------------- efc_AR --------------------------------------------------------

// x = inv(M) J_i' (y: nv zeros on entry, left zero)
static void solveRow(const mcModel* m, mcData* d, int i, mcNum* y, mcNum* x) {
  const int* col;
  const mcNum* val;
  int n = mc_rowJ(m, d, i, &col, &val);
  for (int k = 0; k < n; k++) {
    y[col ? col[k] : k] = val[k];
  }
  mc_solveM(m, d, x, y, 1);
  for (int k = 0; k < n; k++) {
    y[col ? col[k] : k] = 0;
  }
}


// J_j x for one row (sparse or dense)
static mcNum rowDot(const mcModel* m, const mcData* d, int j, const mcNum* x) {
  const int* col;
  const mcNum* val;
  int n = mc_rowJ(m, d, j, &col, &val);
  if (!col) {
    return mcu_dot(val, x, n);
  }
  mcNum s = 0;
  for (int k = 0; k < n; k++) {
    s += val[k] * x[col[k]];
  }
  return s;
}


// dense: AR_ij = J_j inv(M) J_i' for j <= i, mirrored
static void denseAR(const mcModel* m, mcData* d, mcNum* y, mcNum* x) {
  int nefc = d->nefc;
  for (int i = 0; i < nefc; i++) {
    solveRow(m, d, i, y, x);
    for (int j = 0; j <= i; j++) {
      d->efc_AR[(size_t)i * nefc + j] = d->efc_AR[(size_t)j * nefc + i] = rowDot(m, d, j, x);
    }
    d->efc_AR[(size_t)i * nefc + i] += d->efc_R[i];
  }
}


// kinematic trees (root dofs) of every row, CSR over rows (radr: nefc + 1), and the rows of every
// tree, CSR over root dofs (tadr: nv + 1); rows i and j couple in AR iff they share a tree
typedef struct {
  int* root;                      // root dof of each dof                               (nv)
  int* radr;                      // trees of row i: rtree[radr[i] .. radr[i+1])      (nefc+1)
  int* rtree;                     //                                                  (nnzJ)
  int* tadr;                      // rows of tree t: trow[tadr[t] .. tadr[t+1])       (nv+1)
  int* trow;                      //                                                  (nnzJ)
  int* mark;                      // scratch                                            (nv)
} Trees;


static int makeTrees(const mcModel* m, mcData* d, Trees* T) {
  int nv = m->nv, nefc = d->nefc;
  int nnz = d->efc_J_rowadr[nefc - 1] + d->efc_J_rownnz[nefc - 1];
  T->root = mcSTACKALLOC(d, (size_t)nv, int);
  T->radr = mcSTACKALLOC(d, (size_t)nefc + 1, int);
  T->rtree = mcSTACKALLOC(d, (size_t)nnz + 1, int);
  T->tadr = mcSTACKALLOC(d, (size_t)nv + 1, int);
  T->trow = mcSTACKALLOC(d, (size_t)nnz + 1, int);
  T->mark = mcSTACKALLOC(d, (size_t)nv, int);
  if (!T->root || !T->radr || !T->rtree || !T->tadr || !T->trow || !T->mark) {
    return 0;
  }
  for (int k = 0; k < nv; k++) {
    int p = m->dof_parentid[k];
    T->root[k] = p < 0 ? k : T->root[p];         // parents come first
    T->mark[k] = -1;
    T->tadr[k] = 0;
  }
  T->tadr[nv] = 0;

  // trees of each row, once each; count the rows of each tree
  T->radr[0] = 0;
  for (int i = 0; i < nefc; i++) {
    int n = T->radr[i];
    const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
    for (int k = 0; k < d->efc_J_rownnz[i]; k++) {
      int t = T->root[col[k]];
      if (T->mark[t] != i) {
        T->mark[t] = i;
        T->rtree[n++] = t;
        T->tadr[t + 1]++;
      }
    }
    T->radr[i + 1] = n;
  }

  // rows of each tree, ascending
  for (int t = 0; t < nv; t++) {
    T->tadr[t + 1] += T->tadr[t];
    T->mark[t] = T->tadr[t];
  }
  for (int i = 0; i < nefc; i++) {
    for (int q = T->radr[i]; q < T->radr[i + 1]; q++) {
      T->trow[T->mark[T->rtree[q]]++] = i;
    }
  }
  return 1;
}


// merge the ascending list a (na) with the ascending b (nb) into res, once each; the count
static int mergeRows(const int* a, int na, const int* b, int nb, int* res) {
  int i = 0, j = 0, n = 0;
  while (i < na || j < nb) {
    int v = j >= nb || (i < na && a[i] < b[j]) ? a[i++] : b[j++];
    if (n == 0 || res[n - 1] != v) {
      res[n++] = v;
    }
  }
  return n;
}


// rows coupled with row i (itself included, even when empty), ascending, into list; the rows of
// each tree are ascending already, so the trees of the row are merged (tmp: nefc ints)
static int coupledRows(const Trees* T, int i, int* list, int* tmp) {
  int n = 1;
  list[0] = i;
  for (int q = T->radr[i]; q < T->radr[i + 1]; q++) {
    int t = T->rtree[q];
    n = mergeRows(list, n, T->trow + T->tadr[t], T->tadr[t + 1] - T->tadr[t], tmp);
    memcpy(list, tmp, sizeof(int) * (size_t)n);
  }
  return n;
}


// row-sparse pattern of AR in the arena: the rows coupled with each row; 0 if the stack or the
// arena is full
static int sparsePattern(const mcModel* m, mcData* d) {
  int nefc = d->nefc;
  Trees T;
  int* list = mcSTACKALLOC(d, (size_t)nefc, int);
  int* tmp = mcSTACKALLOC(d, (size_t)nefc, int);
  if (!list || !tmp || !makeTrees(m, d, &T)) {
    return 0;
  }
  size_t nnz = 0;
  for (int i = 0; i < nefc; i++) {
    nnz += (size_t)coupledRows(&T, i, list, tmp);
  }
  d->efc_AR_rownnz = mci_arenaAlloc(d, sizeof(int) * (size_t)nefc, _Alignof(int));
  d->efc_AR_rowadr = mci_arenaAlloc(d, sizeof(int) * (size_t)nefc, _Alignof(int));
  d->efc_AR_colind = mci_arenaAlloc(d, sizeof(int) * nnz, _Alignof(int));
  d->efc_AR = mci_arenaAlloc(d, sizeof(mcNum) * nnz, _Alignof(mcNum));
  if (!d->efc_AR_rownnz || !d->efc_AR_rowadr || !d->efc_AR_colind || !d->efc_AR) {
    return 0;
  }
  int adr = 0;
  for (int i = 0; i < nefc; i++) {
    int n = coupledRows(&T, i, d->efc_AR_colind + adr, tmp);
    d->efc_AR_rowadr[i] = adr;
    d->efc_AR_rownnz[i] = n;
    adr += n;
  }
  return 1;
}


// row-sparse values: J_j inv(M) J_i' for j >= i, mirrored
static int sparseAR(const mcModel* m, mcData* d, mcNum* y, mcNum* x) {
  int nefc = d->nefc;
  int* cursor = mcSTACKALLOC(d, (size_t)nefc, int);
  if (!cursor) {
    return 0;
  }

  // values row by row; the lower part comes from the rows above (their entries of column i are
  // reached in ascending i, so one cursor per row walks them)
  for (int i = 0; i < nefc; i++) {
    int adr = d->efc_AR_rowadr[i], n = d->efc_AR_rownnz[i];
    const int* col = d->efc_AR_colind + adr;
    mcNum* val = d->efc_AR + adr;
    solveRow(m, d, i, y, x);
    for (int k = 0; k < n; k++) {
      int j = col[k];
      if (j < i) {
        val[k] = d->efc_AR[cursor[j]++];
      } else if (j == i) {
        cursor[i] = adr + k + 1;
        val[k] = rowDot(m, d, j, x) + d->efc_R[i];
      } else {
        val[k] = rowDot(m, d, j, x);
      }
    }
  }
  return 1;
}


int mc_makeAR(const mcModel* m, mcData* d) {
  int nv = m->nv, nefc = d->nefc;
  if (nefc == 0) {
    return 0;
  }
  int dense = d->efc_J_rownnz == NULL;
  size_t parena0 = d->parena;
  int fresh = d->efc_AR == NULL;

  // storage (arena; reused when an earlier call since the assembly made it), then the values
  mc_markStack(d);
  int ok = 1;
  if (fresh && dense) {
    d->efc_AR = mci_arenaAlloc(d, sizeof(mcNum) * (size_t)nefc * nefc, _Alignof(mcNum));
    ok = d->efc_AR != NULL;
  } else if (fresh) {
    ok = sparsePattern(m, d);
  }
  mcNum* y = ok ? mcSTACKALLOC(d, (size_t)nv, mcNum) : NULL;
  mcNum* x = ok ? mcSTACKALLOC(d, (size_t)nv, mcNum) : NULL;
  ok = y && x;
  if (ok) {
    mcu_zero(y, nv);
    if (dense) {
      denseAR(m, d, y, x);
    } else {
      ok = sparseAR(m, d, y, x);
    }
  }
  mc_freeStack(d);

  // a full arena or stack: nothing kept
  if (!ok) {
    if (fresh) {
      d->parena = parena0;
    }
    d->efc_AR = NULL;
    d->efc_AR_rownnz = d->efc_AR_rowadr = d->efc_AR_colind = NULL;
    mc_warning(d, mcWARN_CNSTRFULL, nefc);
    return -1;
  }
  return 0;
}
