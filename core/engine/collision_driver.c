// Moduco core: collision driver. Pair generation (explicit pairs and sweep-and-prune broad
// phase), the four filters, contact parameter mixing and the collide-function table built from
// the collision plugins.
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/collision.h"
#include "engine/io.h"
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

// an interval of a geom's bounding sphere along the sweep axis
typedef struct {
  mcNum lo;
  mcNum hi;
  int geom;
} mciInterval;

static const char* const g_typename[mcNGEOMTYPES] = {
  "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"
};


//---------------------------------- collide-function table ----------------------------------------

static mcpfCollide g_table[mcNGEOMTYPES][mcNGEOMTYPES];
static pthread_once_t g_tableOnce = PTHREAD_ONCE_INIT;
static int g_reported[mcNGEOMTYPES][mcNGEOMTYPES];
static pthread_mutex_t g_reportLock = PTHREAD_MUTEX_INITIALIZER;


// fill the table once: plugins come by descending priority, the first to cover a pair wins
static void buildTable(void) {
  mc_pluginScan();
  int n = mcp_collisionCount();
  for (int i = 0; i < n; i++) {
    const mcpCollision* c = mcp_collision(i);
    if (!c || !c->pair) {
      continue;
    }
    for (int k = 0; k < c->npair; k++) {
      const mcpCollisionPair* p = c->pair + k;
      if (p->type1 < 0 || p->type2 < 0 || p->type1 >= mcNGEOMTYPES ||
          p->type2 >= mcNGEOMTYPES || p->type1 > p->type2 || !p->collide) {
        mci_message("collision plugin '%s': bad pair entry %d (types %d, %d) ignored",
                    c->hdr.name, k, p->type1, p->type2);
        continue;
      }
      if (!g_table[p->type1][p->type2]) {
        g_table[p->type1][p->type2] = p->collide;
      }
    }
  }
}


mcpfCollide mci_collisionFunc(int type1, int type2) {
  if (type1 < 0 || type2 < 0 || type1 >= mcNGEOMTYPES || type2 >= mcNGEOMTYPES) {
    return NULL;
  }
  pthread_once(&g_tableOnce, buildTable);
  return type1 <= type2 ? g_table[type1][type2] : g_table[type2][type1];
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
      if (!present[t1] || !present[t2] || staticTypePair(t1, t2) || mci_collisionFunc(t1, t2)) {
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

  // margin and gap: the larger one
  *margin = fmax(m->geom_margin[g1], m->geom_margin[g2]);
  *gap = fmax(m->geom_gap[g1], m->geom_gap[g2]);
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


int mci_boundingFilter(const mcModel* m, const mcData* d, int g1, int g2, mcNum margin) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  const mcNum* p1 = d->geom_xpos + 3*g1;
  const mcNum* p2 = d->geom_xpos + 3*g2;

  // plane: the other geom's sphere against the half space
  if (t1 == mcGEOM_PLANE || t2 == mcGEOM_PLANE) {
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


int mci_bodyFilter(const mcModel* m, int b1, int b2) {
  // same weld body
  int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
  if (w1 == w2) {
    return 1;
  }

  // parent-child of weld bodies, unless the parent is the world
  if (!(m->opt.disableflags & mcDSBL_FILTERPARENT)) {
    int pw1 = m->body_weldid[m->body_parentid[w1]];
    int pw2 = m->body_weldid[m->body_parentid[w2]];
    if ((w1 != 0 && pw2 == w1) || (w2 != 0 && pw1 == w2)) {
      return 1;
    }
  }

  // excluded body pairs (either order)
  if (m->nexclude) {
    int sig = (int)bodySignature(b1, b2);
    int rev = ((b2 < b1 ? b1 : b2) + 1) * 65536 + (b2 < b1 ? b2 : b1) + 1;
    if (findSignature(m->exclude_signature, m->nexclude, 0, sig) >= 0 ||
        findSignature(m->exclude_signature, m->nexclude, 0, rev) >= 0) {
      return 1;
    }
  }
  return 0;
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


static void sortCandidates(mciCandidate* c, int n) {
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


// heap sort of intervals by lower end
static void siftIntervals(mciInterval* v, int start, int end) {
  int root = start;
  while (2*root + 1 <= end) {
    int child = 2*root + 1, swap = root;
    if (v[swap].lo < v[child].lo) {
      swap = child;
    }
    if (child + 1 <= end && v[swap].lo < v[child + 1].lo) {
      swap = child + 1;
    }
    if (swap == root) {
      return;
    }
    mciInterval t = v[root];
    v[root] = v[swap];
    v[swap] = t;
    root = swap;
  }
}


static void sortIntervals(mciInterval* v, int n) {
  for (int start = n/2 - 1; start >= 0; start--) {
    siftIntervals(v, start, n - 1);
  }
  for (int end = n - 1; end > 0; end--) {
    mciInterval t = v[0];
    v[0] = v[end];
    v[end] = t;
    siftIntervals(v, 0, end - 1);
  }
}


//---------------------------------- broad phase ---------------------------------------------------

// principal axis (largest eigenvector) of a symmetric 3x3 matrix by Jacobi rotations
static void principalAxis(const mcNum cov[9], mcNum axis[3]) {
  mcNum a[9], v[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(a, cov, sizeof(a));
  for (int sweep = 0; sweep < 30; sweep++) {
    mcNum off = a[1]*a[1] + a[2]*a[2] + a[5]*a[5];
    if (off < 1e-30) {
      break;
    }
    for (int p = 0; p < 2; p++) {
      for (int q = p + 1; q < 3; q++) {
        mcNum apq = a[3*p + q];
        if (fabs(apq) < 1e-300) {
          continue;
        }
        // rotation that zeroes a[p][q]
        mcNum theta = (a[3*q + q] - a[3*p + p]) / (2*apq);
        mcNum t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta*theta + 1));
        mcNum c = 1 / sqrt(t*t + 1), s = t*c;
        for (int k = 0; k < 3; k++) {
          mcNum akp = a[3*k + p], akq = a[3*k + q];
          a[3*k + p] = c*akp - s*akq;
          a[3*k + q] = s*akp + c*akq;
        }
        for (int k = 0; k < 3; k++) {
          mcNum apk = a[3*p + k], aqk = a[3*q + k];
          a[3*p + k] = c*apk - s*aqk;
          a[3*q + k] = s*apk + c*aqk;
        }
        for (int k = 0; k < 3; k++) {
          mcNum vkp = v[3*k + p], vkq = v[3*k + q];
          v[3*k + p] = c*vkp - s*vkq;
          v[3*k + q] = s*vkp + c*vkq;
        }
      }
    }
  }
  int best = 0;
  for (int k = 1; k < 3; k++) {
    if (a[4*k] > a[4*best]) {
      best = k;
    }
  }
  for (int k = 0; k < 3; k++) {
    axis[k] = v[3*k + best];
  }
}


// context shared by the candidate tests
typedef struct {
  const mcModel* m;
  const mcData* d;
  int pairSorted;
  int checkExplicit;              // collision="all": explicit pairs replace dynamic ones
} mciBroad;


// filters of a dynamically generated geom pair; return 1 and fill *out if it survives
static int dynamicCandidate(const mciBroad* ctx, int g1, int g2, mciCandidate* out) {
  const mcModel* m = ctx->m;
  int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];

  // contype / conaffinity
  if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
        (m->geom_contype[g2] & m->geom_conaffinity[g1]))) {
    return 0;
  }

  // body filters: same weld, parent-child, exclude
  if (mci_bodyFilter(m, b1, b2)) {
    return 0;
  }

  // a collide function exists
  if (!mci_collisionFunc(t1, t2)) {
    if (!staticTypePair(t1, t2)) {
      reportUnsupported(t1, t2);
    }
    return 0;
  }

  // bounding spheres with the larger margin (the override margin if enabled)
  mcNum margin = (m->opt.enableflags & mcENBL_OVERRIDE) ? m->opt.o_margin :
                 fmax(m->geom_margin[g1], m->geom_margin[g2]);
  if (!mci_boundingFilter(m, ctx->d, g1, g2, margin)) {
    return 0;
  }

  // explicit pairs take precedence
  uint32_t sig = bodySignature(b1, b2);
  if (ctx->checkExplicit && isExplicitPair(m, ctx->pairSorted, sig, g1, g2)) {
    return 0;
  }

  // the geom of the lower body first (MuJoCo's loop order)
  if (out) {
    out->sig = sig;
    out->kind = 1;
    int lowfirst = b1 < b2 || (b1 == b2 && g1 < g2);
    out->a = lowfirst ? g1 : g2;
    out->b = lowfirst ? g2 : g1;
  }
  return 1;
}


// sweep and prune: count (out NULL) or write the surviving dynamic pairs; return the count
static int sweep(const mciBroad* ctx, const mciInterval* iv, int niv, const int* planes,
                 int nplane, mciCandidate* out) {
  int n = 0;
  mciCandidate c;

  // planes (unbounded) against every other geom
  for (int i = 0; i < nplane; i++) {
    for (int g = 0; g < ctx->m->ngeom; g++) {
      if (g == planes[i] || (ctx->m->geom_type[g] == mcGEOM_PLANE && g < planes[i])) {
        continue;
      }
      if (dynamicCandidate(ctx, planes[i], g, &c)) {
        if (out) {
          out[n] = c;
        }
        n++;
      }
    }
  }

  // bounded geoms: overlapping intervals along the sweep axis
  for (int i = 0; i < niv; i++) {
    for (int j = i + 1; j < niv && iv[j].lo <= iv[i].hi; j++) {
      if (dynamicCandidate(ctx, iv[i].geom, iv[j].geom, &c)) {
        if (out) {
          out[n] = c;
        }
        n++;
      }
    }
  }
  return n;
}


// geoms that take part in dynamic collisions
static int collidable(const mcModel* m, int g) {
  return m->geom_contype[g] || m->geom_conaffinity[g];
}


// generate, filter and sort the candidate pairs on the stack; return the count (-1: no memory)
static int candidates(const mcModel* m, mcData* d, mciCandidate** list) {
  int ngeom = m->ngeom, npre = 0, ndyn = 0, mode = m->opt.collision;
  mciBroad ctx = {m, d, isSorted(m->pair_signature, m->npair), mode == mcCOL_ALL};
  mciInterval* iv = NULL;
  int* planes = NULL;
  int niv = 0, nplane = 0;

  // explicit pairs
  if (mode != mcCOL_DYNAMIC) {
    npre = m->npair;
  }

  // broad phase: intervals of bounding spheres along the principal axis of the geom centres
  if (mode != mcCOL_PAIR && ngeom > 1) {
    iv = (mciInterval*)mc_stackAlloc(d, sizeof(mciInterval) * (size_t)ngeom,
                                     _Alignof(mciInterval));
    planes = (int*)mc_stackAlloc(d, sizeof(int) * (size_t)ngeom, _Alignof(int));
    if (!iv || !planes) {
      return -1;
    }
    mcNum cen[3] = {0, 0, 0}, cov[9] = {0}, axis[3];
    int cnt = 0;
    for (int g = 0; g < ngeom; g++) {
      if (!collidable(m, g)) {
        continue;
      }
      if (m->geom_type[g] == mcGEOM_PLANE) {
        planes[nplane++] = g;
        continue;
      }
      for (int k = 0; k < 3; k++) {
        cen[k] += d->geom_xpos[3*g + k];
      }
      cnt++;
    }
    if (cnt) {
      for (int k = 0; k < 3; k++) {
        cen[k] /= cnt;
      }
    }
    for (int g = 0; g < ngeom; g++) {
      if (!collidable(m, g) || m->geom_type[g] == mcGEOM_PLANE) {
        continue;
      }
      mcNum dif[3];
      for (int k = 0; k < 3; k++) {
        dif[k] = d->geom_xpos[3*g + k] - cen[k];
      }
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          cov[3*r + c] += dif[r]*dif[c];
        }
      }
    }
    principalAxis(cov, axis);

    // project: the interval is the bounding sphere grown by the geom margin
    int override = m->opt.enableflags & mcENBL_OVERRIDE;
    for (int g = 0; g < ngeom; g++) {
      if (!collidable(m, g) || m->geom_type[g] == mcGEOM_PLANE) {
        continue;
      }
      const mcNum* p = d->geom_xpos + 3*g;
      mcNum c = p[0]*axis[0] + p[1]*axis[1] + p[2]*axis[2];
      mcNum r = m->geom_rbound[g] + (override ? m->opt.o_margin : m->geom_margin[g]);
      iv[niv].lo = c - r;
      iv[niv].hi = c + r;
      iv[niv].geom = g;
      niv++;
    }
    sortIntervals(iv, niv);
    ndyn = sweep(&ctx, iv, niv, planes, nplane, NULL);
  }

  // one list: explicit pairs, then dynamic ones
  size_t ncand = (size_t)(npre + ndyn + 1);
  mciCandidate* c = (mciCandidate*)mc_stackAlloc(d, sizeof(mciCandidate) * ncand,
                                                 _Alignof(mciCandidate));
  if (!c) {
    return -1;
  }
  for (int i = 0; i < npre; i++) {
    int b1 = m->geom_bodyid[m->pair_geom1[i]], b2 = m->geom_bodyid[m->pair_geom2[i]];
    c[i].sig = m->pair_signature[i] ? (uint32_t)m->pair_signature[i] : bodySignature(b1, b2);
    c[i].kind = 0;
    c[i].a = i;
    c[i].b = 0;
  }
  if (ndyn) {
    sweep(&ctx, iv, niv, planes, nplane, c + npre);
  }

  // merge in signature order
  sortCandidates(c, npre + ndyn);
  *list = c;
  return npre + ndyn;
}


//---------------------------------- narrow phase --------------------------------------------------

// collide one geom pair (ipair >= 0: explicit pair) and append its contacts to the arena;
// return 0 when the arena is full
static int collideGeoms(const mcModel* m, mcData* d, mcContact* scratch, int g1, int g2,
                        int ipair) {
  // lower geom type first
  if (m->geom_type[g1] > m->geom_type[g2]) {
    int t = g1;
    g1 = g2;
    g2 = t;
  }
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  mcpfCollide fn = mci_collisionFunc(t1, t2);
  if (!fn) {
    if (!staticTypePair(t1, t2)) {
      reportUnsupported(t1, t2);
    }
    return 1;
  }

  // parameters and margin
  mcContact param;
  mcNum margin, gap;
  if (ipair >= 0) {
    pairParam(m, &param, ipair, &margin, &gap);
  } else {
    mci_contactParam(m, &param, g1, g2, &margin, &gap);
  }
  if (m->opt.enableflags & mcENBL_OVERRIDE) {
    margin = m->opt.o_margin;
    for (int k = 0; k < mcNREF; k++) {
      param.solref[k] = m->opt.o_solref[k];
    }
    for (int k = 0; k < mcNIMP; k++) {
      param.solimp[k] = m->opt.o_solimp[k];
    }
  }
  for (int k = 0; k < 5; k++) {
    param.friction[k] = fmax(mcMINMU, param.friction[k]);
  }

  // bounding spheres (explicit pairs: with the pair's margin)
  if (ipair >= 0 && !mci_boundingFilter(m, d, g1, g2, margin)) {
    return 1;
  }

  // narrow phase on zeroed outputs (dist, pos, frame: the fields a narrow phase fills)
  for (int i = 0; i < mcMAXCONPAIR; i++) {
    scratch[i].dist = 0;
    memset(scratch[i].pos, 0, sizeof(scratch[i].pos));
    memset(scratch[i].frame, 0, sizeof(scratch[i].frame));
  }
  int num = fn(mcp_host(), m, d, scratch, g1, g2, margin);
  if (num > mcMAXCONPAIR) {
    num = mcMAXCONPAIR;
  }

  // append with the mixed parameters
  for (int i = 0; i < num; i++) {
    mcContact* con = NULL;
    if (m->nconmax <= 0 || d->ncon < m->nconmax) {
      con = (mcContact*)mci_arenaAlloc(d, sizeof(mcContact), _Alignof(mcContact));
    }
    if (!con) {
      mc_warning(d, mcWARN_CONTACTFULL, d->ncon);
      return 0;
    }
    memset(con, 0, sizeof(mcContact));
    con->dist = scratch[i].dist;
    memcpy(con->pos, scratch[i].pos, sizeof(con->pos));
    memcpy(con->frame, scratch[i].frame, sizeof(con->frame));
    mci_makeFrame(con->frame);
    con->includemargin = margin - gap;
    con->dim = param.dim;
    memcpy(con->friction, param.friction, sizeof(con->friction));
    memcpy(con->solref, param.solref, sizeof(con->solref));
    memcpy(con->solreffriction, param.solreffriction, sizeof(con->solreffriction));
    memcpy(con->solimp, param.solimp, sizeof(con->solimp));
    con->mu = 0;
    con->geom1 = g1;
    con->geom2 = g2;
    con->exclude = 0;
    con->efc_address = -1;
    d->ncon++;
  }
  return 1;
}


void mc_collision(const mcModel* m, mcData* d) {
  // contacts start the arena
  d->ncon = 0;
  d->parena = 0;
  d->contact = (mcContact*)d->arena;

  // disabled (contacts, or the whole constraint solver, as MuJoCo), or nothing to collide
  if ((m->opt.disableflags & (mcDSBL_CONTACT | mcDSBL_CONSTRAINT)) || m->ngeom < 1 ||
      (m->ngeom < 2 && m->npair == 0)) {
    return;
  }

  mc_markStack(d);
  mcContact* scratch = (mcContact*)mc_stackAlloc(d, sizeof(mcContact) * mcMAXCONPAIR,
                                                 _Alignof(mcContact));
  mciCandidate* list = NULL;
  int n = scratch ? candidates(m, d, &list) : -1;
  if (n < 0) {
    mci_message("mc_collision: scratch stack full; increase <size memory>");
    mc_freeStack(d);
    return;
  }

  // narrow phase in signature order
  for (int i = 0; i < n; i++) {
    const mciCandidate* c = list + i;
    int ok = c->kind == 0 ?
             collideGeoms(m, d, scratch, m->pair_geom1[c->a], m->pair_geom2[c->a], c->a) :
             collideGeoms(m, d, scratch, c->a, c->b, -1);
    if (!ok) {
      break;
    }
  }
  if (d->ncon > d->maxuse_con) {
    d->maxuse_con = d->ncon;
  }
  mc_freeStack(d);
}
