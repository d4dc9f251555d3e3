// Moduco plugin solver-pgs: the row-sparse AR + R of PGS (row-sparse efc_J, no elliptic rows)
// and its Gauss-Seidel sweep.
#include <math.h>
#include <string.h>

#include "pgs_dual.h"
#include "solver_internal.h"


// dofs of the ancestor closure of a row's columns, descending (the non-zeros of its row of B);
// mark: nv ints, mark[k] == tag for dofs already listed; return the count
static int rowClosure(const mcModel* m, const int* col, int ncol, int* mark, int tag, int* list) {
  int n = 0;
  for (int k = 0; k < ncol; k++) {
    for (int a = col[k]; a >= 0 && mark[a] != tag; a = m->dof_parentid[a]) {
      mark[a] = tag;
      list[n++] = a;
    }
  }

  // insertion sort, descending (lists are short: one or two chains)
  for (int i = 1; i < n; i++) {
    int v = list[i], j = i - 1;
    while (j >= 0 && list[j] < v) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = v;
  }
  return n;
}


int pgs_makeSparseAR(const mcpHost* host, const mcModel* m, mcData* d, PgsSparseAR* S) {
  int nv = m->nv, nefc = d->nefc;
  const int* rownnz = d->efc_J_rownnz;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const mcNum* LD = d->qLD;

  // root dof of every dof; closure sizes (the non-zeros of the rows of B)
  int* root = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  int* mark = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  int* list = host->stackAlloc(d, sizeof(int) * (size_t)nv, 16);
  mcNum* work = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  mcNum* sqrtinv = host->stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  int* badr = host->stackAlloc(d, sizeof(int) * ((size_t)nefc + 1), 16);
  int* tcount = host->stackAlloc(d, sizeof(int) * ((size_t)nv + 1), 16);
  int* stamp = host->stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  S->adr = host->stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  S->nnz = host->stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  S->diaginv = host->stackAlloc(d, sizeof(mcNum) * (size_t)nefc, 16);
  if (!root || !mark || !list || !work || !sqrtinv || !badr || !tcount || !stamp || !S->adr ||
      !S->nnz || !S->diaginv) {
    return 0;
  }
  for (int k = 0; k < nv; k++) {
    sqrtinv[k] = sqrt(d->qLDiagInv[k]);       // sqrt(inv(D)); qLDiagSqrtInv may be stale
  }
  for (int k = 0; k < nv; k++) {
    int p = parent[k];
    root[k] = p < 0 ? k : root[p];               // parents come first
    mark[k] = -1;
    work[k] = 0;
  }
  badr[0] = 0;
  for (int i = 0; i < nefc; i++) {
    const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
    badr[i + 1] = badr[i] + rowClosure(m, col, rownnz[i], mark, i, list);
  }
  int nnzB = badr[nefc];

  // rows of B (row-sparse on the closure): J_i, inv(L') from the leaves up, sqrt(inv(D))
  int* bcol = host->stackAlloc(d, sizeof(int) * ((size_t)nnzB + 1), 16);
  mcNum* bval = host->stackAlloc(d, sizeof(mcNum) * ((size_t)nnzB + 1), 16);
  int* trow = host->stackAlloc(d, sizeof(int) * ((size_t)nnzB + 1), 16);
  if (!bcol || !bval || !trow) {
    return 0;
  }
  for (int k = 0; k < nv; k++) {
    mark[k] = -1;
  }
  for (int i = 0; i < nefc; i++) {
    const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
    const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
    int n = rowClosure(m, col, rownnz[i], mark, i, bcol + badr[i]);
    const int* cl = bcol + badr[i];
    for (int k = 0; k < rownnz[i]; k++) {
      work[col[k]] = val[k];
    }
    for (int q = 0; q < n; q++) {
      int k = cl[q];
      mcNum xk = work[k];
      if (xk == 0) {
        continue;
      }
      int adr = Madr[k] + 1;
      for (int a = parent[k]; a >= 0; a = parent[a]) {
        work[a] -= LD[adr++] * xk;
      }
    }
    for (int q = 0; q < n; q++) {
      int k = cl[q];
      bval[badr[i] + q] = work[k] * sqrtinv[k];
      work[k] = 0;
    }
  }

  // rows of every tree (by root dof, CSR in tcount/trow): a row is in the trees of its columns
  memset(tcount, 0, sizeof(int) * ((size_t)nv + 1));
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nefc; i++) {
      for (int q = badr[i]; q < badr[i + 1]; q++) {
        if (parent[bcol[q]] >= 0) {
          continue;                               // roots only: one per tree of the row
        }
        if (pass == 0) {
          tcount[bcol[q] + 1]++;
        } else {
          trow[tcount[bcol[q]]++] = i;
        }
      }
    }
    if (pass == 0) {
      for (int t = 0; t < nv; t++) {
        tcount[t + 1] += tcount[t];
      }
    } else {
      for (int t = nv; t > 0; t--) {
        tcount[t] = tcount[t - 1];
      }
      tcount[0] = 0;
    }
  }

  // coupled rows of each row (itself first): count, allocate, fill
  int total = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      S->col = host->stackAlloc(d, sizeof(int) * ((size_t)total + 1), 16);
      S->val = host->stackAlloc(d, sizeof(mcNum) * ((size_t)total + 1), 16);
      if (!S->col || !S->val) {
        return 0;
      }
    }
    for (int i = 0; i < nefc; i++) {
      stamp[i] = -1;
    }
    int adr = 0;
    for (int i = 0; i < nefc; i++) {
      int n = 1;
      stamp[i] = i;
      if (pass == 1) {
        S->col[adr] = i;
      }
      for (int q = badr[i]; q < badr[i + 1]; q++) {
        int t = bcol[q];
        if (parent[t] >= 0) {
          continue;
        }
        for (int r = tcount[t]; r < tcount[t + 1]; r++) {
          int j = trow[r];
          if (stamp[j] != i) {
            stamp[j] = i;
            if (pass == 1) {
              S->col[adr + n] = j;
            }
            n++;
          }
        }
      }
      if (pass == 1) {
        S->adr[i] = adr;
        S->nnz[i] = n;
      }
      adr += n;
    }
    total = adr;
  }

  // values: B_i . B_j (B_i scattered into work), plus R on the diagonal
  for (int i = 0; i < nefc; i++) {
    for (int q = badr[i]; q < badr[i + 1]; q++) {
      work[bcol[q]] = bval[q];
    }
    for (int q = 0; q < S->nnz[i]; q++) {
      int j = S->col[S->adr[i] + q];
      mcNum v = 0;
      for (int r = badr[j]; r < badr[j + 1]; r++) {
        v += work[bcol[r]] * bval[r];
      }
      S->val[S->adr[i] + q] = v;
    }
    for (int q = badr[i]; q < badr[i + 1]; q++) {
      work[bcol[q]] = 0;
    }
    S->val[S->adr[i]] += d->efc_R[i];
    S->diaginv[i] = 1 / S->val[S->adr[i]];
  }
  d->solver_nnz = total;
  return 1;
}


mcNum pgs_sweepSparse(const PgsDual* P, mcNum* f, int* nchange, int* nactive) {
  const PgsSparseAR* S = P->S;
  mcNum improvement = 0;
  int change = 0, active = 0;
  for (int i = 0; i < P->nefc; i++) {
    const int* col = S->col + S->adr[i];
    const mcNum* val = S->val + S->adr[i];
    mcNum res = P->b[i];
    for (int k = 0; k < S->nnz[i]; k++) {
      res += val[k] * f[col[k]];
    }
    mcNum old = f[i];
    mcNum v = pgs_clampBox(P, i, old - res * P->diaginv[i]);
    mcNum delta = v - old;
    improvement -= delta * (res + 0.5 * val[0] * delta);
    f[i] = v;
    change += (old > 0) != (v > 0);
    active += v != 0;
  }
  *nchange = change;
  *nactive = active;
  return improvement;
}
