// Moduco core: constraint island discovery (union-find over kinematic trees linked by rows).
#include "engine/island.h"

#include <string.h>

#include "engine/io.h"
#include "engine/threadpool.h"


// root of x with path halving
int mci_treeRoot(int* uf, int x) {
  while (uf[x] != x) {
    uf[x] = uf[uf[x]];
    x = uf[x];
  }
  return x;
}


// join the sets of a and b; the smaller root stays the root (deterministic)
static void unite(int* uf, int a, int b) {
  a = mci_treeRoot(uf, a);
  b = mci_treeRoot(uf, b);
  if (a < b) {
    uf[b] = a;
  } else if (b < a) {
    uf[a] = b;
  }
}


// the tree (root dof) of the first dof touched by row i, and join every other tree it touches;
// -1 for a row without non-zeros
static int linkRow(const mcModel* m, const mcData* d, int i, const int* tree, int* uf) {
  int first = -1;
  if (d->efc_J_rownnz) {
    const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
    for (int k = 0, n = d->efc_J_rownnz[i]; k < n; k++) {
      int t = tree[col[k]];
      if (first < 0) {
        first = t;
      } else if (t != first) {
        unite(uf, first, t);
      }
    }
  } else {
    const mcNum* J = d->efc_J + (size_t)i * m->nv;
    for (int k = 0; k < m->nv; k++) {
      if (J[k] != 0) {
        int t = tree[k];
        if (first < 0) {
          first = t;
        } else if (t != first) {
          unite(uf, first, t);
        }
      }
    }
  }
  return first;
}


// does row i continue the contact of row i-1 (its rows stay in one island)?
static int sameContact(const mcData* d, int i) {
  int t = d->efc_type[i];
  return i > 0 && t >= mcCNSTR_CONTACT_FRICTIONLESS && d->efc_type[i - 1] == t &&
         d->efc_id[i - 1] == d->efc_id[i];
}


// counting sort of n items by key (nkey keys, keys < 0 skipped) into ind, ascending within a
// key; adr and num get each key's start and count (cursor: nkey ints of scratch)
static void bucket(const int* key, int n, int nkey, int* adr, int* num, int* ind, int* cursor) {
  memset(num, 0, sizeof(int) * (size_t)nkey);
  for (int i = 0; i < n; i++) {
    if (key[i] >= 0) {
      num[key[i]]++;
    }
  }
  for (int k = 0, a = 0; k < nkey; k++) {
    adr[k] = a;
    cursor[k] = a;
    a += num[k];
  }
  for (int i = 0; i < n; i++) {
    if (key[i] >= 0) {
      ind[cursor[key[i]]++] = i;
    }
  }
}


#define MANYTREES (-3)            // rowTrees: the row touches more than two trees

// the trees row i touches, without the sets: pair[0] the first (-1 without non-zeros), pair[1]
// another one (-1 when none), or pair[0] MANYTREES when there are more than two
static void rowTrees(const mcModel* m, const mcData* d, int i, const int* tree, int* pair) {
  pair[0] = pair[1] = -1;
  int n = d->efc_J_rownnz ? d->efc_J_rownnz[i] : m->nv;
  const int* col = d->efc_J_rownnz ? d->efc_J_colind + d->efc_J_rowadr[i] : NULL;
  const mcNum* J = d->efc_J_rownnz ? NULL : d->efc_J + (size_t)i * m->nv;
  for (int k = 0; k < n; k++) {
    if (J && J[k] == 0) {
      continue;
    }
    int t = tree[col ? col[k] : k];
    if (pair[0] < 0) {
      pair[0] = t;
    } else if (t != pair[0] && pair[1] < 0) {
      pair[1] = t;
    } else if (t != pair[0] && t != pair[1]) {
      pair[0] = MANYTREES;
      return;
    }
  }
}


void mci_rootDofs(const mcModel* m, int* tree) {
  for (int k = 0; k < m->nv; k++) {
    int p = m->dof_parentid[k];
    tree[k] = p < 0 ? k : tree[p];
  }
}


void mci_rowTrees(const mcModel* m, const mcData* d, const int* tree, int i0, int i1, int* pair) {
  for (int i = i0; i < i1; i++) {
    rowTrees(m, d, i, tree, pair + 2 * i);
  }
}


typedef struct {
  const mcModel* m;
  const mcData* d;
  const int* tree;
  int* pair;                      // 2 x nefc
  int n;                          // ranges of rows of equal length
} TreeRows;

static void treeRowsTask(void* ctx, int k, int thread) {
  (void)thread;
  TreeRows* r = (TreeRows*)ctx;
  int lo, hi;
  mci_rowRange(r->d->nefc, k, r->n, &lo, &hi);
  mci_rowTrees(r->m, r->d, r->tree, lo, hi, r->pair);
}


// the tree of row i's first non-zero, its trees joined: from pair (rowTrees) when given
static int linkRowPair(const mcModel* m, const mcData* d, int i, const int* tree, int* uf,
                       const int* pair) {
  if (!pair || pair[2 * i] == MANYTREES) {
    return linkRow(m, d, i, tree, uf);
  }
  if (pair[2 * i + 1] >= 0) {
    unite(uf, pair[2 * i], pair[2 * i + 1]);
  }
  return pair[2 * i];
}


// mci_treeSets with the trees of each row found first (pair, 2 x nefc, on d's pool in ranges of
// rows when pair is given and not yet filled); as unite keeps the smaller root, every set's root
// is its smallest tree whatever the order of the joins, so the sets and roots are those of the
// serial walk. tree: already the root dofs when given (treeknown), else found here.
static void treeSets(const mcModel* m, const mcData* d, int* tree, int* uf, int* rowtree,
                     int* pair, int filled, int treeknown) {
  // trees (root dof of every dof; parents come first), each its own set
  if (!treeknown) {
    mci_rootDofs(m, tree);
  }
  for (int k = 0; k < m->nv; k++) {
    uf[k] = k;
  }
  if (pair && !filled) {
    TreeRows r = {m, d, tree, pair, 4 * mci_threads(d)};
    mci_poolRun(d->threadpool, r.n, treeRowsTask, &r);
  }

  // rows join the trees they touch; the rows of one contact join each other (a row of the same
  // contact on the same trees as the row before joins nothing new: it takes that row's tree)
  for (int i = 0; i < d->nefc; i++) {
    int same = sameContact(d, i);
    if (same && pair && pair[2 * i] == pair[2 * i - 2] && pair[2 * i + 1] == pair[2 * i - 1] &&
        pair[2 * i] != MANYTREES) {
      rowtree[i] = rowtree[i - 1];
      continue;
    }
    int t = linkRowPair(m, d, i, tree, uf, pair);
    if (same && rowtree[i - 1] >= 0) {
      if (t >= 0) {
        unite(uf, rowtree[i - 1], t);
      } else {
        t = rowtree[i - 1];
      }
    }
    rowtree[i] = t;
  }
}


void mci_treeSets(const mcModel* m, const mcData* d, int* tree, int* uf, int* rowtree) {
  treeSets(m, d, tree, uf, rowtree, NULL, 0, 0);
}


void mc_island(const mcModel* m, mcData* d) {
  mci_islandFrom(m, d, NULL, NULL);
}


// the runs of dofs of one tree (a tree's dofs are usually one run): run k is the dofs run[k] ..
// run[k+1]-1, whose root dof is tree[run[k]]; returns the number of runs (run: nv + 1 ints)
static int treeRuns(const mcModel* m, const int* tree, int* run) {
  int n = 0;
  for (int k = 0; k < m->nv; k++) {
    if (k == 0 || tree[k] != tree[k - 1]) {
      run[n++] = k;
    }
  }
  run[n] = m->nv;
  return n;
}


// bucket of the dofs by dof_island, run by run (every dof of a run is in the same island): the
// result of bucket(dof_island, nv, nisland, ...), with the runs' island in key (nrun ints)
static void bucketRuns(const int* run, int nrun, const int* key, int nkey, int* adr, int* num,
                       int* ind, int* cursor) {
  memset(num, 0, sizeof(int) * (size_t)nkey);
  for (int r = 0; r < nrun; r++) {
    if (key[r] >= 0) {
      num[key[r]] += run[r + 1] - run[r];
    }
  }
  for (int k = 0, a = 0; k < nkey; k++) {
    adr[k] = a;
    cursor[k] = a;
    a += num[k];
  }
  for (int r = 0; r < nrun; r++) {
    if (key[r] >= 0) {
      for (int k = run[r]; k < run[r + 1]; k++) {
        ind[cursor[key[r]]++] = k;
      }
    }
  }
}


void mci_islandFrom(const mcModel* m, mcData* d, const int* roots, int* filled) {
  int nv = m->nv, nefc = d->nefc;
  d->nisland = 0;
  d->efc_island = d->island_efcind = NULL;
  if (!(m->opt.enableflags & mcENBL_ISLAND) || nefc == 0 || nv == 0) {
    return;
  }
  size_t parena0 = d->parena;
  int* efc_island = mci_arenaAlloc(d, sizeof(int) * (size_t)nefc, _Alignof(int));
  int* efcind = mci_arenaAlloc(d, sizeof(int) * (size_t)nefc, _Alignof(int));
  mc_markStack(d);
  int* tree = roots ? (int*)roots : mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* uf = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* label = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* run = mc_stackAlloc(d, sizeof(int) * (size_t)(nv + 1), _Alignof(int));
  int* runisland = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  if (!efc_island || !efcind || !tree || !uf || !label || !run || !runisland) {
    mc_freeStack(d);
    d->parena = parena0;
    return;
  }

  int* pair = filled;             // the rows' trees found on the pool first (128 rows or more)
  if (!pair && mci_threads(d) >= 2 && !d->plugin_check && nefc >= 128) {
    pair = mc_stackAlloc(d, 2 * sizeof(int) * (size_t)nefc, _Alignof(int));
  }
  // (treeSets' rows loop reads only the trees' entries of tree, uf and label: root dofs)
  treeSets(m, d, tree, uf, efc_island, pair, filled != NULL, roots != NULL);
  int nrun = treeRuns(m, tree, run);
  for (int r = 0; r < nrun; r++) {
    label[tree[run[r]]] = -1;     // 0: the tree (later: the set) has a row
  }
  for (int i = 0; i < nefc; i++) {
    if (efc_island[i] >= 0) {     // for now: a tree of the row
      label[efc_island[i]] = 0;
    }
  }

  // mark the sets that hold a row at their root (the smallest root dof: the set's first dof),
  // then number them by first dof; a tree's root dof starts a run, and the dofs of a run share
  // their tree, hence their set and island
  for (int r = 0; r < nrun; r++) {
    int k = tree[run[r]];
    if (label[k] == 0) {
      label[mci_treeRoot(uf, k)] = 0;
    }
  }
  int n = 0;
  for (int r = 0; r < nrun; r++) {
    int k = run[r];
    if (tree[k] == k && mci_treeRoot(uf, k) == k && label[k] == 0) {
      label[k] = -2 - n++;        // a root with a row, numbered (encoded below -1)
    }
  }
  for (int r = 0; r < nrun; r++) {
    int s = mci_treeRoot(uf, tree[run[r]]);
    runisland[r] = label[s] <= -2 ? -2 - label[s] : -1;
    for (int k = run[r]; k < run[r + 1]; k++) {
      d->dof_island[k] = runisland[r];
    }
  }

  // island of every row; a row without non-zeros couples nothing: island 0
  for (int i = 0; i < nefc; i++) {
    efc_island[i] = efc_island[i] >= 0 ? d->dof_island[efc_island[i]] : 0;
  }

  // dofs and rows of every island, ascending
  bucketRuns(run, nrun, runisland, n, d->island_dofadr, d->island_dofnum, d->island_dofind,
             label);
  bucket(efc_island, nefc, n, d->island_efcadr, d->island_efcnum, efcind, label);
  mc_freeStack(d);
  d->nisland = n;
  d->efc_island = efc_island;
  d->island_efcind = efcind;
}
