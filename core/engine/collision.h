// Moduco core: collision detection (private to libmoduco).
//
// mc_collision fills d->contact / d->ncon from the geom poses of mc_kinematics: candidate pairs
// come from the explicit <contact><pair> list and from a broad phase over the bounding cubes of the
// geoms (sweep and prune, engine/broadphase.c, or for many geoms a hashed uniform grid, O(n)
// expected; planes and the few geoms much larger than the rest are tested against all), filtered
// once per pair, cheapest filter first, and put in MuJoCo's
// order by a counting sort on the body-pair signature; the narrow phase is a table of collide
// functions indexed by geom type, filled once per process from the registered collision plugins
// (highest priority wins). Contacts are allocated from the start of the arena, scratch from the
// stack; nothing here calls malloc.
#ifndef MODUCO_CORE_ENGINE_COLLISION_H_
#define MODUCO_CORE_ENGINE_COLLISION_H_

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

// Detect all contacts: d->ncon, d->contact (arena start). Needs geom_xpos and geom_xmat.
void mc_collision(const mcModel* m, mcData* d);

// A pipeline stage that can run beside collision (it must not use d's scratch stack, nor read or
// write what collision does).
typedef void (*mciStageFn)(const mcModel* m, mcData* d);

// mc_collision, also running extra (nullable) once: with a thread pool bound, beside the broad
// phase on a thread's view of d (mci_runBeside; mc_fwdPosition overlaps the inertia stage with
// it), else first.
void mci_collisionWith(const mcModel* m, mcData* d, mciStageFn extra);

// The broad phase and the filters alone (no narrow phase, d->contact untouched): the number of
// candidate pairs mc_collision would collide, -1 if the stack is full. For benchmarks and tests.
int mci_collisionPairs(const mcModel* m, mcData* d);

// The same pairs themselves, in the order the narrow phase collides them: candidate i is geoms
// g1[i], g2[i] (a dynamic pair: the geom of the lower body first; an explicit pair: its geoms as
// listed, ipair[i] its index, else -1), the first cap written; return the count as
// mci_collisionPairs. For tests.
int mci_collisionCandidates(const mcModel* m, mcData* d, int* g1, int* g2, int* ipair, int cap);

// The collide function for a geom-type pair (either order), NULL if no plugin covers it.
// Scans the plugin path on first use; the table is fixed afterwards.
mcpfCollide mci_collisionFunc(int type1, int type2);

// The same for model m: with mcENBL_NATIVECCD in m->opt.enableflags the nativeccd plugins
// (collision-gjk) take part, otherwise not (m NULL: not)
mcpfCollide mci_collisionFuncFor(const mcModel* m, int type1, int type2);

// Write a message listing the geom-type pairs of this model that can collide but have no
// collide function (one line per type pair); return how many. For the compiler: call once per
// model so unsupported pairs are reported at compile time, not silently dropped.
int mci_collisionCheck(const mcModel* m, char* msg, int msg_sz);

// Mix the contact parameters of geoms g1, g2 into con (dim, friction, solref, solreffriction,
// solimp) and return margin and gap (MuJoCo's rules: priority, solmix, max friction/condim; the
// sums of the margins and of the gaps as 3.14, the larger of each with mcENBL_LEGACYMARGIN).
void mci_contactParam(const mcModel* m, mcContact* con, int g1, int g2,
                      mcNum* margin, mcNum* gap);

// Complete a contact frame whose first row is the normal: normalize it, orthogonalize the second
// row (or pick one when it is zero) and set the third to their cross product.
void mci_makeFrame(mcNum frame[9]);

// Does the pair (g1, g2) pass the bounding-sphere filter with the given margin (planes: the
// other geom's bounding sphere against the half space)?
int mci_boundingFilter(const mcModel* m, const mcData* d, int g1, int g2, mcNum margin);

// Body-pair filters of dynamically generated pairs: same weld body, parent-child (unless
// mcDSBL_FILTERPARENT or the parent is the world), <exclude>. Return 1 if the pair is removed.
int mci_bodyFilter(const mcModel* m, int b1, int b2);

// A new contact at the end of d's list (arena; d->ncon not yet counted), or NULL with
// mcWARN_CONTACTFULL when nconmax or the arena is reached.
mcContact* mci_newContact(const mcModel* m, mcData* d);

// One step of the narrow phase: collide candidate i of list and append its contacts to d's arena
// (scratch: mcMAXCONPAIR zeroed contacts, left zeroed); 0 when the arena or nconmax is full.
typedef int (*mciNarrowFn)(const mcModel* m, mcData* d, mcContact* scratch, const void* list,
                           int i);

// The estimated cost of candidate i of list in the narrow phase (any unit, >= 1): only how the
// candidates are cut into tasks depends on it, never a contact
typedef int (*mciNarrowCostFn)(const mcModel* m, const void* list, int i);

// Cut candidates 0 .. n-1 into ntask chunks of about equal cost (cost NULL: of equal counts):
// chunk k is candidates first[k] .. first[k+1]-1 (first[0] = 0, first[ntask] = n, nondecreasing).
// A chunk's cost stays under the even share plus one candidate's. sum: room for n sums of
// costs (one call of cost a candidate), or NULL (two calls a candidate).
void mci_narrowChunks(const mcModel* m, const void* list, int n, mciNarrowCostFn cost, int ntask,
                      int* first, long* sum);

// The narrow phase over candidates 0 .. n-1 on d's bound thread pool (core/engine/
// collision_narrow.c): chunks of candidates are collided into each thread's own memory, then
// appended to d in candidate order, so d->contact is bitwise what the serial loop makes; a chunk
// that does not fit a thread's memory is collided again on the caller, with scratch (mcMAXCONPAIR
// contacts on d's stack, the serial loop's: zeroed here when needed). The chunks are cut by cost
// (mci_narrowChunks; cost may be NULL) unless cut is the chunk count mci_narrowCutAhead returned
// for these candidates (then they are taken as cut). The task tables are the pool workspace's, so
// the narrow phase takes no more of d's stack than the serial loop and a full arena holds the
// same contacts. Return 0 if the arena or nconmax filled up (the serial loop stops at the same
// contact).
int mci_narrowParallel(const mcModel* m, mcData* d, const void* list, int n, mciNarrowFn fn,
                       mciNarrowCostFn cost, mcContact* scratch, int cut);

// Cut mci_narrowParallel's chunks of candidates 0 .. n-1 of list ahead, into d's pool tables
// (the chunks the job would cut: mci_narrowChunks), so that the cost pass runs where the list was
// just made (the broad-phase task, on a helper) and not on the caller; return the chunk count, to
// pass to mci_narrowParallel as cut (0: not cut, the job cuts). Nothing else may use the tables
// between the two calls. The costs' sums take d's stack for the call when it has room to spare
// (one call of cost a candidate, else two): nothing else may use d's stack meanwhile (the
// broad-phase task owns d in its job; the other tasks work in their threads' views).
int mci_narrowCutAhead(const mcModel* m, mcData* d, const void* list, int n,
                       mciNarrowCostFn cost);

#endif  // MODUCO_CORE_ENGINE_COLLISION_H_
