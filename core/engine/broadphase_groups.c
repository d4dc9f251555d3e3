// Moduco core: the broad phase by groups of geoms (kinematic trees).
//
// Most of the box overlaps of a crowd of articulated bodies lie inside one tree, between geoms
// that the model's filters reject every step (same body, parent and child). The groups keep, per
// tree, the geom pairs that the filters let through, built once from the model; a step then
// sweeps the group cubes (the union of each group's geom cubes) and tests, inside each group,
// its listed pairs only, and across two groups whose cubes meet, the geoms of each that meet the
// other's cube. The pairs reported are exactly those of the exact box test over all pairs that
// the model's filters accept; the driver's own filters then decide as before.
//
// A group whose list would be long (more than MCI_GROUP_PAIRS_PER_GEOM pairs a geom, or past
// the reserve) is swept on its own instead. The groups live in the data's buffer
// (mci_groupCache): [head][snapshot][member][gstart][lstart][mode][pair].
#include <math.h>
#include <string.h>

#include "engine/broadphase.h"
#include "engine/io.h"

// groups kept for models of at most this many geoms (reserve: about 300 bytes a geom)
#define MCI_GROUP_MAXGEOM 2048

// a group lists its pairs while they are at most this many per geom (a listed pair costs one
// box test a step; a swept geom a few hundred instructions)
#define MCI_GROUP_PAIRS_PER_GEOM 32

struct mciGroups_ {
  int built;                      // 1 once built
  int nbox;                       // bounded collidable geoms at the build
  int ngroup;
  int npair;                      // listed pairs
  long saved;                     // pairs inside listed groups that the lists leave out
  int cap;                        // room for pairs
  int nsnap;                      // ints in the snapshot
  int member, gstart, lstart, mode, pair;  // offsets (ints from the snapshot's start)
};


// the model arrays a build reads, in snapshot order
typedef struct {
  const int* a;
  int n;
} Part;


static int snapshotParts(const mcModel* m, Part* p, int* flag) {
  p[0] = (Part){m->geom_type, m->ngeom};
  p[1] = (Part){m->geom_contype, m->ngeom};
  p[2] = (Part){m->geom_conaffinity, m->ngeom};
  p[3] = (Part){m->geom_bodyid, m->ngeom};
  p[4] = (Part){m->body_weldid, m->nbody};
  p[5] = (Part){m->body_parentid, m->nbody};
  p[6] = (Part){m->body_rootid, m->nbody};
  p[7] = (Part){m->exclude_signature, m->nexclude};
  *flag = (m->opt.disableflags & mcDSBL_FILTERPARENT) != 0;
  return 8;
}


static size_t snapshotInts(const mcModel* m) {
  return 4 * (size_t)m->ngeom + 3 * (size_t)m->nbody + (size_t)m->nexclude + 1;
}


static size_t pairCap(const mcModel* m) {
  return (size_t)MCI_GROUP_PAIRS_PER_GEOM * (size_t)m->ngeom + 256;
}


size_t mci_groupBytes(const mcModel* m) {
  if (m->ngeom < 2 || m->ngeom > MCI_GROUP_MAXGEOM || m->nbody < 1) {
    return 0;
  }
  size_t ints = snapshotInts(m) + 4 * (size_t)m->ngeom + 2 + 2 * pairCap(m);
  return sizeof(mciGroups) + sizeof(int) * ints;
}


static int* groupInts(const mciGroups* g) {
  return (int*)(g + 1);
}


// does the snapshot still match m? (else copy m into it and return 0)
static int snapshotMatches(const mcModel* m, mciGroups* g) {
  Part part[8];
  int flag;
  int np = snapshotParts(m, part, &flag), same = g->built;
  int* s = groupInts(g);
  for (int i = 0; i < np; i++) {
    size_t bytes = sizeof(int) * (size_t)part[i].n;
    if (same && bytes && memcmp(s, part[i].a, bytes) != 0) {
      same = 0;
    }
    if (!same && bytes) {
      memcpy(s, part[i].a, bytes);
    }
    s += part[i].n;
  }
  same = same && *s == flag;
  *s = flag;
  return same;
}


static int isBounded(const mcModel* m, int geom) {
  int t = m->geom_type[geom];
  return (m->geom_contype[geom] || m->geom_conaffinity[geom]) && t != mcGEOM_PLANE &&
         t != mcGEOM_HFIELD;
}


// build g from m (the snapshot already copied); 0 if the stack is full
static int build(const mcModel* m, mcData* d, mciGroups* g, mciAllowFn allow) {
  int ngeom = m->ngeom, nbody = m->nbody;
  int* base = groupInts(g);
  g->nsnap = (int)snapshotInts(m);
  g->member = g->nsnap;
  g->gstart = g->member + ngeom;
  g->lstart = g->gstart + ngeom + 1;
  g->mode = g->lstart + ngeom + 1;
  g->pair = g->mode + ngeom;
  g->cap = (int)pairCap(m);
  int* member = base + g->member;
  int* gstart = base + g->gstart;
  int* lstart = base + g->lstart;
  int* mode = base + g->mode;
  int* pair = base + g->pair;

  mc_markStack(d);
  int* groupOfRoot = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbody, _Alignof(int));
  int* groupOfBox = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)ngeom, _Alignof(int));
  int* geomOfBox = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)ngeom, _Alignof(int));
  if (!groupOfRoot || !groupOfBox || !geomOfBox) {
    mc_freeStack(d);
    return 0;
  }

  // the group of each box: its body's tree, or its own for a body welded to the world
  for (int b = 0; b < nbody; b++) {
    groupOfRoot[b] = -1;
  }
  int nbox = 0, ngroup = 0;
  for (int geom = 0; geom < ngeom; geom++) {
    if (!isBounded(m, geom)) {
      continue;
    }
    int body = m->geom_bodyid[geom], root = m->body_rootid[body];
    int grp;
    if (m->body_weldid[body] == 0 || root < 0 || root >= nbody) {
      grp = ngroup++;
    } else {
      if (groupOfRoot[root] < 0) {
        groupOfRoot[root] = ngroup++;
      }
      grp = groupOfRoot[root];
    }
    geomOfBox[nbox] = geom;
    groupOfBox[nbox++] = grp;
  }

  // members by group (counting sort: ascending box within a group)
  memset(gstart, 0, sizeof(int) * (size_t)(ngroup + 1));
  for (int i = 0; i < nbox; i++) {
    gstart[groupOfBox[i] + 1]++;
  }
  for (int k = 0; k < ngroup; k++) {
    gstart[k + 1] += gstart[k];
  }
  int* cursor = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)(ngroup + 1), _Alignof(int));
  if (!cursor) {
    mc_freeStack(d);
    return 0;
  }
  memcpy(cursor, gstart, sizeof(int) * (size_t)ngroup);
  for (int i = 0; i < nbox; i++) {
    member[cursor[groupOfBox[i]]++] = i;
  }

  // each group's pairs that the filters let through, or the sweep if they are too many
  int npair = 0;
  long saved = 0;
  lstart[0] = 0;
  for (int k = 0; k < ngroup; k++) {
    int n = gstart[k + 1] - gstart[k], start = npair;
    long budget = (long)MCI_GROUP_PAIRS_PER_GEOM * n;
    mode[k] = 0;
    for (int i = gstart[k]; i < gstart[k + 1] && !mode[k]; i++) {
      for (int j = i + 1; j < gstart[k + 1]; j++) {
        int bi = member[i], bj = member[j];
        if (!allow(m, geomOfBox[bi], geomOfBox[bj])) {
          continue;
        }
        if (npair - start >= budget || npair >= g->cap) {
          mode[k] = 1;
          npair = start;
          break;
        }
        pair[2 * npair] = bi;
        pair[2 * npair + 1] = bj;
        npair++;
      }
    }
    lstart[k + 1] = npair;
    saved += mode[k] ? 0 : (long)n * (n - 1) / 2 - (npair - start);
  }
  g->nbox = nbox;
  g->ngroup = ngroup;
  g->npair = npair;
  g->saved = saved;
  g->built = 1;
  mc_freeStack(d);
  return 1;
}


// (noinline: kept out of the driver's flattened dynamicPairs, whose sweep loop it would crowd)
__attribute__((noinline)) const mciGroups* mci_groups(const mcModel* m, mcData* d,
                                                      mciAllowFn allow) {
  mciGroups* g = (mciGroups*)mci_groupCache(m, d);
  if (!g) {
    return NULL;
  }
  if (snapshotMatches(m, g)) {
    return g;
  }
  g->built = 0;
  return build(m, d, g, allow) ? g : NULL;
}


// what the group pair and in-group tests read
typedef struct {
  const int* member;
  const int* gstart;
  const mciBox* box;
  const mciBox* cube;
  int* selA;                      // scratch: geoms of one group that meet the other's cube
  int* selB;
  mciPairFn fn;
  void* ctx;
} Across;


// the boxes of group k that meet cube (all of them when the group has one)
static int selectBoxes(const Across* a, int k, const mciBox* cube, int* sel) {
  int n = 0;
  for (int i = a->gstart[k]; i < a->gstart[k + 1]; i++) {
    int b = a->member[i];
    if (a->gstart[k + 1] - a->gstart[k] == 1 || mci_boxOverlap(a->box + b, cube)) {
      sel[n++] = b;
    }
  }
  return n;
}


// two groups whose cubes meet: the boxes of each that meet the other's cube, each against each
static void groupPair(void* arg, int ka, int kb) {
  const Across* a = (const Across*)arg;
  int na = selectBoxes(a, ka, a->cube + kb, a->selA);
  int nb = na ? selectBoxes(a, kb, a->cube + ka, a->selB) : 0;
  for (int i = 0; i < na; i++) {
    const mciBox* x = a->box + a->selA[i];
    for (int j = 0; j < nb; j++) {
      const mciBox* y = a->box + a->selB[j];
      if (mci_boxOverlap(x, y)) {
        a->fn(a->ctx, x->geom, y->geom);
      }
    }
  }
}


__attribute__((noinline)) int mci_groupPairs(mcData* d, const mciGroups* g, const mciBox* box,
                                             int nbox, mciPairFn listed, mciPairFn other,
                                             void* ctx) {
  if (!g || nbox != g->nbox || g->saved < nbox) {
    return -1;
  }
  if (nbox < 2) {
    return 1;
  }

  // every box finite (a NaN would hide inside a group cube; an overflowing sum only costs the
  // sweep)
  mcNum sum = 0;
  for (int i = 0; i < nbox; i++) {
    sum += box[i].c[0] + box[i].c[1] + box[i].c[2] + box[i].r;
  }
  if (!isfinite(sum)) {
    return -1;
  }

  const int* base = groupInts(g);
  const int* member = base + g->member;
  const int* gstart = base + g->gstart;
  const int* lstart = base + g->lstart;
  const int* mode = base + g->mode;
  const int* pair = base + g->pair;
  int ngroup = g->ngroup;

  mc_markStack(d);
  mciBox* cube = (mciBox*)mc_stackAlloc(d, sizeof(mciBox) * (size_t)ngroup, _Alignof(mciBox));
  int* sel = (int*)mc_stackAlloc(d, sizeof(int) * 2 * (size_t)nbox, _Alignof(int));
  mciBox* sub = (mciBox*)mc_stackAlloc(d, sizeof(mciBox) * (size_t)nbox, _Alignof(mciBox));
  if (!cube || !sel || !sub) {
    mc_freeStack(d);
    return 0;
  }

  // inside each group: its listed pairs, or a sweep of its boxes
  int ok = 1;
  for (int k = 0; k < ngroup && ok; k++) {
    if (mode[k]) {
      int n = gstart[k + 1] - gstart[k];
      for (int i = 0; i < n; i++) {
        sub[i] = box[member[gstart[k] + i]];
      }
      ok = mci_sweepPairsHinted(d, sub, n, other, ctx, NULL);
      continue;
    }
    for (int p = lstart[k]; p < lstart[k + 1]; p++) {
      const mciBox* x = box + pair[2 * p];
      const mciBox* y = box + pair[2 * p + 1];
      if (mci_boxOverlap(x, y)) {
        listed(ctx, x->geom, y->geom);
      }
    }
  }

  // across groups: the group cubes swept (the data's sweep order as the hint)
  for (int k = 0; k < ngroup; k++) {
    mci_boxUnion(box, member + gstart[k], gstart[k + 1] - gstart[k], k, cube + k);
  }
  Across across = {member, gstart, box, cube, sel, sel + nbox, other, ctx};
  ok = ok && mci_sweepPairs(d, cube, ngroup, groupPair, &across);
  mc_freeStack(d);
  return ok;
}
