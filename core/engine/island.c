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


int mci_treeDofs(const mcModel* m, int* tree, int* depth, int* run) {
  // (one loop per set of outputs, the previous dof's tree in a register: the optional outputs'
  // tests and the reload of tree[k - 1] once cost half of the walk, which runs every step)
  const int* parent = m->dof_parentid;
  int nv = m->nv, n = 0, prev = -1;
  if (depth && run) {
    for (int k = 0; k < nv; k++) {
      int p = parent[k], t = p < 0 ? k : tree[p];
      tree[k] = t;
      depth[k] = p < 0 ? 1 : depth[p] + 1;
      if (t != prev) {
        run[n++] = k;
      }
      prev = t;
    }
  } else {
    for (int k = 0; k < nv; k++) {
      int p = parent[k], t = p < 0 ? k : tree[p];
      tree[k] = t;
      if (depth) {
        depth[k] = p < 0 ? 1 : depth[p] + 1;
      }
      if (run && t != prev) {
        run[n++] = k;
      }
      prev = t;
    }
  }
  if (run) {
    run[n] = nv;
  }
  return n;
}


// the tree of row i's first non-zero (-1 without one)
static int firstTree(const mcModel* m, const mcData* d, int i, const int* tree) {
  if (d->efc_J_rownnz) {
    return d->efc_J_rownnz[i] > 0 ? tree[d->efc_J_colind[d->efc_J_rowadr[i]]] : -1;
  }
  const mcNum* J = d->efc_J + (size_t)i * m->nv;
  for (int k = 0; k < m->nv; k++) {
    if (J[k] != 0) {
      return tree[k];
    }
  }
  return -1;
}


// the sets of trees joined by the rows: every tree its own set, then each row joins the trees
// it touches, and the rows of one contact join each other; rowtree[i] a tree of row i (-1: no
// non-zero, and no row of its contact before it has one)
void mci_treeSets(const mcModel* m, const mcData* d, int* tree, int* uf, int* rowtree) {
  // trees (root dof of every dof; parents come first), each its own set
  mci_treeDofs(m, tree, NULL, NULL);
  for (int k = 0; k < m->nv; k++) {
    uf[k] = k;
  }
  for (int i = 0; i < d->nefc; i++) {
    int t = linkRow(m, d, i, tree, uf);
    if (sameContact(d, i) && rowtree[i - 1] >= 0) {
      if (t >= 0) {
        unite(uf, rowtree[i - 1], t);
      } else {
        t = rowtree[i - 1];
      }
    }
    rowtree[i] = t;
  }
}


// add the pair (a, b) to link (n pairs so far): not a tree with itself, nor the pair just added
static int addLink(int* link, int n, int a, int b) {
  if (a == b || (n > 0 && link[2 * n - 2] == a && link[2 * n - 1] == b)) {
    return n;
  }
  link[2 * n] = a;
  link[2 * n + 1] = b;
  return n + 1;
}


// (the serial walk of mci_treeSets, with its joins kept as pairs and its rowtree as runs: the
// same sets, and the same tree for every row; a row of the same contact on the same trees as the
// row before takes that row's tree and joins nothing new, and a contact's sparse rows share their
// columns, hence their trees)
void mci_rowSets(const mcModel* m, const mcData* d, mciRowSets* s, int p) {
  int i0 = s->first[p], i1 = s->first[p + 1];
  int* run = s->run + 2 * (size_t)i0;
  int* link = s->link + 4 * (size_t)i0;
  int nrun = 0, nlink = 0, prev[2] = {-1, -1}, prevtree = -1;
  for (int i = i0; i < i1; i++) {
    int same = i > i0 && sameContact(d, i), pair[2], t;
    if (same && d->efc_J_rownnz) {
      pair[0] = prev[0];
      pair[1] = prev[1];
    } else {
      rowTrees(m, d, i, s->tree, pair);
    }
    if (same && pair[0] == prev[0] && pair[1] == prev[1] && pair[0] != MANYTREES) {
      t = prevtree;
    } else {
      if (pair[0] == MANYTREES) {
        t = firstTree(m, d, i, s->tree);
        nlink = addLink(link, nlink, -1, i);
      } else {
        t = pair[0];
        if (pair[1] >= 0) {
          nlink = addLink(link, nlink, pair[0], pair[1]);
        }
      }
      if (same && prevtree >= 0) {
        if (t >= 0) {
          nlink = addLink(link, nlink, prevtree, t);
        } else {
          t = prevtree;
        }
      }
    }
    if (nrun == 0 || run[2 * nrun - 1] != t) {
      run[2 * nrun] = i;
      run[2 * nrun + 1] = t;
      nrun++;
    }
    prev[0] = pair[0];
    prev[1] = pair[1];
    prevtree = t;
  }
  s->nrun[p] = nrun;
  s->nlink[p] = nlink;
}


void mc_island(const mcModel* m, mcData* d) {
  mci_islandFrom(m, d, NULL);
}


// bucket of the dofs by dof_island, run by run (every dof of a run is in the same island): a
// counting sort, ascending within an island, with the runs' island in key (nrun ints; keys < 0
// skipped); adr and num get each island's start and count (cursor: nkey ints of scratch)
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
      int c = cursor[key[r]];     // (in a register: ind may alias cursor for the compiler)
      for (int k = run[r]; k < run[r + 1]; k++) {
        ind[c++] = k;
      }
      cursor[key[r]] = c;
    }
  }
}


// cut the rows into at most want parts of about equal length, each starting at a constraint's
// first row (not inside a contact's rows); returns the number of parts
static int cutParts(const mcData* d, int want, int* first) {
  int n = 0, nefc = d->nefc;
  want = want < 1 ? 1 : want > MCI_MAXPARTS ? MCI_MAXPARTS : want;
  for (int k = 0; k < want; k++) {
    int i = (int)((long long)nefc * k / want);
    while (i < nefc && i > 0 && sameContact(d, i)) {
      i++;
    }
    if (i < nefc && (n == 0 || i > first[n - 1])) {
      first[n++] = i;
    }
  }
  first[n] = nefc;
  return n;
}


typedef struct {
  const mcModel* m;
  const mcData* d;
  mciRowSets* s;
} SetsJob;

static void rowSetsTask(void* ctx, int k, int thread) {
  (void)thread;
  SetsJob* j = (SetsJob*)ctx;
  mci_rowSets(j->m, j->d, j->s, k);
}


#define MINPOOLROWS 128           // fewer rows: mc_island finds the parts serially

// the parts of the rows, in s (its tree set, run and link allocated): on d's pool with many rows,
// else one part
static void findRowSets(const mcModel* m, const mcData* d, mciRowSets* s) {
  int nthread = mci_threads(d);
  if (nthread >= 2 && !d->plugin_check && d->nefc >= MINPOOLROWS) {
    s->npart = cutParts(d, 4 * nthread, s->first);
    SetsJob j = {m, d, s};
    mci_poolRun(d->threadpool, s->npart, rowSetsTask, &j);
  } else {
    s->npart = 1;
    s->first[0] = 0;
    s->first[1] = d->nefc;
    mci_rowSets(m, d, s, 0);
  }
}


// the island of every row (efc_island) and the rows of every island (island_efcadr, efcnum,
// efcind: ascending), run by run of s's parts (counted by runs, then each row written once); a row
// without non-zeros couples nothing: island 0
static void islandRows(mcData* d, const mciRowSets* s, int nisland, int* efc_island, int* efcind,
                       int* cursor) {
  memset(d->island_efcnum, 0, sizeof(int) * (size_t)nisland);
  for (int p = 0; p < s->npart; p++) {
    const int* run = s->run + 2 * (size_t)s->first[p];
    for (int r = 0, n = s->nrun[p]; r < n; r++) {
      int i1 = r + 1 < n ? run[2 * r + 2] : s->first[p + 1], t = run[2 * r + 1];
      int island = t >= 0 ? d->dof_island[t] : 0;
      if (island < nisland) {
        d->island_efcnum[island] += i1 - run[2 * r];
      }
    }
  }
  for (int k = 0, a = 0; k < nisland; k++) {
    d->island_efcadr[k] = a;
    cursor[k] = a;
    a += d->island_efcnum[k];
  }
  for (int p = 0; p < s->npart; p++) {
    const int* run = s->run + 2 * (size_t)s->first[p];
    for (int r = 0, n = s->nrun[p]; r < n; r++) {
      int i1 = r + 1 < n ? run[2 * r + 2] : s->first[p + 1], t = run[2 * r + 1];
      int island = t >= 0 ? d->dof_island[t] : 0;
      if (island < nisland) {
        int c = cursor[island];   // (in a register, as in bucketRuns)
        for (int i = run[2 * r]; i < i1; i++) {
          efc_island[i] = island;
          efcind[c++] = i;
        }
        cursor[island] = c;
      } else {
        for (int i = run[2 * r]; i < i1; i++) {
          efc_island[i] = island;
        }
      }
    }
  }
}


void mci_islandFrom(const mcModel* m, mcData* d, const mciRowSets* sets) {
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
  mciRowSets own;
  const mciRowSets* s = sets;
  if (!s) {                       // the parts found here
    own.tree = NULL;
    own.dofrun = NULL;
    own.run = mc_stackAlloc(d, 2 * sizeof(int) * (size_t)nefc, _Alignof(int));
    own.link = mc_stackAlloc(d, 4 * sizeof(int) * (size_t)nefc, _Alignof(int));
    int* roots = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
    if (roots && own.run && own.link) {
      mci_treeDofs(m, roots, NULL, NULL);
      own.tree = roots;
      findRowSets(m, d, &own);
    }
    s = &own;
  }
  const int* tree = s->tree;
  int* uf = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* label = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* run = s->dofrun ? (int*)s->dofrun
                      : mc_stackAlloc(d, sizeof(int) * (size_t)(nv + 1), _Alignof(int));
  int* runisland = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  if (!efc_island || !efcind || !tree || !uf || !label || !run || !runisland) {
    mc_freeStack(d);
    d->parena = parena0;
    return;
  }

  // every tree its own set, then the parts' pairs of trees joined (the rows touching more than
  // two trees here); the trees with rows marked 0 (the rest -1) in label
  // (only the trees' entries of uf and label are read: root dofs)
  // (the trees' runs of dofs: found here unless given; tree gets its own values again)
  int nrun = s->dofrun ? s->ndofrun : mci_treeDofs(m, (int*)tree, NULL, run);
  for (int r = 0; r < nrun; r++) {
    uf[tree[run[r]]] = tree[run[r]];
    label[tree[run[r]]] = -1;
  }
  for (int p = 0; p < s->npart; p++) {
    const int* link = s->link + 4 * (size_t)s->first[p];
    for (int k = 0, n = s->nlink[p]; k < n; k++) {
      if (link[2 * k] < 0) {
        linkRow(m, d, link[2 * k + 1], tree, uf);
      } else {
        unite(uf, link[2 * k], link[2 * k + 1]);
      }
    }
    const int* rowrun = s->run + 2 * (size_t)s->first[p];
    for (int k = 0, n = s->nrun[p]; k < n; k++) {
      if (rowrun[2 * k + 1] >= 0) {
        label[rowrun[2 * k + 1]] = 0;
      }
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
    int root = mci_treeRoot(uf, tree[run[r]]);
    int island = label[root] <= -2 ? -2 - label[root] : -1;
    runisland[r] = island;
    for (int k = run[r]; k < run[r + 1]; k++) {
      d->dof_island[k] = island;
    }
  }

  // dofs and rows of every island, ascending
  bucketRuns(run, nrun, runisland, n, d->island_dofadr, d->island_dofnum, d->island_dofind,
             label);
  islandRows(d, s, n, efc_island, efcind, label);
  mc_freeStack(d);
  d->nisland = n;
  d->efc_island = efc_island;
  d->island_efcind = efcind;
}
