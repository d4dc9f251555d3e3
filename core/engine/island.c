// Moduco core: constraint island discovery (union-find over kinematic trees linked by rows).
#include "engine/island.h"

#include <string.h>

#include "engine/io.h"


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


void mci_treeSets(const mcModel* m, const mcData* d, int* tree, int* uf, int* rowtree) {
  // trees (root dof of every dof; parents come first), each its own set
  for (int k = 0; k < m->nv; k++) {
    int p = m->dof_parentid[k];
    tree[k] = p < 0 ? k : tree[p];
    uf[k] = k;
  }

  // rows join the trees they touch; the rows of one contact join each other
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


void mc_island(const mcModel* m, mcData* d) {
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
  int* tree = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* uf = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  int* label = mc_stackAlloc(d, sizeof(int) * (size_t)nv, _Alignof(int));
  if (!efc_island || !efcind || !tree || !uf || !label) {
    mc_freeStack(d);
    d->parena = parena0;
    return;
  }

  mci_treeSets(m, d, tree, uf, efc_island);
  for (int k = 0; k < nv; k++) {
    label[k] = -1;                // 0: the tree (later: the set) has a row
  }
  for (int i = 0; i < nefc; i++) {
    if (efc_island[i] >= 0) {     // for now: a tree of the row
      label[efc_island[i]] = 0;
    }
  }

  // mark the sets that hold a row at their root (the smallest root dof: the set's first dof),
  // then number them by first dof
  for (int k = 0; k < nv; k++) {
    if (label[k] == 0) {
      label[mci_treeRoot(uf, k)] = 0;
    }
  }
  int n = 0;
  for (int k = 0; k < nv; k++) {
    int r = mci_treeRoot(uf, tree[k]);
    if (k == r && label[r] == 0) {
      label[r] = -2 - n++;        // a root with a row, numbered (encoded below -1)
    }
  }
  for (int k = 0; k < nv; k++) {
    int r = mci_treeRoot(uf, tree[k]);
    int hasrow = label[r] <= -2;
    d->dof_island[k] = hasrow ? -2 - label[r] : -1;
  }

  // island of every row; a row without non-zeros couples nothing: island 0
  for (int i = 0; i < nefc; i++) {
    efc_island[i] = efc_island[i] >= 0 ? d->dof_island[efc_island[i]] : 0;
  }

  // dofs and rows of every island, ascending
  bucket(d->dof_island, nv, n, d->island_dofadr, d->island_dofnum, d->island_dofind, label);
  bucket(efc_island, nefc, n, d->island_efcadr, d->island_efcnum, efcind, label);
  mc_freeStack(d);
  d->nisland = n;
  d->efc_island = efc_island;
  d->island_efcind = efcind;
}
