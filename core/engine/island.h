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

// mc_island with the root dofs (tree: mci_rootDofs, nv ints) and the trees of every row already
// found (pair: 2 x nefc ints, row i's by mci_rowTrees); either NULL: found here. Constraint
// assembly fills them beside the contact rows.
void mci_islandFrom(const mcModel* m, mcData* d, const int* tree, int* pair);

// tree[k]: the root dof of dof k (nv ints)
void mci_rootDofs(const mcModel* m, int* tree);

// the trees each row of [i0, i1) touches, in pair + 2 i (tree: mci_rootDofs): the first one (-1
// without non-zeros) and another one (-1 when none), or a negative mark when there are more
void mci_rowTrees(const mcModel* m, const mcData* d, const int* tree, int i0, int i1, int* pair);

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
