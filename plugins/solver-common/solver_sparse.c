// Moduco solver plugins: sparse Hessian H = M + J' D J for Newton with the row-sparse efc_J.
//
// H is factored as L' L with L lower triangular, eliminating the dofs from the last to the first.
// Dof parents come before their children, so this order gives no fill on the tree structure of M;
// the fill of the constraint rows is found once per solve by a symbolic pass over all rows (not
// only the active ones), so the pattern stays fixed while the active set changes; Newton keeps it
// across steps while the rows keep their columns (symbolic cache). Row k of L holds its columns
// j < k in ascending order followed by the diagonal.
#include <math.h>
#include <string.h>

#include "solver.h"
#include "solver_internal.h"


// sort a short int list ascending (insertion)
static void sortInts(int* a, int n) {
  for (int i = 1; i < n; i++) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}


void mcs_rowRuns(int nrow, const int* rnnz, const int* radr, const int* rcol, int* run) {
  for (int r = nrow - 1; r >= 0; r--) {
    int same = r + 1 < nrow && rnnz[r + 1] == rnnz[r] &&
               !memcmp(rcol + radr[r], rcol + radr[r + 1], sizeof(int) * (size_t)rnnz[r]);
    run[r] = same ? run[r + 1] + 1 : 1;
  }
}


// the parts of the pattern that depend on the row numbers, arrays on the host stack: the runs of
// rows with the same columns, efc_J by columns (first rows of runs), and room for the rows of L
// (rowadr, rownnz) and the scratch map
static int rowParts(const mcpHost* host, const mcModel* m, mcData* d, mcsSparseH* S, int nnzJ) {
  int nv = m->nv, nefc = d->nefc;
  const int* rownnz = d->efc_J_rownnz;
  const int* rowadr = d->efc_J_rowadr;
  const int* colind = d->efc_J_colind;
  memset(S, 0, sizeof(*S));
  S->nv = nv;
  S->jcoladr = host->stackAlloc(d, sizeof(int) * (2 * (size_t)nv + 1), 16);
  S->jrow = host->stackAlloc(d, sizeof(int) * ((size_t)nnzJ + 1), 16);
  S->jpos = host->stackAlloc(d, sizeof(int) * ((size_t)nnzJ + 1), 16);
  S->rrun = host->stackAlloc(d, sizeof(int) * ((size_t)nefc + 1), 16);
  S->rowadr = host->stackAlloc(d, sizeof(int) * 2 * (size_t)nv, 16);
  S->map = host->stackAlloc(d, sizeof(int) * 3 * (size_t)nv, 16);
  if (!S->jcoladr || !S->jrow || !S->jpos || !S->rrun || !S->rowadr || !S->map) {
    return 0;
  }
  S->jcolnnz = S->jcoladr + nv + 1;
  S->rownnz = S->rowadr + nv;

  // runs of rows with the same columns (the edges of a pyramidal contact, the contacts of one
  // pair of bodies): only the first row of a run is listed by columns; the pattern needs no
  // other, and the assembly adds the rows of a run together
  mcs_rowRuns(nefc, rownnz, rowadr, colind, S->rrun);
  memset(S->jcolnnz, 0, sizeof(int) * nv);
  for (int r = 0; r < nefc; r += S->rrun[r]) {
    for (int k = 0; k < rownnz[r]; k++) {
      S->jcolnnz[colind[rowadr[r] + k]]++;
    }
  }
  S->jcoladr[0] = 0;
  for (int c = 0; c < nv; c++) {
    S->jcoladr[c + 1] = S->jcoladr[c] + S->jcolnnz[c];
    S->jcolnnz[c] = 0;
  }
  for (int r = 0; r < nefc; r += S->rrun[r]) {
    for (int k = 0; k < rownnz[r]; k++) {
      int c = colind[rowadr[r] + k];
      int t = S->jcoladr[c] + S->jcolnnz[c]++;
      S->jrow[t] = r;
      S->jpos[t] = k;
    }
  }
  return 1;
}


// rows of L for the n dofs dof[0] < ... < dof[n - 1] (dof NULL: all nv), a set closed under the
// elimination (whole trees with every row through them), computed from the last dof to the
// first into cols + *used, at most cap ints (0 if they do not fit); S->rowadr is relative to
// cols, S->work accumulates. Each row is its ascending set of columns whatever the set and the
// order of the rows around it, so any split into closed sets gives the same rows. Scratch: the
// three parts of S->map (mark, head, next), read and written only at the dofs of the set.
// Inlined into its two callers, so that the whole problem's pass (dof NULL) has no dof list
static inline __attribute__((always_inline)) int patternRows(const mcModel* m, const mcData* d, mcsSparseH* S, const int* dof, int n,
                       int* cols, size_t* usedp, size_t cap) {
  const int* rownnz = d->efc_J_rownnz;
  const int* rowadr = d->efc_J_rowadr;
  const int* colind = d->efc_J_colind;
  int nv = m->nv;
  int* mark = S->map;
  int* head = S->map + nv;
  int* next = S->map + 2 * nv;
  const int* parent = m->dof_parentid;
  int* rowadrL = S->rowadr;
  int* rownnzL = S->rownnz;
  size_t used = *usedp;
  long work = 0;
  for (int i = 0; i < n; i++) {
    int k = dof ? dof[i] : i;
    mark[k] = -1;
    head[k] = -1;
  }

  // structure of row k: ancestors in M, columns below k of the rows through k, and the
  // structures of the children of k in the elimination tree (all in the set)
  for (int i = n - 1; i >= 0; i--) {
    int k = dof ? dof[i] : i;
    if (dof && used + (size_t)(k < n ? k + 1 : n) > cap) {  // (the whole pass: a pool for all)
      *usedp = used;
      S->work += work;
      return 0;                   // row k holds at most k + 1 columns, all of the set
    }
    int* list = cols + used;
    int cnt = 0;
    // the ancestors are marked first and listed last, ascending: the columns of other trees
    // (contacts) usually all come before them, so the sort below rarely moves an ancestor
    mark[k] = k;
    int na = 0;
    for (int j = parent[k]; j >= 0; j = parent[j]) {
      mark[j] = k;
      na++;
    }
    for (int t = S->jcoladr[k]; t < S->jcoladr[k + 1]; t++) {
      // only the rows whose last column is k: the other columns of such a row form a clique
      // that elimination carries up the elimination tree, so a row whose last column is above k
      // already reached row k through the children merged below (same pattern, O(nnz J))
      int r = S->jrow[t];
      if (S->jpos[t] != rownnz[r] - 1) {
        continue;
      }
      const int* rc = colind + rowadr[r];
      for (int q = 0; q < S->jpos[t]; q++) {
        if (mark[rc[q]] != k) {
          mark[rc[q]] = k;
          list[cnt++] = rc[q];
        }
      }
    }
    for (int c = head[k]; c >= 0; c = next[c]) {
      const int* cl = cols + rowadrL[c];
      for (int q = 0; q < rownnzL[c] - 1; q++) {
        if (cl[q] != k && mark[cl[q]] != k) {
          mark[cl[q]] = k;
          list[cnt++] = cl[q];
        }
      }
    }

    for (int j = parent[k], q = cnt + na - 1; j >= 0; j = parent[j]) {
      list[q--] = j;
    }
    cnt += na;

    // ascending order: short lists by insertion, long ones by a scan of the marks of the set's
    // dofs below k (dof[0 .. i - 1])
    if (cnt * cnt <= 4 * i) {
      sortInts(list, cnt);
    } else {
      cnt = 0;
      for (int t = 0; t < i; t++) {
        int j = dof ? dof[t] : t;
        if (mark[j] == k) {
          list[cnt++] = j;
        }
      }
    }
    list[cnt] = k;
    rowadrL[k] = (int)used;
    rownnzL[k] = cnt + 1;
    work += (long)cnt * (cnt + 1) / 2;
    used += (size_t)cnt + 1;

    // parent in the elimination tree: the largest column below k
    if (cnt > 0) {
      int p = list[cnt - 1];
      next[k] = head[p];
      head[p] = k;
    }
  }
  *usedp = used;
  S->work += work;
  return 1;
}


// the pattern of L over all dofs at once, its rows in a pool on the host stack
static int plainPattern(const mcpHost* host, const mcModel* m, mcData* d, mcsSparseH* S) {
  int nv = m->nv;
  // pool for the column lists of L: worst case the full lower triangle
  size_t pool = (size_t)nv * (nv + 1) / 2, used = 0;
  int* cols = host->stackAlloc(d, sizeof(int) * pool, 16);
  if (!cols) {
    return 0;
  }
  S->work = 0;
  S->colind = cols;
  int ok = patternRows(m, d, S, NULL, nv, cols, &used, pool);  // the pool always suffices
  S->nnz = (int)used;
  return ok;
}



//---------------------------------- symbolic cache ------------------------------------------------
//
// Two levels. The whole problem: while every row keeps its columns (rownnz and colind of each
// row, in row order), everything of the pattern is reused (rows by columns, runs, rows of L).
// Otherwise the rows of L are found component by component: a component is a set of trees joined
// by rows (an island of the whole problem), and its rows of L depend only on its dofs and on its
// rows' columns, so a component whose key (its dofs, the columns of its rows in row order) is
// that of a component of the previous pattern reuses its rows of L. The rows of L of each
// pattern are kept in one of two generations (the previous one is read while the next is
// written); the whole problem's arrays point into the current one.
//
// Layout (ints): the whole problem's header, key and arrays (wholeCap), then two generations.
// Header: valid flag, nv, nefc, nnz of efc_J, nnz of L, the elimination's work (a long in two
// ints), the current generation, and the components and reused components of the last
// component pass (for tests); then the key (efc_J_rownnz, the columns of every row), jcoladr +
// jcolnnz, jrow, jpos, rrun, rowadr + rownnz.
enum { CACHE_VALID = 0, CACHE_NV, CACHE_NEFC, CACHE_NNZJ, CACHE_NNZL, CACHE_WORK, CACHE_GEN =
       CACHE_WORK + 2, CACHE_NCOMP, CACHE_REUSED, CACHE_HEADER };
_Static_assert(sizeof(long) <= 2 * sizeof(int), "the work of the cache header fits two ints");

// a generation: valid flag, then the entry of the component whose first dof is f at key offset
// idx[f] (-1: none; nv ints), the entries (keyCap ints), the rows of L (lCap ints)
enum { GEN_VALID = 0, GEN_HEADER };

// an entry: dofs, rows, columns of the rows, nnz of its rows of L, their offset in the rows of L,
// their work (two ints); then dof (ndof, ascending), rownnz (nrow), the columns (ncol), rownnz
// of L of each dof (ndof)
enum { E_NDOF = 0, E_NROW, E_NCOL, E_NNZL, E_LADR, E_WORK, E_HEADER = E_WORK + 2 };


// sizes in ints: the whole problem's part, a generation's entries and rows of L (room for a few
// times the tree pattern of M; a pattern that does not fit is computed without the cache)
static void cacheLayout(const mcModel* m, size_t* whole, size_t* keyCap, size_t* lCap) {
  size_t nv = (size_t)m->nv, room = 8 * ((size_t)m->nM + nv) + 4096;
  *whole = CACHE_HEADER + 4 * nv + 1 + room;
  *keyCap = (E_HEADER + 2) * nv + room;
  *lCap = room;
}


// island slots: how many (the islands of larger index have none) and their size in ints
static void slotLayout(const mcModel* m, size_t* nslot, size_t* slotCap) {
  size_t n = (size_t)m->nv / 16 + 1;
  *nslot = n < 64 ? n : 64;
  *slotCap = 4096;
}


static size_t genSize(const mcModel* m) {
  size_t whole, keyCap, lCap;
  cacheLayout(m, &whole, &keyCap, &lCap);
  return GEN_HEADER + (size_t)m->nv + keyCap + lCap;
}


size_t mcs_symbolicCacheSize(const mcModel* m) {
  int sparse = m->opt.jacobian == mcJAC_SPARSE || (m->opt.jacobian == mcJAC_AUTO && m->nv >= 60);
  if (!sparse || m->nv <= 0) {
    return 0;
  }
  size_t whole, keyCap, lCap, nslot, slotCap;
  cacheLayout(m, &whole, &keyCap, &lCap);
  slotLayout(m, &nslot, &slotCap);
  size_t n = whole + 2 * genSize(m) + nslot * slotCap;
  return n <= (size_t)1 << 26 ? n : 0;
}


mcsSymbolicCache mcs_islandSlot(const mcModel* m, int* buf, int isl) {
  mcsSymbolicCache c = {NULL, 0, 1};
  size_t whole, keyCap, lCap, nslot, slotCap;
  cacheLayout(m, &whole, &keyCap, &lCap);
  slotLayout(m, &nslot, &slotCap);
  if (buf && isl >= 0 && (size_t)isl < nslot) {
    c.buf = buf + whole + 2 * genSize(m) + (size_t)isl * slotCap;
    c.cap = slotCap;
  }
  return c;
}


static size_t solverNdata(const mcpHost* host, const mcModel* m, int instance) {
  (void)host;
  (void)instance;
  return sizeof(int) * mcs_symbolicCacheSize(m);
}

const mcpPluginExt mcs_solverExt = {0, NULL, NULL, solverNdata, NULL};


int mcs_symbolicCacheReused(const mcsSymbolicCache* cache, int* ncomp) {
  if (ncomp) {
    *ncomp = cache->buf[CACHE_NCOMP];
  }
  return cache->buf[CACHE_REUSED];
}


// point a pattern's row-number arrays (jcoladr, jcolnnz, jrow, jpos, rrun) and L's row starts
// and counts (rowadr, rownnz) into a cached buffer from p, in the order both caches store them;
// return what follows them (an island slot's columns of L)
static int* patternArrays(mcsSparseH* S, int* p, int nv, int nefc, int nnzJ) {
  S->jcoladr = p;
  S->jcolnnz = p + nv + 1;
  p += 2 * nv + 1;
  S->jrow = p;
  S->jpos = p + nnzJ;
  p += 2 * nnzJ;
  S->rrun = p;
  p += nefc;
  S->rowadr = p;
  S->rownnz = p + nv;
  return p + 2 * nv;
}


// generation g of the cache: its start, entries and rows of L
static int* genOf(const mcModel* m, const mcsSymbolicCache* c, int g, int** key, int** rows) {
  size_t whole, keyCap, lCap;
  cacheLayout(m, &whole, &keyCap, &lCap);
  int* gen = c->buf + whole + (size_t)g * genSize(m);
  *key = gen + GEN_HEADER + m->nv;
  *rows = *key + keyCap;
  return gen;
}


// ints the whole problem's part needs for nefc rows and nnzJ Jacobian entries
static size_t cacheNeed(int nv, int nefc, int nnzJ) {
  return CACHE_HEADER + 2 * (size_t)nefc + 3 * (size_t)nnzJ + 4 * (size_t)nv + 1;
}


// are the rows of efc_J one after the other from the start of colind (one copy or comparison
// of all their columns)?
static int rowsContiguous(const mcData* d) {
  for (int r = 0, t = 0; r < d->nefc; t += d->efc_J_rownnz[r], r++) {
    if (d->efc_J_rowadr[r] != t) {
      return 0;
    }
  }
  return 1;
}


// the key's columns of every row of efc_J (nnzJ in all) in row order: are they those at key?
// (one memcmp when the rows are contiguous, as in the core's data)
static int sameColumns(const int* key, const mcData* d, int nnzJ) {
  if (rowsContiguous(d)) {
    return !memcmp(key, d->efc_J_colind, sizeof(int) * (size_t)nnzJ);
  }
  for (int r = 0, t = 0; r < d->nefc; t += d->efc_J_rownnz[r], r++) {
    if (memcmp(key + t, d->efc_J_colind + d->efc_J_rowadr[r],
               sizeof(int) * (size_t)d->efc_J_rownnz[r])) {
      return 0;
    }
  }
  return 1;
}


// store those columns at p; return what follows them
static int* storeColumns(int* p, const mcData* d, int nnzJ) {
  if (rowsContiguous(d)) {
    memcpy(p, d->efc_J_colind, sizeof(int) * (size_t)nnzJ);
    return p + nnzJ;
  }
  for (int r = 0; r < d->nefc; r++) {
    memcpy(p, d->efc_J_colind + d->efc_J_rowadr[r], sizeof(int) * (size_t)d->efc_J_rownnz[r]);
    p += d->efc_J_rownnz[r];
  }
  return p;
}


// store S's arrays that patternArrays points at, from p in its order; return what follows them
static int* storePattern(int* p, const mcsSparseH* S, int nv, int nefc, int nnzJ) {
  memcpy(p, S->jcoladr, sizeof(int) * ((size_t)nv + 1));
  memcpy(p + nv + 1, S->jcolnnz, sizeof(int) * (size_t)nv);
  p += 2 * nv + 1;
  memcpy(p, S->jrow, sizeof(int) * (size_t)S->jcoladr[nv]);
  memcpy(p + nnzJ, S->jpos, sizeof(int) * (size_t)S->jcoladr[nv]);
  p += 2 * nnzJ;
  memcpy(p, S->rrun, sizeof(int) * (size_t)nefc);
  p += nefc;
  memcpy(p, S->rowadr, sizeof(int) * (size_t)nv);
  memcpy(p + nv, S->rownnz, sizeof(int) * (size_t)nv);
  return p + 2 * nv;
}


// does the cache hold the pattern of the current efc_J? then point S at it
static int cacheHit(const mcModel* m, const mcsSymbolicCache* c, const mcData* d, int nnzJ,
                    mcsSparseH* S) {
  const int* h = c->buf;
  int nv = m->nv, nefc = d->nefc;
  if (!h[CACHE_VALID] || h[CACHE_NV] != nv || h[CACHE_NEFC] != nefc || h[CACHE_NNZJ] != nnzJ) {
    return 0;
  }
  const int* keyNnz = h + CACHE_HEADER;
  const int* keyCol = keyNnz + nefc;
  if (memcmp(keyNnz, d->efc_J_rownnz, sizeof(int) * (size_t)nefc) ||
      !sameColumns(keyCol, d, nnzJ)) {
    return 0;
  }
  int *key, *rows;
  genOf(m, c, h[CACHE_GEN], &key, &rows);
  int* p = c->buf + CACHE_HEADER + nefc + nnzJ;
  S->nv = nv;
  S->nnz = h[CACHE_NNZL];
  memcpy(&S->work, h + CACHE_WORK, sizeof(long));
  patternArrays(S, p, nv, nefc, nnzJ);
  S->colind = rows;
  return 1;
}


// store the whole problem's pattern just computed in S (its rows of L in the current
// generation) with its key, when it fits
static void cacheStore(const mcModel* m, const mcsSymbolicCache* c, const mcData* d, int nnzJ,
                       const mcsSparseH* S) {
  int nv = m->nv, nefc = d->nefc;
  int* h = c->buf;
  size_t whole, keyCap, lCap;
  cacheLayout(m, &whole, &keyCap, &lCap);
  h[CACHE_VALID] = 0;
  if (cacheNeed(nv, nefc, nnzJ) > whole) {
    return;
  }
  int* p = h + CACHE_HEADER;
  memcpy(p, d->efc_J_rownnz, sizeof(int) * (size_t)nefc);
  p = storeColumns(p + nefc, d, nnzJ);
  storePattern(p, S, nv, nefc, nnzJ);
  h[CACHE_NV] = nv;
  h[CACHE_NEFC] = nefc;
  h[CACHE_NNZJ] = nnzJ;
  h[CACHE_NNZL] = S->nnz;
  memcpy(h + CACHE_WORK, &S->work, sizeof(long));
  h[CACHE_VALID] = 1;
}


static int findRoot(int* up, int k) {
  while (up[k] != k) {
    up[k] = up[up[k]];
    k = up[k];
  }
  return k;
}


// components of the elimination: comp[k] is the first dof of the trees joined to k's tree by
// rows (the first rows of runs; a tree no row touches is a component of its own). up: scratch
static void components(const mcModel* m, const mcData* d, const int* rrun, int* comp, int* up) {
  int nv = m->nv;
  for (int k = 0; k < nv; k++) {
    int p = m->dof_parentid[k];
    comp[k] = p < 0 ? k : comp[p];  // the root of k's tree (parents come first)
    up[k] = k;
  }
  // union of the trees a row touches, each set named by its smallest root (its first dof)
  for (int r = 0; r < d->nefc; r += rrun[r]) {
    const int* rc = d->efc_J_colind + d->efc_J_rowadr[r];
    int n = d->efc_J_rownnz[r];
    if (n == 0) {
      continue;
    }
    int last = comp[rc[0]], a = findRoot(up, last);
    for (int q = 1; q < n; q++) {
      int t = comp[rc[q]];
      if (t == last) {
        continue;
      }
      last = t;
      int b = findRoot(up, t);
      if (a < b) {
        up[b] = a;
      } else if (b < a) {
        up[a] = b;
        a = b;
      }
    }
  }
  for (int k = 0; k < nv; k++) {
    comp[k] = findRoot(up, comp[k]);
  }
}


// does entry e hold the key of the component with the n dofs dof and the nr rows row?
static int sameKey(const int* e, const mcData* d, const int* dof, int n, const int* row, int nr,
                   int ncol) {
  if (e[E_NDOF] != n || e[E_NROW] != nr || e[E_NCOL] != ncol ||
      memcmp(e + E_HEADER, dof, sizeof(int) * (size_t)n)) {
    return 0;
  }
  const int* keyNnz = e + E_HEADER + n;
  const int* keyCol = keyNnz + nr;
  for (int i = 0; i < nr; i++) {
    int r = row[i], cnt = d->efc_J_rownnz[r];
    if (keyNnz[i] != cnt ||
        memcmp(keyCol, d->efc_J_colind + d->efc_J_rowadr[r], sizeof(int) * (size_t)cnt)) {
      return 0;
    }
    keyCol += cnt;
  }
  return 1;
}


// the rows of L component by component into the cache's next generation (reused from the
// current one where a component's key is there), which then becomes the current one; 0 if the
// host stack or the generation is too small (the current generation is kept)
static int componentPattern(const mcpHost* host, const mcModel* m, mcData* d, mcsSparseH* S,
                            const mcsSymbolicCache* c) {
  int nv = m->nv, nefc = d->nefc;
  int* comp = host->stackAlloc(d, sizeof(int) * 5 * ((size_t)nv + 1), 16);
  int* row = host->stackAlloc(d, sizeof(int) * ((size_t)nefc + 1), 16);
  if (!comp || !row) {
    return 0;
  }
  int* up = comp + nv + 1;
  int* dofadr = up + nv + 1;      // dofs of the component starting at f: dof[dofadr[f] ..]
  int* dof = dofadr + nv + 1;
  int* rowcnt = dof + nv + 1;     // first rows of runs of that component: row[rowcnt[f] ..]
  components(m, d, S->rrun, comp, up);

  // the dofs and the rows of each component, ascending
  memset(dofadr, 0, sizeof(int) * ((size_t)nv + 1));
  memset(rowcnt, 0, sizeof(int) * ((size_t)nv + 1));
  for (int k = 0; k < nv; k++) {
    dofadr[comp[k] + 1]++;
  }
  for (int r = 0; r < nefc; r += S->rrun[r]) {
    if (d->efc_J_rownnz[r] > 0) {
      rowcnt[comp[d->efc_J_colind[d->efc_J_rowadr[r]]] + 1]++;
    }
  }
  for (int f = 0; f < nv; f++) {
    dofadr[f + 1] += dofadr[f];
    rowcnt[f + 1] += rowcnt[f];
    up[f] = dofadr[f];            // fill positions
  }
  for (int k = 0; k < nv; k++) {
    dof[up[comp[k]]++] = k;
  }
  for (int f = 0; f < nv; f++) {
    up[f] = rowcnt[f];
  }
  for (int r = 0; r < nefc; r += S->rrun[r]) {
    if (d->efc_J_rownnz[r] > 0) {
      row[up[comp[d->efc_J_colind[d->efc_J_rowadr[r]]]]++] = r;
    }
  }

  int* h = c->buf;
  size_t whole, keyCap, lCap;
  cacheLayout(m, &whole, &keyCap, &lCap);
  int cur = h[CACHE_GEN] == 1, *okey, *orows, *nkey, *nrows;
  const int* old = genOf(m, c, cur, &okey, &orows);
  int* gen = genOf(m, c, !cur, &nkey, &nrows);
  const int* oidx = old[GEN_VALID] ? old + GEN_HEADER : NULL;
  int* nidx = gen + GEN_HEADER;
  gen[GEN_VALID] = 0;
  for (int f = 0; f < nv; f++) {
    nidx[f] = -1;
  }
  S->work = 0;
  size_t pk = 0, pl = 0;
  int ncomp = 0, reused = 0;
  for (int f = 0; f < nv; f++) {
    if (comp[f] != f) {
      continue;
    }
    const int* cd = dof + dofadr[f];
    const int* cr = row + rowcnt[f];
    int n = dofadr[f + 1] - dofadr[f], nr = rowcnt[f + 1] - rowcnt[f], ncol = 0;
    for (int i = 0; i < nr; i++) {
      ncol += d->efc_J_rownnz[cr[i]];
    }
    size_t esize = E_HEADER + 2 * (size_t)n + (size_t)nr + (size_t)ncol;
    if (pk + esize > keyCap) {
      return 0;
    }
    int* e = nkey + pk;
    int* lnnz = e + E_HEADER + n + nr + ncol;
    const int* o = oidx && oidx[f] >= 0 ? okey + oidx[f] : NULL;
    long work;
    if (o && sameKey(o, d, cd, n, cr, nr, ncol)) {
      // the same dofs and rows' columns: the same rows of L
      if (pl + (size_t)o[E_NNZL] > lCap) {
        return 0;
      }
      memcpy(e, o, sizeof(int) * esize);
      memcpy(nrows + pl, orows + o[E_LADR], sizeof(int) * (size_t)o[E_NNZL]);
      memcpy(&work, o + E_WORK, sizeof(long));
      size_t q = pl;
      for (int i = n - 1; i >= 0; i--) {
        S->rowadr[cd[i]] = (int)q;
        S->rownnz[cd[i]] = lnnz[i];
        q += (size_t)lnnz[i];
      }
      S->work += work;
      e[E_LADR] = (int)pl;
      pl = q;
      reused++;
    } else {
      e[E_NDOF] = n;
      e[E_NROW] = nr;
      e[E_NCOL] = ncol;
      memcpy(e + E_HEADER, cd, sizeof(int) * (size_t)n);
      int* kc = e + E_HEADER + n + nr;
      for (int i = 0; i < nr; i++) {
        int cnt = d->efc_J_rownnz[cr[i]];
        e[E_HEADER + n + i] = cnt;
        memcpy(kc, d->efc_J_colind + d->efc_J_rowadr[cr[i]], sizeof(int) * (size_t)cnt);
        kc += cnt;
      }
      long w0 = S->work;
      size_t l0 = pl;
      if (!patternRows(m, d, S, cd, n, nrows, &pl, lCap)) {
        return 0;
      }
      work = S->work - w0;
      memcpy(e + E_WORK, &work, sizeof(long));
      e[E_NNZL] = (int)(pl - l0);
      e[E_LADR] = (int)l0;
      for (int i = 0; i < n; i++) {
        lnnz[i] = S->rownnz[cd[i]];
      }
    }
    nidx[f] = (int)pk;
    pk += esize;
    ncomp++;
  }
  gen[GEN_VALID] = 1;
  h[CACHE_GEN] = !cur;
  h[CACHE_NCOMP] = ncomp;
  h[CACHE_REUSED] = reused;
  S->colind = nrows;
  S->nnz = (int)pl;
  return 1;
}


//---------------------------------- island slots --------------------------------------------------
//
// The pattern of one island view: header (valid flag, nv, nefc, nnz of efc_J, nnz of L, the work
// in two ints), the key (the view's dof_parentid, efc_J_rownnz, the columns of every row), then
// jcoladr + jcolnnz, jrow, jpos, rrun, rowadr + rownnz and colind. The key names the view's whole
// structure in its local indices, so any island with that key has that pattern.
enum { SLOT_VALID = 0, SLOT_NV, SLOT_NEFC, SLOT_NNZJ, SLOT_NNZL, SLOT_WORK,
       SLOT_HEADER = SLOT_WORK + 2 };


static int slotHit(const mcModel* m, const mcsSymbolicCache* c, const mcData* d, int nnzJ,
                   mcsSparseH* S) {
  const int* h = c->buf;
  int nv = m->nv, nefc = d->nefc;
  if (!h[SLOT_VALID] || h[SLOT_NV] != nv || h[SLOT_NEFC] != nefc || h[SLOT_NNZJ] != nnzJ) {
    return 0;
  }
  const int* key = h + SLOT_HEADER;
  if (memcmp(key, m->dof_parentid, sizeof(int) * (size_t)nv) ||
      memcmp(key + nv, d->efc_J_rownnz, sizeof(int) * (size_t)nefc)) {
    return 0;
  }
  if (!sameColumns(key + nv + nefc, d, nnzJ)) {
    return 0;
  }
  int* p = c->buf + SLOT_HEADER + nv + nefc + nnzJ;
  S->nv = nv;
  S->nnz = h[SLOT_NNZL];
  memcpy(&S->work, h + SLOT_WORK, sizeof(long));
  S->colind = patternArrays(S, p, nv, nefc, nnzJ);
  return 1;
}


static void slotStore(const mcModel* m, const mcsSymbolicCache* c, const mcData* d, int nnzJ,
                      const mcsSparseH* S) {
  int nv = m->nv, nefc = d->nefc;
  int* h = c->buf;
  h[SLOT_VALID] = 0;
  size_t need = SLOT_HEADER + 5 * (size_t)nv + 1 + 2 * (size_t)nefc + 3 * (size_t)nnzJ +
                (size_t)S->nnz;
  if (need > c->cap) {
    return;
  }
  int* p = h + SLOT_HEADER;
  memcpy(p, m->dof_parentid, sizeof(int) * (size_t)nv);
  p += nv;
  memcpy(p, d->efc_J_rownnz, sizeof(int) * (size_t)nefc);
  p = storeColumns(p + nefc, d, nnzJ);
  p = storePattern(p, S, nv, nefc, nnzJ);
  memcpy(p, S->colind, sizeof(int) * (size_t)S->nnz);
  h[SLOT_NV] = nv;
  h[SLOT_NEFC] = nefc;
  h[SLOT_NNZJ] = nnzJ;
  h[SLOT_NNZL] = S->nnz;
  memcpy(h + SLOT_WORK, &S->work, sizeof(long));
  h[SLOT_VALID] = 1;
}


int mcs_sparseSymbolic(const mcpHost* host, const mcModel* m, mcData* d, mcsSparseH* S,
                       const mcsSymbolicCache* cache) {
  int nv = m->nv, nnzJ = 0;
  for (int r = 0; r < d->nefc; r++) {
    nnzJ += d->efc_J_rownnz[r];
  }
  int slot = cache && cache->buf && cache->slot && cache->cap >= SLOT_HEADER;
  int cached = !slot && cache && cache->buf && cache->cap > 0 &&
               cache->cap >= mcs_symbolicCacheSize(m);
  if (slot && slotHit(m, cache, d, nnzJ, S)) {
    S->map = host->stackAlloc(d, sizeof(int) * 3 * (size_t)nv, 16);
  } else if (cached && cacheHit(m, cache, d, nnzJ, S)) {
    cache->buf[CACHE_REUSED] = -1;
    S->map = host->stackAlloc(d, sizeof(int) * 3 * (size_t)nv, 16);
  } else {
    if (!rowParts(host, m, d, S, nnzJ)) {
      return 0;
    }
    if (cached && componentPattern(host, m, d, S, cache)) {
      cacheStore(m, cache, d, nnzJ, S);
    } else {
      if (cached) {
        cache->buf[CACHE_VALID] = 0;
      }
      if (!plainPattern(host, m, d, S)) {
        return 0;
      }
      if (slot) {
        slotStore(m, cache, d, nnzJ, S);
      }
    }
  }

  // values of L (and S->map, scratch of the numeric factorization), the quadratic rows of runs
  size_t nefc = (size_t)d->nefc + 1;
  S->val = host->stackAlloc(d, sizeof(mcNum) * (size_t)S->nnz, 16);
  S->idiag = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  S->qval = host->stackAlloc(d, sizeof(const mcNum*) * nefc, 16);
  S->qD = host->stackAlloc(d, sizeof(mcNum) * nefc, 16);
  S->qn = host->stackAlloc(d, sizeof(int) * nefc, 16);
  return S->map && S->val && S->idiag && S->qval && S->qD && S->qn;
}


// r += t * a over n entries (a row of L and a row of J: no overlap)
static inline void axpy(mcNum* restrict r, const mcNum* restrict a, mcNum t, int n) {
  for (int j = 0; j < n; j++) {
    r[j] += t * a[j];
  }
}


// r -= t * a over n entries (distinct rows of L: no overlap, so the loop vectorizes)
static inline void axpyNeg(mcNum* restrict r, const mcNum* restrict a, mcNum t, int n) {
  for (int j = 0; j < n; j++) {
    r[j] -= t * a[j];
  }
}


// add w * (row r of J, its first n entries: the columns <= i) into row i of L through map
static inline void addRow(const mcData* d, mcNum* Li, const int* map, int r, int n, mcNum w) {
  const int* rc = d->efc_J_colind + d->efc_J_rowadr[r];
  const mcNum* rv = d->efc_J_val + d->efc_J_rowadr[r];
  if (n <= 0) {
    return;
  }

  // columns that land on consecutive entries of row i (a chain of dofs in a chain pattern):
  // one contiguous axpy, the same operation per entry as the scatter
  int p0 = map[rc[0]];
  if (map[rc[n - 1]] - p0 == n - 1) {
    axpy(Li + p0, rv, w, n);
    return;
  }
  for (int q = 0; q < n; q++) {
    Li[map[rc[q]]] += w * rv[q];
  }
}


// add sum over g < ng of w[g] * (row val[g] of J, its first n entries: the columns <= i) into
// row i of L through map, for rows with the same columns rc; each entry receives the rows' terms
// in the order of g, one addition each (the same operations as adding the rows one by one).
// Called with a literal ng for the common run lengths, so that the loop over g unrolls
static inline void addRun(mcNum* Li, const int* map, const int* rc, int n,
                          const mcNum* const* val, const mcNum* w, int ng) {
  if (n <= 0) {
    return;
  }
  int p0 = map[rc[0]];
  if (map[rc[n - 1]] - p0 == n - 1) {
    mcNum* r = Li + p0;
    for (int q = 0; q < n; q++) {
      mcNum h = r[q];
      for (int g = 0; g < ng; g++) {
        h += w[g] * val[g][q];
      }
      r[q] = h;
    }
    return;
  }
  for (int q = 0; q < n; q++) {
    mcNum* e = Li + map[rc[q]];
    mcNum h = *e;
    for (int g = 0; g < ng; g++) {
      h += w[g] * val[g][q];
    }
    *e = h;
  }
}


// addRun with the run length as a literal for 1 to 8 rows (at most eight a call)
static void addRunN(mcNum* Li, const int* map, const int* rc, int n, const mcNum* const* val,
                    const mcNum* w, int ng) {
  switch (ng) {
    case 0: break;
    case 1: addRun(Li, map, rc, n, val, w, 1); break;
    case 2: addRun(Li, map, rc, n, val, w, 2); break;
    case 3: addRun(Li, map, rc, n, val, w, 3); break;
    case 4: addRun(Li, map, rc, n, val, w, 4); break;
    case 5: addRun(Li, map, rc, n, val, w, 5); break;
    case 6: addRun(Li, map, rc, n, val, w, 6); break;
    case 7: addRun(Li, map, rc, n, val, w, 7); break;
    case 8: addRun(Li, map, rc, n, val, w, 8); break;
    default: addRun(Li, map, rc, n, val, w, ng); break;
  }
}


// number of entries of row r of J with column <= i (columns ascending)
static int rowPrefix(const mcData* d, int r, int i) {
  const int* rc = d->efc_J_colind + d->efc_J_rowadr[r];
  int n = 0;
  for (int nr = d->efc_J_rownnz[r]; n < nr && rc[n] <= i; n++) {
  }
  return n;
}


// first row of the elliptic cone that row r belongs to, in d's own row numbering: the rows of one
// contact are consecutive and share its id and type. (The contact's efc_address numbers rows of
// the whole problem, not those of an island's view of it.)
static int coneFirstRow(const mcData* d, int r) {
  int id = d->efc_id[r], type = d->efc_type[r], first = r;
  while (first > 0 && d->efc_id[first - 1] == id && d->efc_type[first - 1] == type) {
    first--;
  }
  return first;
}


void mcs_sparseFactor(const mcModel* m, const mcData* d, mcsSparseH* S) {
  int nv = S->nv;
  int* map = S->map;
  // the fields of d the row loop reads, in locals: the stores to val[] and w[] below (pointers
  // and numbers) would otherwise make the compiler reload them from d for every row
  const int* restrict state = d->efc_state;
  const int* restrict jadr = d->efc_J_rowadr;
  const mcNum* restrict jval = d->efc_J_val;
  const mcNum* restrict efcD = d->efc_D;

  // the quadratic rows of each run, listed once for all the columns the run goes through
  for (int r0 = 0, nefc = d->nefc; r0 < nefc; r0 += S->rrun[r0]) {
    int ng = 0;
    for (int r = r0; r < r0 + S->rrun[r0]; r++) {
      if (state[r] == mcCNSTRSTATE_CONE) {
        ng = -1;
        break;
      }
      if (state[r] == mcCNSTRSTATE_QUADRATIC) {
        S->qval[r0 + ng] = jval + jadr[r];
        S->qD[r0 + ng++] = efcD[r];
      }
    }
    S->qn[r0] = ng;
  }

  // assemble the lower triangle of M + J' D J (active rows) + cone Hessians
  for (int i = 0; i < nv; i++) {
    mcNum* Li = S->val + S->rowadr[i];
    const int* ci = S->colind + S->rowadr[i];
    int ni = S->rownnz[i];
    for (int q = 0; q < ni; q++) {
      map[ci[q]] = q;
      Li[q] = 0;
    }
    int adr = m->dof_Madr[i];
    Li[ni - 1] = d->qM[adr++];
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
      Li[map[j]] = d->qM[adr++];
    }
    // the rows through column i, a run of rows with the same columns at a time: their quadratic
    // rows are added together, in row order; a cone row first adds the quadratic rows before it
    for (int t = S->jcoladr[i]; t < S->jcoladr[i + 1];) {
      int r0 = S->jrow[t], nrun = S->rrun[r0], pos = S->jpos[t++];
      const int* rc = d->efc_J_colind + jadr[r0];
      const mcNum* val[8];
      mcNum w[8];
      int ng = 0;
      if (S->qn[r0] >= 0) {
        // no cone row: the listed quadratic rows, in row order, at most eight a call
        const mcNum* const* qv = S->qval + r0;
        const mcNum* qD = S->qD + r0;
        for (int g0 = 0, nq = S->qn[r0]; g0 < nq; g0 += 8) {
          int n8 = nq - g0 < 8 ? nq - g0 : 8;
          for (int g = 0; g < n8; g++) {
            w[g] = qD[g0 + g] * qv[g0 + g][pos];
          }
          addRunN(Li, map, rc, pos + 1, qv + g0, w, n8);
        }
        continue;
      }
      for (int r = r0; r < r0 + nrun; r++) {
        int st = state[r];
        if (st == mcCNSTRSTATE_QUADRATIC) {
          const mcNum* rv = jval + jadr[r];
          if (ng == 8) {
            addRunN(Li, map, rc, pos + 1, val, w, ng);
            ng = 0;
          }
          val[ng] = rv;
          w[ng++] = efcD[r] * rv[pos];
        } else if (st == mcCNSTRSTATE_CONE) {
          addRunN(Li, map, rc, pos + 1, val, w, ng);
          ng = 0;
          mcNum Jri = d->efc_J_val[d->efc_J_rowadr[r] + pos];
          const mcContact* con = d->contact + d->efc_id[r];
          int dim = con->dim, first = coneFirstRow(d, r), a = r - first;
          for (int b = 0; b < dim; b++) {
            mcNum h = con->H[a * dim + b];
            if (h != 0) {
              int rb = first + b;
              addRow(d, Li, map, rb, rowPrefix(d, rb, i), h * Jri);
            }
          }
        }
      }
      // columns ascending: those <= i are the entries up to and including i's
      addRunN(Li, map, rc, pos + 1, val, w, ng);
    }
  }

  // eliminate from the last dof to the first
  for (int k = nv - 1; k >= 0; k--) {
    mcNum* Lk = S->val + S->rowadr[k];
    const int* ck = S->colind + S->rowadr[k];
    int n = S->rownnz[k] - 1;
    mcNum s = Lk[n];
    if (!(s >= mcMINVAL)) {
      s = mcMINVAL;
    }
    mcNum lkk = sqrt(s), inv = 1 / lkk;
    Lk[n] = lkk;
    S->idiag[k] = inv;
    for (int q = 0; q < n; q++) {
      Lk[q] *= inv;
    }

    // update the rows of the columns of k: L[i, j] -= L[k, i] L[k, j] for j <= i
    for (int q = 0; q < n; q++) {
      int i = ck[q];
      mcNum lki = Lk[q];
      if (lki == 0) {
        continue;
      }
      mcNum* Li = S->val + S->rowadr[i];
      const int* ci = S->colind + S->rowadr[i];
      if (q == 0 || ci[q - 1] == ck[q - 1]) {
        // the columns of k below i are a subset of those of row i; with equal q-th entries
        // they are its first q columns: a plain axpy (same operations per entry as the merge)
        axpyNeg(Li, Lk, lki, q);
      } else {
        int p = 0;
        for (int t = 0; t < q; t++) {
          while (ci[p] < ck[t]) {
            p++;
          }
          Li[p] -= lki * Lk[t];
        }
      }
      Li[S->rownnz[i] - 1] -= lki * lki;
    }
  }
}


void mcs_sparseSolve(const mcsSparseH* S, mcNum* x) {
  int nv = S->nv;
  // the reciprocals of the diagonal: no division on the chain of dependent rows
  const mcNum* idiag = S->idiag;

  // L' y = b, from the last row up
  for (int k = nv - 1; k >= 0; k--) {
    const mcNum* Lk = S->val + S->rowadr[k];
    const int* ck = S->colind + S->rowadr[k];
    int n = S->rownnz[k] - 1;
    mcNum y = x[k] * idiag[k];
    x[k] = y;
    if (y != 0) {
      // two entries a pass (distinct columns: the same operations as one at a time, with half
      // the loop's own instructions)
      int q = 0;
      for (; q + 1 < n; q += 2) {
        x[ck[q]] -= Lk[q] * y;
        x[ck[q + 1]] -= Lk[q + 1] * y;
      }
      if (q < n) {
        x[ck[q]] -= Lk[q] * y;
      }
    }
  }

  // L x = y, from the first row down
  for (int k = 0; k < nv; k++) {
    const mcNum* Lk = S->val + S->rowadr[k];
    const int* ck = S->colind + S->rowadr[k];
    int n = S->rownnz[k] - 1;
    mcNum s = x[k];
    int q = 0;
    for (; q + 1 < n; q += 2) {  // two terms a pass, subtracted in the same order
      s -= Lk[q] * x[ck[q]];
      s -= Lk[q + 1] * x[ck[q + 1]];
    }
    if (q < n) {
      s -= Lk[q] * x[ck[q]];
    }
    x[k] = s * idiag[k];
  }
}


int mcs_sparseUpdate(const mcData* d, mcsSparseH* S, int r, mcNum sigma, mcNum* w) {
  const int* rc = d->efc_J_colind + d->efc_J_rowadr[r];
  const mcNum* rv = d->efc_J_val + d->efc_J_rowadr[r];
  int n = d->efc_J_rownnz[r];
  if (n == 0) {
    return 1;
  }
  for (int q = 0; q < n; q++) {
    w[rc[q]] = rv[q];
  }

  // rotate along the elimination-tree path from the last column of the row
  int ok = 1;
  for (int k = rc[n - 1]; k >= 0;) {
    mcNum* Lk = S->val + S->rowadr[k];
    const int* ck = S->colind + S->rowadr[k];
    int nk = S->rownnz[k] - 1;
    mcNum wk = w[k];
    w[k] = 0;
    if (wk != 0 && ok) {
      mcNum lkk = Lk[nk];
      mcNum r2 = lkk * lkk + sigma * wk * wk;
      if (!(r2 >= mcMINVAL)) {
        ok = 0;
      } else {
        // 1 / c = lkk / rk once: a division per entry was the update's longest latency
        mcNum rk = sqrt(r2), c = rk / lkk, s = wk / lkk, ic = lkk / rk;
        Lk[nk] = rk;
        S->idiag[k] = 1 / rk;
        for (int q = 0; q < nk; q++) {
          int j = ck[q];
          Lk[q] = (Lk[q] + sigma * s * w[j]) * ic;
          w[j] = c * w[j] - s * Lk[q];
        }
      }
    }
    k = nk > 0 ? ck[nk - 1] : -1;
  }
  return ok;
}


//---------------------------------- products with the rows ------------------------------------

// rows i .. i + runLength(run, i) - 1 have the same columns, taken up to 4 at a time
static inline int runLength(const int* run, int i) {
  return run[i] < 4 ? run[i] : 4;
}


// res[g] = row val[g] . vec over the ng rows of a run with columns col: each sum in the order of
// the columns, as one row alone (the entries of vec are loaded once for the run). Called with a
// literal ng so that the loop over the rows unrolls
static inline void mulRun(mcNum* res, const int* col, int n, const mcNum* const* val,
                          const mcNum* vec, int ng) {
  mcNum s[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; k++) {
    mcNum x = vec[col[k]];
    for (int g = 0; g < ng; g++) {
      s[g] += val[g][k] * x;
    }
  }
  for (int g = 0; g < ng; g++) {
    res[g] = s[g];
  }
}


void mcs_mulRows(int nrow, const int* rnnz, const int* radr, const int* rcol, const mcNum* rval,
                 const int* run, mcNum* res, const mcNum* vec) {
  if (!run) {
    for (int i = 0; i < nrow; i++) {
      const mcNum* val[1] = {rval + radr[i]};
      mulRun(res + i, rcol + radr[i], rnnz[i], val, vec, 1);
    }
    return;
  }
  for (int i = 0; i < nrow;) {
    int ng = runLength(run, i), n = rnnz[i];
    const int* col = rcol + radr[i];
    const mcNum* val[4];
    for (int g = 0; g < ng; g++) {
      val[g] = rval + radr[i + g];
    }
    switch (ng) {
      case 1: mulRun(res + i, col, n, val, vec, 1); break;
      case 2: mulRun(res + i, col, n, val, vec, 2); break;
      case 3: mulRun(res + i, col, n, val, vec, 3); break;
      default: mulRun(res + i, col, n, val, vec, 4); break;
    }
    i += ng;
  }
}


// res[col] += v[g] * row val[g] over the ng rows of a run, in the order of g for each entry (as
// the rows one after the other)
static inline void mulTRun(mcNum* res, const int* col, int n, const mcNum* const* val,
                           const mcNum* v, int ng) {
  for (int k = 0; k < n; k++) {
    mcNum h = res[col[k]];
    for (int g = 0; g < ng; g++) {
      h += v[g] * val[g][k];
    }
    res[col[k]] = h;
  }
}


void mcs_mulRowsT(int nrow, const int* rnnz, const int* radr, const int* rcol,
                  const mcNum* rval, const int* run, mcNum* res, const mcNum* vec) {
  if (!run) {
    for (int i = 0; i < nrow; i++) {
      if (vec[i] != 0) {
        const mcNum* val[1] = {rval + radr[i]};
        mulTRun(res, rcol + radr[i], rnnz[i], val, vec + i, 1);
      }
    }
    return;
  }
  for (int i = 0; i < nrow;) {
    int nrun = runLength(run, i), ng = 0, n = rnnz[i];
    const int* col = rcol + radr[i];
    const mcNum* val[4];
    mcNum v[4];
    for (int g = 0; g < nrun; g++) {
      if (vec[i + g] != 0) {
        val[ng] = rval + radr[i + g];
        v[ng++] = vec[i + g];
      }
    }
    switch (ng) {
      case 0: break;
      case 1: mulTRun(res, col, n, val, v, 1); break;
      case 2: mulTRun(res, col, n, val, v, 2); break;
      case 3: mulTRun(res, col, n, val, v, 3); break;
      default: mulTRun(res, col, n, val, v, 4); break;
    }
    i += nrun;
  }
}


long mcs_sparseUpdateWork(const mcData* d, const mcsSparseH* S, int r) {
  int n = d->efc_J_rownnz[r];
  long work = 0;
  for (int k = n > 0 ? d->efc_J_colind[d->efc_J_rowadr[r] + n - 1] : -1; k >= 0;) {
    int nk = S->rownnz[k];
    work += nk;
    k = nk > 1 ? S->colind[S->rowadr[k] + nk - 2] : -1;
  }
  return work;
}


long mcs_sparseFactorWork(const mcData* d, const mcsSparseH* S) {
  long work = S->work;
  for (int r0 = 0; r0 < d->nefc; r0 += S->rrun[r0]) {
    // the rows of a run have the same number of columns
    long n = d->efc_J_rownnz[r0], nq = 0;
    for (int r = r0; r < r0 + S->rrun[r0]; r++) {
      nq += d->efc_state[r] == mcCNSTRSTATE_QUADRATIC;
    }
    work += nq * (n * (n + 1) / 2);
  }
  return work;
}
