// Moduco core: constraint islands (private to libmoduco and white-box tests).
//
// An island is a set of kinematic trees coupled by constraint rows: the dofs of a tree are linked
// by the tree (the inertia is block-diagonal by trees), and a row links every tree its Jacobian
// touches. mc_island finds them after constraint assembly by union-find over the trees (root
// dofs), each row joining the trees of its non-zeros (and the rows of one contact joined
// together); islands are numbered by their first dof, their dofs and rows listed ascending, so
// the result depends only on the rows, never on timing. Trees that no row touches belong to no
// island (dof_island -1). mc_solveIslands then lets an island-capable solver plugin solve each
// island on its own (core/engine/island_solve.c), on the in-step thread pool when one is bound.
#ifndef MODUCO_CORE_ENGINE_ISLAND_H_
#define MODUCO_CORE_ENGINE_ISLAND_H_

#include <moduco/moduco.h>

// Discover the islands of the current rows: nisland, dof_island, island_dofadr/dofnum/dofind,
// island_efcadr/efcnum, efc_island and island_efcind (the last two in the arena). Islands are
// discovered when the model's island flag is on (mcENBL_ISLAND) and there are rows; else
// nisland is 0. A full arena or stack leaves nisland 0 (the whole problem is solved).
void mc_island(const mcModel* m, mcData* d);

// What island discovery takes from the rows, found part by part (on the workers of constraint
// assembly beside the rows, or in mc_island): part p is the rows first[p] .. first[p+1]-1 (first[0]
// 0, first[npart] nefc; every part starts at a constraint's first row, never inside a contact's
// rows). mci_rowSets(p) writes only part p's entries: its runs of rows of one tree (run + 2
// first[p]: the run's first row, its tree: the root dof of the row's first non-zero, or of the
// contact's row before; -1 without any) and the pairs of trees its rows join (link + 4 first[p];
// a pair (-1, row): a row touching more than two trees, joined by the caller). The islands then
// join the pairs (in any order: each set's root is its smallest tree) and number and list by runs.
#define MCI_MAXPARTS 128

typedef struct {
  const int* tree;                // root dof of every dof (mci_treeDofs, nv ints)
  const int* dofrun;              // the trees' runs of dofs (mci_treeDofs; NULL: found by mc_island)
  int ndofrun;
  int* run;                       // 2 x nefc ints
  int* link;                      // 4 x nefc ints
  int npart;
  int first[MCI_MAXPARTS + 1];
  int nrun[MCI_MAXPARTS];         // runs and pairs of each part
  int nlink[MCI_MAXPARTS];
} mciRowSets;

void mci_rowSets(const mcModel* m, const mcData* d, mciRowSets* s, int p);

// mc_island with the rows' parts already found (sets, all its parts by mci_rowSets; its tree the
// root dofs); NULL: found here (on d's pool for many rows)
void mci_islandFrom(const mcModel* m, mcData* d, const mciRowSets* sets);

// tree[k]: the root dof of dof k (nv ints); depth (nullable): the dofs on the chain from dof k to
// its root; run (nullable, nv + 1 ints): the runs of dofs of one tree (a tree's dofs are usually
// one run), run r the dofs run[r] .. run[r+1]-1; returns the number of runs (0 without run)
int mci_treeDofs(const mcModel* m, int* tree, int* depth, int* run);

// The sets of kinematic trees joined by the current rows (also used by sleeping, engine/sleep.c):
// tree[k] the root dof of dof k, uf a union-find over root dofs (the set of root dof r:
// mci_treeRoot(uf, r), its smallest root dof), rowtree[i] a tree of row i (-1: no non-zero).
// tree and uf: nv ints, rowtree: nefc ints.
void mci_treeSets(const mcModel* m, const mcData* d, int* tree, int* uf, int* rowtree);
int mci_treeRoot(int* uf, int x);

// Solve the constraint problem island by island with m->solver: 1 if done (efc_b, qacc,
// qfrc_constraint, qacc_warmstart, efc_force, efc_state, solver statistics and island_iter
// written), 0 if the whole problem must be solved as usual, efc_b included (the solver does not
// accept island views, no island, one island holding every dof, or no scratch memory).
int mc_solveIslands(const mcModel* m, mcData* d, int maxiter);

#endif  // MODUCO_CORE_ENGINE_ISLAND_H_
