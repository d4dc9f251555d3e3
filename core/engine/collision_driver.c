// Moduco core: collision driver. Pair generation (explicit pairs and a broad phase over bounding
// cubes: body cubes then geom cubes for bodies of several geoms, sweep and prune,
// engine/broadphase.c, or a hashed grid for many geoms), the four filters, contact parameter
// mixing and the collide-function table built from the collision plugins.
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/broadphase.h"
#include "engine/collision.h"
#include "engine/engine.h"
#include "engine/io.h"
#include "engine/plugin_check.h"
#include "engine/sleep.h"
#include "engine/threadpool.h"
#include "plugin/registry.h"

// a candidate geom pair: explicit pairs (kind 0) sort before dynamic pairs (kind 1) of the same
// body-pair signature; a and b are the pair index (kind 0) or the geoms of the lower and the
// higher body (kind 1)
typedef struct {
  uint32_t sig;
  int kind;
  int a;
  int b;
} mciCandidate;

static const char* const g_typename[mcNGEOMTYPES] = {
  "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"
};


//---------------------------------- collide-function table ----------------------------------------

// two tables: [0] without, [1] with the collision plugins that serve the nativeccd flag
// (MuJoCo 3.x's native convex collision, plugins/collision-gjk): a model picks [1] when its
// opt.enableflags has mcENBL_NATIVECCD (docs/status.md, "Native convex collision")
static mcpfCollide g_table[2][mcNGEOMTYPES][mcNGEOMTYPES];
static mcpfCollide g_both[2][mcNGEOMTYPES][mcNGEOMTYPES];  // the same, both orders of each pair
static pthread_once_t g_tableOnce = PTHREAD_ONCE_INIT;
static int g_reported[mcNGEOMTYPES][mcNGEOMTYPES];
static pthread_mutex_t g_reportLock = PTHREAD_MUTEX_INITIALIZER;

// fill the tables once: plugins come by descending priority, the first to cover a pair wins
static void buildTable(void) {
  mc_pluginScan();
  int n = mcp_collisionCount();
  for (int i = 0; i < n; i++) {
    const mcpCollision* c = mcp_collision(i);
    if (!c || !c->pair) {
      continue;
    }
    int native = mcp_collisionNativeOnly(c);
    for (int k = 0; k < c->npair; k++) {
      const mcpCollisionPair* p = c->pair + k;
      if (p->type1 < 0 || p->type2 < 0 || p->type1 >= mcNGEOMTYPES ||
          p->type2 >= mcNGEOMTYPES || p->type1 > p->type2 || !p->collide) {
        mci_message("collision plugin '%s': bad pair entry %d (types %d, %d) ignored",
                    c->hdr.name, k, p->type1, p->type2);
        continue;
      }
      for (int t = native; t < 2; t++) {
        if (!g_table[t][p->type1][p->type2]) {
          g_table[t][p->type1][p->type2] = p->collide;
        }
      }
    }
  }
  for (int t = 0; t < 2; t++) {
    for (int t1 = 0; t1 < mcNGEOMTYPES; t1++) {
      for (int t2 = 0; t2 < mcNGEOMTYPES; t2++) {
        g_both[t][t1][t2] = t1 <= t2 ? g_table[t][t1][t2] : g_table[t][t2][t1];
      }
    }
  }
}


mcpfCollide mci_collisionFuncFor(const mcModel* m, int type1, int type2) {
  if (type1 < 0 || type2 < 0 || type1 >= mcNGEOMTYPES || type2 >= mcNGEOMTYPES) {
    return NULL;
  }
  pthread_once(&g_tableOnce, buildTable);
  int t = m && (m->opt.enableflags & mcENBL_NATIVECCD) ? 1 : 0;
  return type1 <= type2 ? g_table[t][type1][type2] : g_table[t][type2][type1];
}


// the whole table of m's flags, both orders of every type pair (one pthread_once per step, not
// one per type pair; built once per process, not copied per step)
typedef mcpfCollide (*mciCollideTable)[mcNGEOMTYPES];
static mciCollideTable collisionTable(const mcModel* m) {
  pthread_once(&g_tableOnce, buildTable);
  return g_both[m->opt.enableflags & mcENBL_NATIVECCD ? 1 : 0];
}


mcpfCollide mci_collisionFunc(int type1, int type2) {
  return mci_collisionFuncFor(NULL, type1, type2);
}


// type pairs MuJoCo itself never collides (static infinite or grid geoms against each other)
static int staticTypePair(int t1, int t2) {
  return (t1 == mcGEOM_PLANE || t1 == mcGEOM_HFIELD) && (t2 == mcGEOM_PLANE || t2 == mcGEOM_HFIELD);
}


// report an unsupported type pair once per process
static void reportUnsupported(int t1, int t2) {
  if (t1 > t2) {
    int t = t1;
    t1 = t2;
    t2 = t;
  }
  pthread_mutex_lock(&g_reportLock);
  int first = !g_reported[t1][t2];
  g_reported[t1][t2] = 1;
  pthread_mutex_unlock(&g_reportLock);
  if (first) {
    mci_message("collision: no collide function for geom types %s-%s (no plugin covers the "
                "pair); such pairs produce no contacts", g_typename[t1], g_typename[t2]);
  }
}


int mci_collisionCheck(const mcModel* m, char* msg, int msg_sz) {
  int present[mcNGEOMTYPES] = {0};
  for (int i = 0; i < m->ngeom; i++) {
    int t = m->geom_type[i];
    if (t >= 0 && t < mcNGEOMTYPES && (m->geom_contype[i] || m->geom_conaffinity[i])) {
      present[t] = 1;
    }
  }
  for (int i = 0; i < m->npair; i++) {
    present[m->geom_type[m->pair_geom1[i]]] = 1;
    present[m->geom_type[m->pair_geom2[i]]] = 1;
  }

  // every present type pair without a function
  int count = 0, len = 0;
  if (msg && msg_sz > 0) {
    msg[0] = 0;
  }
  for (int t1 = 0; t1 < mcNGEOMTYPES; t1++) {
    for (int t2 = t1; t2 < mcNGEOMTYPES; t2++) {
      if (!present[t1] || !present[t2] || staticTypePair(t1, t2) ||
          mci_collisionFuncFor(m, t1, t2)) {
        continue;
      }
      count++;
      if (msg && len < msg_sz) {
        len += snprintf(msg + len, (size_t)(msg_sz - len),
                        "no collide function for geom types %s-%s\n", g_typename[t1],
                        g_typename[t2]);
      }
    }
  }
  return count;
}


//---------------------------------- contact parameters --------------------------------------------

// Margin and gap of the pair of geoms g1, g2. MuJoCo 3.14 adds the two geoms' margins and the two
// gaps; MuJoCo 2.2.2 (and 3.3.8) took the larger of each, which mcENBL_LEGACYMARGIN restores
// (docs/mujoco3.md, "Margin and gap").
static inline void geomMarginGap(const mcModel* m, int g1, int g2, mcNum* margin,
                                 mcNum* gap) {
  if (m->opt.enableflags & mcENBL_LEGACYMARGIN) {
    *margin = fmax(m->geom_margin[g1], m->geom_margin[g2]);
    *gap = fmax(m->geom_gap[g1], m->geom_gap[g2]);
  } else {
    *margin = m->geom_margin[g1] + m->geom_margin[g2];
    *gap = m->geom_gap[g1] + m->geom_gap[g2];
  }
}


// the distance below which the pair is detected (MuJoCo 3.14: margin + gap; 2.2.2: the margin)
static mcNum detectDistance(const mcModel* m, mcNum margin, mcNum gap) {
  return (m->opt.enableflags & mcENBL_LEGACYMARGIN) ? margin : margin + gap;
}


// the distance below which a detected contact makes constraint rows (MuJoCo 3.14: the margin,
// contacts in the gap above it are kept without rows; 2.2.2: the margin less the gap)
static mcNum includeMargin(const mcModel* m, mcNum margin, mcNum gap) {
  return (m->opt.enableflags & mcENBL_LEGACYMARGIN) ? margin - gap : margin;
}


void mci_contactParam(const mcModel* m, mcContact* con, int g1, int g2,
                      mcNum* margin, mcNum* gap) {
  int p1 = m->geom_priority[g1], p2 = m->geom_priority[g2];
  mcNum fri[3];

  // higher priority wins outright
  if (p1 != p2) {
    int g = p1 > p2 ? g1 : g2;
    con->dim = m->geom_condim[g];
    for (int k = 0; k < 3; k++) {
      fri[k] = m->geom_friction[3*g + k];
    }
    for (int k = 0; k < mcNREF; k++) {
      con->solref[k] = m->geom_solref[mcNREF*g + k];
    }
    for (int k = 0; k < mcNIMP; k++) {
      con->solimp[k] = m->geom_solimp[mcNIMP*g + k];
    }
  } else {
    // equal priority: max condim and friction, solmix-weighted solref and solimp
    con->dim = m->geom_condim[g1] > m->geom_condim[g2] ? m->geom_condim[g1] : m->geom_condim[g2];
    for (int k = 0; k < 3; k++) {
      fri[k] = fmax(m->geom_friction[3*g1 + k], m->geom_friction[3*g2 + k]);
    }
    mcNum s1 = m->geom_solmix[g1], s2 = m->geom_solmix[g2], mix;
    if (s1 < mcMINVAL && s2 < mcMINVAL) {
      mix = 0.5;
    } else if (s1 < mcMINVAL) {
      mix = 0;
    } else if (s2 < mcMINVAL) {
      mix = 1;
    } else {
      mix = s1 / (s1 + s2);
    }
    const mcNum* r1 = m->geom_solref + mcNREF*g1;
    const mcNum* r2 = m->geom_solref + mcNREF*g2;
    for (int k = 0; k < mcNREF; k++) {
      // standard (positive) references mix; direct (non-positive) ones take the minimum
      con->solref[k] = (r1[0] > 0 && r2[0] > 0) ? mix*r1[k] + (1 - mix)*r2[k] : fmin(r1[k], r2[k]);
    }
    for (int k = 0; k < mcNIMP; k++) {
      con->solimp[k] = mix*m->geom_solimp[mcNIMP*g1 + k] + (1 - mix)*m->geom_solimp[mcNIMP*g2 + k];
    }
  }

  // friction: slide, slide, spin, roll, roll
  con->friction[0] = fri[0];
  con->friction[1] = fri[0];
  con->friction[2] = fri[1];
  con->friction[3] = fri[2];
  con->friction[4] = fri[2];
  for (int k = 0; k < mcNREF; k++) {
    con->solreffriction[k] = 0;
  }

  geomMarginGap(m, g1, g2, margin, gap);
}


// parameters of an explicit pair
static void pairParam(const mcModel* m, mcContact* con, int ipair, mcNum* margin, mcNum* gap) {
  con->dim = m->pair_dim[ipair];
  for (int k = 0; k < 5; k++) {
    con->friction[k] = m->pair_friction[5*ipair + k];
  }
  for (int k = 0; k < mcNREF; k++) {
    con->solref[k] = m->pair_solref[mcNREF*ipair + k];
    con->solreffriction[k] = 0;
  }
  for (int k = 0; k < mcNIMP; k++) {
    con->solimp[k] = m->pair_solimp[mcNIMP*ipair + k];
  }
  *margin = m->pair_margin[ipair];
  *gap = m->pair_gap[ipair];
}


//---------------------------------- frames and filters --------------------------------------------

void mci_makeFrame(mcNum f[9]) {
  // normalize the normal
  mcNum nn = sqrt(f[0]*f[0] + f[1]*f[1] + f[2]*f[2]);
  if (nn < mcMINVAL) {
    f[0] = 1;
    f[1] = f[2] = 0;
  } else {
    f[0] /= nn;
    f[1] /= nn;
    f[2] /= nn;
  }

  // second axis: given, else world y unless the normal is close to it, then world z
  if (f[3]*f[3] + f[4]*f[4] + f[5]*f[5] < 0.25) {
    f[3] = f[4] = f[5] = 0;
    if (f[1] < 0.5 && f[1] > -0.5) {
      f[4] = 1;
    } else {
      f[5] = 1;
    }
  }

  // orthogonalize against the normal and normalize
  mcNum dot = f[0]*f[3] + f[1]*f[4] + f[2]*f[5];
  f[3] -= dot*f[0];
  f[4] -= dot*f[1];
  f[5] -= dot*f[2];
  mcNum ny = sqrt(f[3]*f[3] + f[4]*f[4] + f[5]*f[5]);
  if (ny < mcMINVAL) {
    // second axis parallel to the normal: world x, as MuJoCo does
    f[3] = 1;
    f[4] = f[5] = 0;
  } else {
    f[3] /= ny;
    f[4] /= ny;
    f[5] /= ny;
  }

  // third axis: normal x second
  f[6] = f[1]*f[5] - f[2]*f[4];
  f[7] = f[2]*f[3] - f[0]*f[5];
  f[8] = f[0]*f[4] - f[1]*f[3];
}


// the bounding filter (mci_boundingFilter), inlined into the broad phase; bounded: neither geom
// is a plane or a height field (the test of two spheres alone)
static inline int boundingTest(const mcModel* m, const mcData* d, int g1, int g2,
                               mcNum margin, int bounded) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];

  // height fields have no bounding sphere (rbound 0, as in MuJoCo): never culled here
  if (!bounded && (t1 == mcGEOM_HFIELD || t2 == mcGEOM_HFIELD)) {
    return 1;
  }
  const mcNum* p1 = d->geom_xpos + 3*g1;
  const mcNum* p2 = d->geom_xpos + 3*g2;

  // plane: the other geom's sphere against the half space
  if (!bounded && (t1 == mcGEOM_PLANE || t2 == mcGEOM_PLANE)) {
    if (t1 == mcGEOM_PLANE && t2 == mcGEOM_PLANE) {
      return 0;
    }
    int gp = t1 == mcGEOM_PLANE ? g1 : g2, go = t1 == mcGEOM_PLANE ? g2 : g1;
    const mcNum* pp = d->geom_xpos + 3*gp;
    const mcNum* po = d->geom_xpos + 3*go;
    const mcNum* mat = d->geom_xmat + 9*gp;
    mcNum h = (po[0] - pp[0])*mat[2] + (po[1] - pp[1])*mat[5] + (po[2] - pp[2])*mat[8];
    return h <= margin + m->geom_rbound[go];
  }

  // two spheres
  mcNum dx = p1[0] - p2[0], dy = p1[1] - p2[1], dz = p1[2] - p2[2];
  mcNum r = m->geom_rbound[g1] + m->geom_rbound[g2] + margin;
  return dx*dx + dy*dy + dz*dz <= r*r;
}


int mci_boundingFilter(const mcModel* m, const mcData* d, int g1, int g2, mcNum margin) {
  return boundingTest(m, d, g1, g2, margin, 0);
}


// index of sig in a list of signatures; sorted lists are searched by bisection
static int findSignature(const int* list, int n, int sorted, int sig) {
  if (sorted) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) / 2;
      if (list[mid] == sig) {
        // first of equal signatures
        while (mid > 0 && list[mid - 1] == sig) {
          mid--;
        }
        return mid;
      }
      if (list[mid] < sig) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return -1;
  }
  for (int i = 0; i < n; i++) {
    if (list[i] == sig) {
      return i;
    }
  }
  return -1;
}


static int isSorted(const int* list, int n) {
  for (int i = 1; i < n; i++) {
    if (list[i] < list[i - 1]) {
      return 0;
    }
  }
  return 1;
}


static uint32_t bodySignature(int b1, int b2) {
  if (b1 > b2) {
    int t = b1;
    b1 = b2;
    b2 = t;
  }
  return ((uint32_t)(b1 + 1) << 16) + (uint32_t)(b2 + 1);
}


// is the geom pair one of the explicit pairs (either order)?
static int isExplicitPair(const mcModel* m, int sorted, uint32_t sig, int g1, int g2) {
  if (!m->npair) {
    return 0;
  }
  int i = findSignature(m->pair_signature, m->npair, sorted, (int)sig);
  if (i < 0) {
    return 0;
  }
  for (; i < m->npair; i++) {
    if (sorted && m->pair_signature[i] != (int)sig) {
      break;
    }
    int p1 = m->pair_geom1[i], p2 = m->pair_geom2[i];
    if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) {
      return 1;
    }
  }
  return 0;
}


//---------------------------------- sorting (no malloc) -------------------------------------------

static int candidateLess(const mciCandidate* x, const mciCandidate* y) {
  if (x->sig != y->sig) {
    return x->sig < y->sig;
  }
  if (x->kind != y->kind) {
    return x->kind < y->kind;
  }
  if (x->a != y->a) {
    return x->a < y->a;
  }
  return x->b < y->b;
}


// heap sort of candidates (keys are unique, so stability does not matter)
static void siftCandidates(mciCandidate* c, int start, int end) {
  int root = start;
  while (2*root + 1 <= end) {
    int child = 2*root + 1, swap = root;
    if (candidateLess(c + swap, c + child)) {
      swap = child;
    }
    if (child + 1 <= end && candidateLess(c + swap, c + child + 1)) {
      swap = child + 1;
    }
    if (swap == root) {
      return;
    }
    mciCandidate t = c[root];
    c[root] = c[swap];
    c[swap] = t;
    root = swap;
  }
}


// sort a short run by insertion, a long one by heap sort
static void sortRun(mciCandidate* c, int n) {
  if (n <= 16) {
    for (int i = 1; i < n; i++) {
      mciCandidate t = c[i];
      int j = i;
      while (j > 0 && candidateLess(&t, c + j - 1)) {
        c[j] = c[j - 1];
        j--;
      }
      c[j] = t;
    }
    return;
  }
  for (int start = n/2 - 1; start >= 0; start--) {
    siftCandidates(c, start, n - 1);
  }
  for (int end = n - 1; end > 0; end--) {
    mciCandidate t = c[0];
    c[0] = c[end];
    c[end] = t;
    siftCandidates(c, 0, end - 1);
  }
}


// stable counting sort of src into dst by the 16-bit field of the signature at shift; count has
// nkey + 1 entries (the field is below nkey)
static void countingPass(const mciCandidate* src, mciCandidate* dst, int n, int* count, int nkey,
                         int shift) {
  memset(count, 0, sizeof(int) * (size_t)(nkey + 1));
  for (int i = 0; i < n; i++) {
    count[((src[i].sig >> shift) & 0xffffu) + 1]++;
  }
  for (int k = 0; k < nkey; k++) {
    count[k + 1] += count[k];
  }
  for (int i = 0; i < n; i++) {
    dst[count[(src[i].sig >> shift) & 0xffffu]++] = src[i];
  }
}


// sort c in place by (sig, kind, a, b), tmp (as long) as scratch: one stable counting pass by the
// lower body's field of the signature into tmp, then each bucket (one body's pairs with the bodies
// above it) sorted by the whole key on its way back: a short one by insertion, a long one (a body
// with many neighbours, the world's geoms) as the whole list was before, by a counting pass on the
// higher body's field and runs of one signature; a long bucket already in order (the plane pairs
// come in body order) is copied. Keys are unique, so this is the order of any sort. count has
// 2 nkey + 2 entries (nkey above both bodies' fields)
static void sortCandidates(mciCandidate* c, mciCandidate* tmp, int n, int* count, int nkey) {
  int* wide = count + nkey + 1;   // the long buckets' counts (count keeps the bucket ends)
  countingPass(c, tmp, n, count, nkey, 16);
  for (int start = 0, end; start < n; start = end) {
    end = count[(tmp[start].sig >> 16) & 0xffffu];   // after the pass: the end of the bucket
    int len = end - start;
    if (len == 1) {
      c[start] = tmp[start];
      continue;
    }
    if (len > 16) {
      int sorted = 1;
      for (int i = start + 1; sorted && i < end; i++) {
        sorted = candidateLess(tmp + i - 1, tmp + i);
      }
      if (sorted) {
        memcpy(c + start, tmp + start, sizeof(mciCandidate) * (size_t)len);
        continue;
      }
      countingPass(tmp + start, c + start, len, wide, nkey, 0);
      for (int r = start, q; r < end; r = q) {
        for (q = r + 1; q < end && c[q].sig == c[r].sig; q++) {
        }
        if (q - r > 1) {
          sortRun(c + r, q - r);
        }
      }
      continue;
    }
    for (int i = start; i < end; i++) {
      mciCandidate t = tmp[i];
      int j = i;
      while (j > start && candidateLess(&t, c + j - 1)) {
        c[j] = c[j - 1];
        j--;
      }
      c[j] = t;
    }
  }
}


//---------------------------------- broad phase ---------------------------------------------------

// context of the candidate tests (built once per call)
typedef struct {
  const mcModel* m;
  const mcData* d;
  int pairSorted;
  int excludeSorted;
  int checkExplicit;              // collision="all": explicit pairs replace dynamic ones
  int override;
  mciCollideTable func;           // both orders (collisionTable)
  mciCandidate* out;              // surviving dynamic pairs (up to cap; n counts all)
  int n;
  int cap;
} mciBroad;


// the weld-body filters (same weld body; parent-child of weld bodies unless the parent is the
// world)
static int weldFilter(const mcModel* m, int b1, int b2) {
  int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
  if (w1 == w2) {
    return 1;
  }
  if (!(m->opt.disableflags & mcDSBL_FILTERPARENT)) {
    int pw1 = m->body_weldid[m->body_parentid[w1]];
    int pw2 = m->body_weldid[m->body_parentid[w2]];
    if ((w1 != 0 && pw2 == w1) || (w2 != 0 && pw1 == w2)) {
      return 1;
    }
  }
  return 0;
}


// is the body pair excluded (either order)? The exclude list is bisected if sorted
static int excludedPair(const mcModel* m, int b1, int b2, int excludeSorted) {
  if (!m->nexclude) {
    return 0;
  }
  int lo = b1 < b2 ? b1 : b2, hi = b1 < b2 ? b2 : b1;
  int sig = (lo + 1) * 65536 + hi + 1, rev = (hi + 1) * 65536 + lo + 1;
  return findSignature(m->exclude_signature, m->nexclude, excludeSorted, sig) >= 0 ||
         findSignature(m->exclude_signature, m->nexclude, excludeSorted, rev) >= 0;
}


// body filters (same weld body, parent-child, exclude)
static int bodyFilter(const mcModel* m, int b1, int b2, int excludeSorted) {
  return weldFilter(m, b1, b2) || excludedPair(m, b1, b2, excludeSorted);
}


int mci_bodyFilter(const mcModel* m, int b1, int b2) {
  return bodyFilter(m, b1, b2, 0);
}


// the filters of a dynamically generated geom pair, cheapest first; a survivor is appended to
// ctx->out (counted even when the list is full). bounded: the pair comes from the geom cubes, so
// neither geom is a plane or a height field; listed: the pair comes from a group's list
// (mci_groups), which the model's filters (contype, weld, parent, exclude) already passed
static inline void testPair(mciBroad* ctx, int g1, int g2, int bounded, int listed) {
  const mcModel* m = ctx->m;

  // contype / conaffinity
  if (!listed && !((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
                   (m->geom_contype[g2] & m->geom_conaffinity[g1]))) {
    return;
  }

  // body filters: same weld, parent-child (the exclude list, a bisection, after the cheaper
  // bounding test: the filters only AND, so the survivors are the same)
  int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  if ((!listed && weldFilter(m, b1, b2)) || mc_sleepSkipPair(m, ctx->d, b1, b2)) {
    return;
  }

  // a collide function exists (an excluded pair is not reported, as before the reorder)
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  if (!ctx->func[t1][t2]) {
    if (!staticTypePair(t1, t2) && (listed || !excludedPair(m, b1, b2, ctx->excludeSorted))) {
      reportUnsupported(t1, t2);
    }
    return;
  }

  // bounding spheres grown by the detection distance (with the override margin if enabled)
  mcNum margin, gap;
  geomMarginGap(m, g1, g2, &margin, &gap);
  if (ctx->override) {
    margin = m->opt.o_margin;
  }
  if (!boundingTest(m, ctx->d, g1, g2, detectDistance(m, margin, gap), bounded)) {
    return;
  }

  // excluded body pairs
  if (!listed && excludedPair(m, b1, b2, ctx->excludeSorted)) {
    return;
  }

  // explicit pairs take precedence
  uint32_t sig = bodySignature(b1, b2);
  if (ctx->checkExplicit && isExplicitPair(m, ctx->pairSorted, sig, g1, g2)) {
    return;
  }

  // the geom of the lower body first (MuJoCo's loop order)
  if (ctx->n < ctx->cap) {
    mciCandidate* out = ctx->out + ctx->n;
    int lowfirst = b1 < b2 || (b1 == b2 && g1 < g2);
    out->sig = sig;
    out->kind = 1;
    out->a = lowfirst ? g1 : g2;
    out->b = lowfirst ? g2 : g1;
  }
  ctx->n++;
}


// is a box small enough for the grid (finite, half size up to rcell)?
static inline int gridBox(const mciBox* b, mcNum rcell) {
  return isfinite(b->r) && isfinite(b->c[0]) && isfinite(b->c[1]) && isfinite(b->c[2]) &&
         b->r <= rcell;
}


// do two boxes overlap?
static inline int boxOverlap(const mciBox* x, const mciBox* y) {
  return mci_boxOverlap(x, y);
}


// grid index of a coordinate in cell units, clamped to +-2^30 (clamping keeps indices of
// overlapping boxes at most one apart, so far-away geoms stay correct, only slower)
static inline int cellIndex(mcNum x) {
  const mcNum limit = 1073741824.0;
  if (!(x > -limit)) {
    return -1073741824;
  }
  if (x > limit) {
    return 1073741824;
  }
  return (int)floor(x);
}


// hash of a grid cell into [0, mask]
static inline uint32_t cellHash(int x, int y, int z, uint32_t mask) {
  uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
  h ^= h >> 15;
  return h & mask;
}


// the grid and its scratch arrays (stack)
typedef struct {
  int* small;                     // box indices of the boxes in the grid (ascending)
  int* big;                       // box indices of the boxes tested against all others
  uint32_t* hash;                 // bucket of each small box
  int* start;                     // bucket starts (nbucket + 1)
  int* order;                     // small boxes sorted by bucket, ascending within a bucket
} mciGrid;


// all overlapping box pairs, each once, through the filters: boxes up to a size go into a uniform
// grid whose cell is twice the largest such box, so overlapping boxes sit in neighbouring cells
// (O(n) expected; the occupied block of cells is stored densely, or hashed when the geoms are
// spread too far apart for that); the few larger ones (static walls, terrain pieces) are tested
// against all. Return 0 if the stack is full.
static int gridPairs(mciBroad* ctx, mcData* d, const mciBox* box, int nbox) {
  if (nbox < 2) {
    return 1;
  }

  // cell size: twice the largest half size up to 4x the mean (finite boxes only)
  mcNum mean = 0, lo[3] = {0, 0, 0};
  int nfinite = 0;
  for (int i = 0; i < nbox; i++) {
    const mciBox* b = box + i;
    if (!isfinite(b->r) || !isfinite(b->c[0]) || !isfinite(b->c[1]) || !isfinite(b->c[2])) {
      continue;
    }
    mean += b->r;
    for (int k = 0; k < 3; k++) {
      if (!nfinite || b->c[k] < lo[k]) {
        lo[k] = b->c[k];
      }
    }
    nfinite++;
  }
  mean = nfinite ? mean / nfinite : 0;
  mcNum rcell = 0;
  for (int i = 0; i < nbox; i++) {
    mcNum r = box[i].r;
    if (isfinite(r) && r <= 4*mean && r > rcell) {
      rcell = r;
    }
  }

  // the cell: a hair over twice rcell, so that rounding never puts overlapping boxes two cells
  // apart (far outliers are clamped into the outermost cells, see cellIndex)
  mcNum cell = 2*rcell*(1 + 1e-9);
  if (!(cell > 0)) {
    cell = 1;
  }

  // split into grid boxes and big boxes
  mciGrid g;
  g.small = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbox, _Alignof(int));
  g.big = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbox, _Alignof(int));
  g.hash = (uint32_t*)mc_stackAlloc(d, sizeof(uint32_t) * (size_t)nbox, _Alignof(uint32_t));
  g.order = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbox, _Alignof(int));
  if (!g.small || !g.big || !g.hash || !g.order) {
    return 0;
  }
  int nsmall = 0, nbig = 0;
  mcNum inv = 1 / cell;
  for (int i = 0; i < nbox; i++) {
    if (gridBox(box + i, rcell)) {
      g.small[nsmall++] = i;
    } else {
      g.big[nbig++] = i;
    }
  }

  // cells of the grid boxes (non-negative: lo is the lowest centre)
  int* cellOf = (int*)mc_stackAlloc(d, sizeof(int) * 3 * (size_t)(nsmall ? nsmall : 1),
                                    _Alignof(int));
  if (!cellOf) {
    return 0;
  }
  int dim[3] = {1, 1, 1};
  for (int s = 0; s < nsmall; s++) {
    const mciBox* b = box + g.small[s];
    for (int k = 0; k < 3; k++) {
      int c = cellIndex((b->c[k] - lo[k]) * inv);
      cellOf[3*s + k] = c;
      if (c >= dim[k]) {
        dim[k] = c + 1;
      }
    }
  }

  // buckets: a dense grid (neighbouring cells along x are adjacent buckets) when the occupied
  // block has at most about four cells per box, else a hash table of at least twice as many
  // buckets as boxes
  double ncell = (double)dim[0] * dim[1] * dim[2];
  int dense = ncell <= 4.0 * nsmall + 1024;
  uint32_t nbucket = 16, mask = 0;
  if (dense) {
    nbucket = (uint32_t)ncell;
  } else {
    while (nbucket < 2 * (uint32_t)nsmall && nbucket < (1u << 30)) {
      nbucket *= 2;
    }
    mask = nbucket - 1;
  }
  g.start = (int*)mc_stackAlloc(d, sizeof(int) * ((size_t)nbucket + 1), _Alignof(int));
  int* cursor = (int*)mc_stackAlloc(d, sizeof(int) * ((size_t)nbucket + 1), _Alignof(int));
  mciBox* sorted = (mciBox*)mc_stackAlloc(d, sizeof(mciBox) * (size_t)(nsmall ? nsmall : 1),
                                          _Alignof(mciBox));
  int* stamp = dense ? NULL : (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbucket,
                                                  _Alignof(int));
  if (!g.start || !cursor || !sorted || (!dense && !stamp)) {
    return 0;
  }

  // counting sort by bucket (stable: ascending box index within a bucket)
  memset(g.start, 0, sizeof(int) * ((size_t)nbucket + 1));
  for (int s = 0; s < nsmall; s++) {
    const int* c = cellOf + 3*s;
    g.hash[s] = dense ? (uint32_t)(c[0] + dim[0] * (c[1] + dim[1] * c[2])) :
                cellHash(c[0], c[1], c[2], mask);
    g.start[g.hash[s] + 1]++;
  }
  for (uint32_t h = 0; h < nbucket; h++) {
    g.start[h + 1] += g.start[h];
  }
  memcpy(cursor, g.start, sizeof(int) * ((size_t)nbucket + 1));
  for (int s = 0; s < nsmall; s++) {
    int k = cursor[g.hash[s]]++;
    g.order[k] = s;
    sorted[k] = box[g.small[s]];
  }
  for (uint32_t h = 0; !dense && h < nbucket; h++) {
    stamp[h] = -1;
  }

  // grid boxes in bucket order: the neighbouring cells that a partner can be in (hash: each
  // bucket once, stamped), partners with a larger index
  for (int q = 0; q < nsmall; q++) {
    int s = g.order[q];
    const mciBox* bs = sorted + q;
    const int* c = cellOf + 3*s;
    int from[3], to[3];
    mcNum reach = (bs->r + rcell) * (1 + 1e-9);
    for (int k = 0; k < 3; k++) {
      from[k] = cellIndex((bs->c[k] - reach - lo[k]) * inv);
      to[k] = cellIndex((bs->c[k] + reach - lo[k]) * inv);
      from[k] = from[k] < c[k] - 1 ? c[k] - 1 : from[k] > c[k] ? c[k] : from[k];
      to[k] = to[k] > c[k] + 1 ? c[k] + 1 : to[k] < c[k] ? c[k] : to[k];
      if (dense) {
        from[k] = from[k] < 0 ? 0 : from[k];
        to[k] = to[k] >= dim[k] ? dim[k] - 1 : to[k];
      }
    }
    for (int z = from[2]; z <= to[2]; z++) {
      for (int y = from[1]; y <= to[1]; y++) {
        // dense: the cells from[0]..to[0] of this row are one run of buckets
        if (dense) {
          int b0 = from[0] + dim[0] * (y + dim[1] * z), b1 = b0 + to[0] - from[0];
          for (int k = g.start[b0], end = g.start[b1 + 1]; k < end; k++) {
            if (g.order[k] > s && boxOverlap(bs, sorted + k)) {
              testPair(ctx, bs->geom, sorted[k].geom, 1, 0);
            }
          }
          continue;
        }
        for (int x = from[0]; x <= to[0]; x++) {
          uint32_t h = cellHash(x, y, z, mask);
          if (stamp[h] == s) {
            continue;
          }
          stamp[h] = s;
          for (int k = g.start[h], end = g.start[h + 1]; k < end; k++) {
            if (g.order[k] > s && boxOverlap(bs, sorted + k)) {
              testPair(ctx, bs->geom, sorted[k].geom, 1, 0);
            }
          }
        }
      }
    }
  }

  // big boxes against every other box (big-big pairs once)
  for (int k = 0; k < nbig; k++) {
    int i = g.big[k];
    for (int j = 0; j < nbox; j++) {
      if (j == i) {
        continue;
      }
      if (j < i && !gridBox(box + j, rcell)) {
        continue;
      }
      if (boxOverlap(box + i, box + j)) {
        testPair(ctx, box[i].geom, box[j].geom, 1, 0);
      }
    }
  }
  return 1;
}


// the overlapping pairs of the sweep into the filters
static void sweptPair(void* ctx, int g1, int g2) {
  testPair((mciBroad*)ctx, g1, g2, 1, 0);
}


// the overlapping listed pairs of the groups into the filters that depend on the step
static void listedPair(void* ctx, int g1, int g2) {
  testPair((mciBroad*)ctx, g1, g2, 1, 1);
}


// the body level of the broad phase: each body's cube holds the cubes of its bounded collidable
// geoms; bodies whose cubes meet and pass the body filters pair their geoms whose own cubes meet,
// the lower body's geoms outer, both in geom order (MuJoCo's loops). Every geom pair whose cubes
// meet lies in bodies whose cubes meet, so the pairs are those of the geom-level sweep; only
// their order within one body pair is geom order instead of sweep order.
#define MCI_BODYSWEEP_MAX 64      // most bodies with geoms for the body level (pairs: n^2 / 2)

typedef struct {
  mciBroad* ctx;
  const mciBox* box;              // geom cubes (in geom order)
  const int* start;               // body b's geoms: box indices order[start[b] .. start[b+1])
  const int* order;
} BodySweep;


static void bodyPair(void* arg, int b1, int b2) {
  const BodySweep* s = (const BodySweep*)arg;
  mciBroad* ctx = s->ctx;
  if (b1 > b2) {
    int t = b1;
    b1 = b2;
    b2 = t;
  }
  if (bodyFilter(ctx->m, b1, b2, ctx->excludeSorted) || mc_sleepSkipPair(ctx->m, ctx->d, b1, b2)) {
    return;
  }
  for (int i = s->start[b1]; i < s->start[b1 + 1]; i++) {
    const mciBox* x = s->box + s->order[i];
    for (int j = s->start[b2]; j < s->start[b2 + 1]; j++) {
      const mciBox* y = s->box + s->order[j];
      if (mci_boxOverlap(x, y)) {
        testPair(ctx, x->geom, y->geom, 1, 0);
      }
    }
  }
}


// body cubes of the geom cubes, each against each (few bodies: MCI_BODYSWEEP_MAX); 1: done, 0:
// stack full, -1: a geom cube is not finite (the caller sweeps geoms, which treats those apart)
__attribute__((noinline)) static int bodySweep(mciBroad* ctx, mcData* d, const mciBox* box,
                                               int nbox) {
  const mcModel* m = ctx->m;
  int nbody = m->nbody;
  int* start = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)(nbody + 1), _Alignof(int));
  int* order = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbox, _Alignof(int));
  mciBox* body = (mciBox*)mc_stackAlloc(d, sizeof(mciBox) * (size_t)nbox, _Alignof(mciBox));
  int* slot = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)nbody, _Alignof(int));
  if (!start || !order || !body || !slot) {
    return 0;
  }

  // geoms grouped by body (counting sort: geom order kept within a body)
  memset(start, 0, sizeof(int) * (size_t)(nbody + 1));
  for (int i = 0; i < nbox; i++) {
    if (!isfinite(box[i].r) || !isfinite(box[i].c[0]) || !isfinite(box[i].c[1]) ||
        !isfinite(box[i].c[2])) {
      return -1;
    }
    start[m->geom_bodyid[box[i].geom] + 1]++;
  }
  for (int b = 0; b < nbody; b++) {
    start[b + 1] += start[b];
    slot[b] = start[b];
  }
  for (int i = 0; i < nbox; i++) {
    order[slot[m->geom_bodyid[box[i].geom]]++] = i;
  }

  // one cube per body with geoms: its geoms' extents (mci_boxUnion)
  int nb = 0;
  for (int b = 0; b < nbody; b++) {
    if (start[b] < start[b + 1]) {
      mci_boxUnion(box, order + start[b], start[b + 1] - start[b], b, body + nb++);
    }
  }
  BodySweep sweep = {ctx, box, start, order};
  for (int i = 0; i < nb; i++) {
    for (int j = i + 1; j < nb; j++) {
      if (mci_boxOverlap(body + i, body + j)) {
        bodyPair(&sweep, body[i].geom, body[j].geom);
      }
    }
  }
  return 1;
}


// the filters of the model alone (contype and conaffinity, same weld, parent-child, exclude): the
// pairs inside a tree that the broad phase's groups list (mci_groups)
static int modelAllows(const mcModel* m, int g1, int g2) {
  return ((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
          (m->geom_contype[g2] & m->geom_conaffinity[g1])) &&
         !bodyFilter(m, m->geom_bodyid[g1], m->geom_bodyid[g2],
                     isSorted(m->exclude_signature, m->nexclude));
}


// geoms that take part in dynamic collisions
static int collidable(const mcModel* m, int g) {
  return m->geom_contype[g] || m->geom_conaffinity[g];
}


// all dynamic pairs through the filters into ctx (planes against all collidable geoms, coll in
// geom order: the others fail testPair's first filter; then the sweep or, for many geoms, the
// grid: the same pairs either way); return 0 if the stack is full
// (flatten: the geom sweep and its pair test inlined here, as they were with one call site)
__attribute__((flatten)) static int dynamicPairs(mciBroad* ctx, mcData* d, const mciBox* box,
                                                 int nbox, const int* planes, int nplane,
                                                 const int* coll, int ncoll) {
  const mcModel* m = ctx->m;
  ctx->n = 0;

  // planes (unbounded) against every other collidable geom
  for (int i = 0; i < nplane; i++) {
    int p = planes[i];
    for (int k = 0; k < ncoll; k++) {
      int g = coll[k];
      int tg = m->geom_type[g];
      if (g == p || ((tg == mcGEOM_PLANE || tg == mcGEOM_HFIELD) && g < p)) {
        continue;
      }
      testPair(ctx, p, g, 0, 0);
    }
  }

  // bounded geoms: by groups (engine/broadphase_groups.c), else by bodies, then geoms; geom cubes
  // that are not finite by the geom sweep; many geoms by the grid
  mc_markStack(d);
  int ok;
  if (nbox > MCI_SWEEP_MAXBOX) {
    ok = gridPairs(ctx, d, box, nbox);
  } else {
    // by bodies where they hold two geoms or more on average and are few (measured: with fewer
    // geoms the body level costs more than it saves); the boxes are in geom order, a body's
    // geoms contiguous. Else by the groups (trees) when the data keeps them, every box is finite
    // and there are more boxes than each against each takes (measured: on humanoid's 19 boxes
    // and on anymal_c's bodies the groups cost more than they save)
    int nb = 0;
    for (int i = 0; i < nbox; i++) {
      nb += i == 0 || m->geom_bodyid[box[i].geom] != m->geom_bodyid[box[i - 1].geom];
    }
    int n0 = ctx->n;
    if (2 * nb <= nbox && nb <= MCI_BODYSWEEP_MAX) {
      ok = bodySweep(ctx, d, box, nbox);
    } else if (nbox > MCI_ALLPAIRS_MAXBOX) {
      ok = mci_groupPairs(d, mci_groups(m, d, modelAllows), box, nbox, listedPair, sweptPair,
                          ctx);
    } else {
      ok = -1;
    }
    if (ok < 0) {
      ctx->n = n0;
      ok = mci_sweepPairs(d, box, nbox, sweptPair, ctx);
    }
  }
  mc_freeStack(d);
  return ok;
}


// generate, filter and sort the candidate pairs on the stack; return the count (-1: no memory)
static int candidates(const mcModel* m, mcData* d, mciCandidate** list) {
  int ngeom = m->ngeom, npre = 0, ndyn = 0, mode = m->opt.collision;
  mciBroad ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.m = m;
  ctx.d = d;
  ctx.pairSorted = isSorted(m->pair_signature, m->npair);
  ctx.excludeSorted = isSorted(m->exclude_signature, m->nexclude);
  ctx.checkExplicit = mode == mcCOL_ALL;
  ctx.override = (m->opt.enableflags & mcENBL_OVERRIDE) != 0;
  ctx.func = collisionTable(m);

  // explicit pairs
  if (mode != mcCOL_DYNAMIC) {
    npre = m->npair;
  }

  // broad phase: planes, and the bounding cubes of the other collidable geoms
  mciBox* box = NULL;
  int* planes = NULL;
  int* coll = NULL;
  int nbox = 0, nplane = 0, ncoll = 0;
  mciCandidate* raw = NULL;
  if (mode != mcCOL_PAIR && ngeom > 1) {
    box = (mciBox*)mc_stackAlloc(d, sizeof(mciBox) * (size_t)ngeom, _Alignof(mciBox));
    planes = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)ngeom, _Alignof(int));
    coll = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)ngeom, _Alignof(int));
    if (!box || !planes || !coll) {
      return -1;
    }
    for (int g = 0; g < ngeom; g++) {
      if (!collidable(m, g)) {
        continue;
      }
      coll[ncoll++] = g;
      if (m->geom_type[g] == mcGEOM_PLANE || m->geom_type[g] == mcGEOM_HFIELD) {
        planes[nplane++] = g;  // unbounded: planes and height fields (rbound 0, as in MuJoCo)
        continue;
      }
      mciBox* b = box + nbox++;
      memcpy(b->c, d->geom_xpos + 3*g, sizeof(b->c));
      // each geom's share of the detection distance, at least (override: o_margin each)
      b->r = m->geom_rbound[g] + (ctx.override ? m->opt.o_margin : m->geom_margin[g]) +
             m->geom_gap[g];
      b->geom = g;
    }

    // one pass into a list of a guessed size; if it overflows, again into the exact size
    int guess = 8*ngeom + 256;
    raw = (mciCandidate*)mc_stackAlloc(d, sizeof(mciCandidate) * (size_t)(npre + guess),
                                       _Alignof(mciCandidate));
    ctx.out = raw ? raw + npre : NULL;
    ctx.cap = raw ? guess : 0;
    if (!dynamicPairs(&ctx, d, box, nbox, planes, nplane, coll, ncoll)) {
      return -1;
    }
    if (ctx.n > ctx.cap) {
      raw = (mciCandidate*)mc_stackAlloc(d, sizeof(mciCandidate) * (size_t)(npre + ctx.n),
                                         _Alignof(mciCandidate));
      if (!raw) {
        return -1;
      }
      ctx.out = raw + npre;
      ctx.cap = ctx.n;
      if (!dynamicPairs(&ctx, d, box, nbox, planes, nplane, coll, ncoll)) {
        return -1;
      }
    }
    ndyn = ctx.n;
  }
  if (!raw) {
    raw = (mciCandidate*)mc_stackAlloc(d, sizeof(mciCandidate) * (size_t)(npre + 1),
                                       _Alignof(mciCandidate));
    if (!raw) {
      return -1;
    }
  }

  // explicit pairs first in the list
  for (int i = 0; i < npre; i++) {
    int b1 = m->geom_bodyid[m->pair_geom1[i]], b2 = m->geom_bodyid[m->pair_geom2[i]];
    raw[i].sig = m->pair_signature[i] ? (uint32_t)m->pair_signature[i] : bodySignature(b1, b2);
    raw[i].kind = 0;
    raw[i].a = i;
    raw[i].b = 0;
  }
  int n = npre + ndyn;

  // merge in signature order
  int nkey = 1;
  for (int i = 0; i < n; i++) {
    int hi = (int)(raw[i].sig >> 16) + 1, lo = (int)(raw[i].sig & 0xffffu) + 1;
    nkey = hi > nkey ? hi : nkey;
    nkey = lo > nkey ? lo : nkey;
  }
  mciCandidate* tmp = (mciCandidate*)mc_stackAlloc(d, sizeof(mciCandidate) * (size_t)(n + 1),
                                                   _Alignof(mciCandidate));
  int* count = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)(2*nkey + 2), _Alignof(int));
  if (!tmp || !count) {
    return -1;
  }
  sortCandidates(raw, tmp, n, count, nkey);
  *list = raw;
  return n;
}


//---------------------------------- narrow phase --------------------------------------------------

// the fields of a contact that a narrow phase fills
static void clearOutput(mcContact* con) {
  con->dist = 0;
  memset(con->pos, 0, sizeof(con->pos));
  memset(con->frame, 0, sizeof(con->frame));
}


mcContact* mci_newContact(const mcModel* m, mcData* d) {
  mcContact* con = NULL;
  if (m->nconmax <= 0 || d->ncon < m->nconmax) {
    con = (mcContact*)mci_arenaAlloc(d, sizeof(mcContact), _Alignof(mcContact));
  }
  if (!con) {
    mc_warning(d, mcWARN_CONTACTFULL, d->ncon);
  }
  return con;
}


// append num contacts from scratch with the mixed parameters; return 0 when the arena is full
static int appendContacts(const mcModel* m, mcData* d, const mcContact* scratch, int num,
                          const mcContact* par, mcNum margin, mcNum gap, int g1, int g2) {
  // append with the mixed parameters (read from par in place: a whole-struct copy per pair cost
  // more than the fields it serves)
  for (int i = 0; i < num; i++) {
    mcContact* con = mci_newContact(m, d);
    if (!con) {
      return 0;
    }
    memset(con, 0, sizeof(mcContact));
    con->dist = scratch[i].dist;
    memcpy(con->pos, scratch[i].pos, sizeof(con->pos));
    memcpy(con->frame, scratch[i].frame, sizeof(con->frame));
    mci_makeFrame(con->frame);
    con->includemargin = includeMargin(m, margin, gap);
    con->dim = par->dim;
    memcpy(con->friction, par->friction, sizeof(con->friction));
    memcpy(con->solref, par->solref, sizeof(con->solref));
    memcpy(con->solreffriction, par->solreffriction, sizeof(con->solreffriction));
    memcpy(con->solimp, par->solimp, sizeof(con->solimp));
    con->mu = 0;
    con->geom1 = g1;
    con->geom2 = g2;
    con->exclude = con->dist >= con->includemargin;  // 1: in the gap, detected but no constraint
    con->efc_address = -1;
    d->ncon++;
  }
  return 1;
}


// the candidate list of a narrow phase with what every pair reads (an mciNarrowFn's list)
typedef struct {
  const mciCandidate* cand;
  mciCollideTable func;           // both orders (collisionTable)
  const mcpHost* host;
} mciNarrow;


// collide one geom pair (ipair >= 0: explicit pair) and append its contacts to the arena;
// return 0 when the arena is full
static int collideGeoms(const mcModel* m, mcData* d, mcContact* scratch, const mciNarrow* nw,
                        int g1, int g2, int ipair) {
  // lower geom type first
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  if (t1 > t2) {
    int t = g1;
    g1 = g2;
    g2 = t;
    t = t1;
    t1 = t2;
    t2 = t;
  }
  mcpfCollide fn = nw->func[t1][t2];
  if (!fn) {
    if (!staticTypePair(t1, t2)) {
      reportUnsupported(t1, t2);
    }
    return 1;
  }

  // margin and gap (the contact parameters are mixed only for a pair that makes contacts)
  mcNum margin, gap;
  if (ipair >= 0) {
    margin = m->pair_margin[ipair];
    gap = m->pair_gap[ipair];
  } else {
    geomMarginGap(m, g1, g2, &margin, &gap);
  }
  if (m->opt.enableflags & mcENBL_OVERRIDE) {
    margin = m->opt.o_margin;
  }

  // bounding spheres (explicit pairs: with the pair's margin and gap; none between sleeping or
  // static bodies)
  mcNum detect = detectDistance(m, margin, gap);
  if (ipair >= 0 && (!mci_boundingFilter(m, d, g1, g2, detect) ||
                     mc_sleepSkipPair(m, d, m->geom_bodyid[g1], m->geom_bodyid[g2]))) {
    return 1;
  }

  // narrow phase on zeroed outputs (dist, pos, frame: the fields a narrow phase fills); the
  // scratch is zeroed once per mc_collision and the returned entries again after each use
  double tc = mc_clockNow(d);
  int num = fn(nw->host, m, d, scratch, g1, g2, detect);
  mc_clockAddCollision(m, d, t1, t2, tc);
  if (d->plugin_check) {
    mci_checkCollision(m, d, t1, t2, scratch, num);
  }
  if (num <= 0) {
    return 1;
  }
  if (num > mcMAXCONPAIR) {
    num = mcMAXCONPAIR;
  }

  // parameters (the margin and gap they come with are those above)
  mcContact param;
  mcNum same[2];
  if (ipair >= 0) {
    pairParam(m, &param, ipair, same, same + 1);
  } else {
    mci_contactParam(m, &param, g1, g2, same, same + 1);
  }
  if (m->opt.enableflags & mcENBL_OVERRIDE) {
    for (int k = 0; k < mcNREF; k++) {
      param.solref[k] = m->opt.o_solref[k];
    }
    for (int k = 0; k < mcNIMP; k++) {
      param.solimp[k] = m->opt.o_solimp[k];
    }
  }
  for (int k = 0; k < 5; k++) {
    // fmax(mcMINMU, f) without the libm call (a NaN gives mcMINMU, as fmax)
    param.friction[k] = param.friction[k] > mcMINMU ? param.friction[k] : mcMINMU;
  }
  int ok = appendContacts(m, d, scratch, num, &param, margin, gap, g1, g2);
  for (int i = 0; i < num; i++) {
    clearOutput(scratch + i);
  }
  return ok;
}


// candidate i of list (an mciNarrow) through collideGeoms (an mciNarrowFn)
static int narrowOne(const mcModel* m, mcData* d, mcContact* scratch, const void* list, int i) {
  const mciNarrow* nw = (const mciNarrow*)list;
  const mciCandidate* c = nw->cand + i;
  return c->kind == 0 ?
         collideGeoms(m, d, scratch, nw, m->pair_geom1[c->a], m->pair_geom2[c->a], c->a) :
         collideGeoms(m, d, scratch, nw, c->a, c->b, -1);
}


// the narrow phase's estimated cost of a pair of geom types (an mciNarrowCostFn's unit, only for
// cutting the candidates into tasks), from the mean time of a pair of each kind in humanoid100's
// narrow phase: two spheres or capsules 1 (~0.08 us), a plane with anything 2, other closed forms
// (boxes) 3; one shape that only GJK handles (ellipsoid, cylinder, mesh, SDF, height field)
// against a primitive 8 (0.3-0.9 us), two of them 40 (~3.3 us, GJK and EPA)
static int gjkOnly(int type) {
  return type != mcGEOM_PLANE && type != mcGEOM_SPHERE && type != mcGEOM_CAPSULE &&
         type != mcGEOM_BOX;
}


static int pairCost(int t1, int t2) {
  if (t1 == mcGEOM_PLANE || t2 == mcGEOM_PLANE) {
    return 2;
  }
  switch (gjkOnly(t1) + gjkOnly(t2)) {
  case 0:
    return t1 == mcGEOM_BOX || t2 == mcGEOM_BOX ? 3 : 1;
  case 1:
    return 8;
  default:
    return 40;
  }
}


// candidate i of list (an mciNarrow): its pair's cost (an mciNarrowCostFn)
static int narrowCost(const mcModel* m, const void* list, int i) {
  const mciCandidate* c = ((const mciNarrow*)list)->cand + i;
  int g1 = c->kind == 0 ? m->pair_geom1[c->a] : c->a;
  int g2 = c->kind == 0 ? m->pair_geom2[c->a] : c->b;
  return pairCost(m->geom_type[g1], m->geom_type[g2]);
}


// the broad phase as a task of mci_runBeside
typedef struct {
  const mcModel* m;
  mcData* d;
  mciCandidate* list;
  int n;
  mciNarrowCostFn cost;           // the narrow phase's chunks by cost: cut them here too
  int cut;                        // their count (0: not cut)
} Broad;


// the candidates, and the narrow chunks by cost where the list was just written (the cost pass
// reads every candidate: on the caller, after the job, those were reads of the other core's lines,
// ~3 % of the caller's step in humanoid100)
static void broadTask(void* ctx) {
  Broad* b = (Broad*)ctx;
  b->n = candidates(b->m, b->d, &b->list);
  if (b->cost && b->n > 1) {
    mciNarrow nw = {b->list, NULL, NULL};
    b->cut = mci_narrowCutAhead(b->m, b->d, &nw, b->n, b->cost);
  }
}


// the pool's tables of d with what the collision driver keeps there about m: whether some geom
// only GJK handles (costly), and the beside job's size (sized)
static const mciNarrowTables* poolTables(const mcModel* m, mcData* d) {
  mciNarrowTables* tab = mci_narrowTables(d);
  if (tab->model != m || tab->signature != d->model_signature) {
    tab->costly = 0;
    tab->sized = m->nbody;
    for (int i = 0; i < m->ngeom; i++) {
      int t = m->geom_type[i];
      tab->costly = tab->costly || gjkOnly(t);
      tab->sized += collidable(m, i) && t != mcGEOM_PLANE && t != mcGEOM_HFIELD;
    }
    tab->model = m;
    tab->signature = d->model_signature;
  }
  return tab;
}


// the narrow phase's cost function on d's pool: by cost only when some pair may cost more than a
// few primitive ones (22_humanoids' capsules and spheres: equal counts, no pass over the
// candidates)
static mciNarrowCostFn poolCost(const mcModel* m, mcData* d) {
  return poolTables(m, d)->costly ? narrowCost : NULL;
}


// A job pays on two threads only with work enough to share; below these sizes the step ran on
// two threads slower than on one (session 21, `moduco-bench-islands threads`, paired ratios
// 0.78-0.97 on humanoid, gym_humanoid, dm_quadruped, unitree_h1, shadow_hand_right and
// dm_humanoid_CMU, where two threads now run as one):
// - the broad phase beside the inertia stage: the model's bodies and bounded collidable geoms
//   (humanoid 36, shadow_hand_right 66, dm_humanoid_CMU 81 lost; dm_dog 184 gained 5 %,
//   22_humanoids 771 and humanoid100 244 gain);
// - the narrow phase: by the candidates' count (gym_humanoid 28 and dm_humanoid_CMU's 46 lost;
//   22_humanoids' 264-704 and humanoid100's 187 or more gain), or a few costly ones by their summed
//   cost in narrowCost's units (unitree_h1 195-234 and shadow_hand_right 435-547 lost,
//   franka_panda_2023 679-959 in 50 candidates gained 10 %; the units overrate small mesh hulls, so
//   humanoid100's first steps, 537-583 in ellipsoids and cylinders, are let in by their count),
//   from MINNARROWCOSTPAIRS candidates (robotiq_2f85's 15 mesh pairs, cost 600-632, lost 17 %:
//   too few to cut into even chunks)
#define MINBESIDE 128
#define MINNARROWPAIRS 128
#define MINNARROWCOST 600
#define MINNARROWCOSTPAIRS 32

static int besidePays(const mcModel* m, mcData* d) {
  return mci_poolEager(d) || poolTables(m, d)->sized >= MINBESIDE;
}


// (the costs summed only up to the threshold)
static int narrowPays(const mcModel* m, const mcData* d, const void* list, int n,
                      mciNarrowCostFn cost) {
  if (mci_poolEager(d) || n >= MINNARROWPAIRS) {
    return 1;
  }
  long sum = 0;
  for (int i = 0; cost && n >= MINNARROWCOSTPAIRS && i < n && sum < MINNARROWCOST; i++) {
    sum += cost(m, list, i);
  }
  return sum >= MINNARROWCOST;
}


// contacts disabled (or the whole constraint solver, as MuJoCo), or nothing to collide
static int nothingToCollide(const mcModel* m) {
  return (m->opt.disableflags & (mcDSBL_CONTACT | mcDSBL_CONSTRAINT)) || m->ngeom < 1 ||
         (m->ngeom < 2 && m->npair == 0);
}


int mci_collisionPairs(const mcModel* m, mcData* d) {
  if (nothingToCollide(m)) {
    return 0;
  }
  mc_markStack(d);
  mciCandidate* list = NULL;
  int n = candidates(m, d, &list);
  mc_freeStack(d);
  return n;
}


int mci_collisionCandidates(const mcModel* m, mcData* d, int* g1, int* g2, int* ipair, int cap) {
  if (nothingToCollide(m)) {
    return 0;
  }
  mc_markStack(d);
  mciCandidate* list = NULL;
  int n = candidates(m, d, &list);
  for (int i = 0; i < n && i < cap; i++) {
    const mciCandidate* c = list + i;
    g1[i] = c->kind ? c->a : m->pair_geom1[c->a];
    g2[i] = c->kind ? c->b : m->pair_geom2[c->a];
    ipair[i] = c->kind ? -1 : c->a;
  }
  mc_freeStack(d);
  return n;
}


void mc_collision(const mcModel* m, mcData* d) {
  mci_collisionWith(m, d, NULL);
}


void mci_collisionWith(const mcModel* m, mcData* d, mciStageFn extra) {
  // contacts start the arena
  d->ncon = 0;
  d->parena = 0;
  d->contact = (mcContact*)d->arena;

  // disabled (contacts, or the whole constraint solver, as MuJoCo), or nothing to collide
  if (nothingToCollide(m)) {
    if (extra) {
      extra(m, d);
    }
    return;
  }

  mc_markStack(d);
  mcContact* scratch = (mcContact*)mc_stackAlloc(d, sizeof(mcContact) * mcMAXCONPAIR,
                                                 _Alignof(mcContact));
  mciCandidate* list = NULL;
  int n = -1, pool = mci_threads(d) > 1 && !d->plugin_check, cut = 0;
  mciNarrowCostFn cost = pool ? poolCost(m, d) : NULL;
  if (scratch && extra && pool && besidePays(m, d)) {
    Broad b = {m, d, NULL, -1, cost, 0};   // the broad phase beside the extra stage, on the pool
    mci_runBeside(m, d, extra, broadTask, &b);
    list = b.list;
    n = b.n;
    cut = b.cut;
    extra = NULL;
  } else if (scratch) {
    n = candidates(m, d, &list);
  }
  if (n < 0) {
    mci_message("mc_collision: scratch stack full; increase <size memory>");
    mc_freeStack(d);
    if (extra) {
      extra(m, d);
    }
    return;
  }

  // narrow phase in signature order (on the thread pool when one is bound; same contacts); the
  // extra stage first unless it ran beside the broad phase
  if (extra) {
    extra(m, d);
  }
  mciNarrow nw = {list, collisionTable(m), mcp_host()};
  if (pool && n > 1 && narrowPays(m, d, &nw, n, cost)) {
    // each thread zeroes a scratch of its own; scratch serves the chunks redone on the caller
    mci_narrowParallel(m, d, &nw, n, narrowOne, cost, scratch, cut);
  } else {
    for (int i = 0; n > 0 && i < mcMAXCONPAIR; i++) {
      clearOutput(scratch + i);
    }
    for (int i = 0; i < n; i++) {
      if (!narrowOne(m, d, scratch, &nw, i)) {
        break;
      }
    }
  }
  if (d->ncon > d->maxuse_con) {
    d->maxuse_con = d->ncon;
  }
  mc_freeStack(d);
}
