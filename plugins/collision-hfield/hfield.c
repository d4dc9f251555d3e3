// Moduco collision-hfield plugin: a height field against any convex geom (sphere, capsule,
// ellipsoid, cylinder, box, mesh). The field is a grid of nrow x ncol elevations over
// [-size0, size0] x [-size1, size1] (column index along x, row index along y), scaled by size2,
// with its base at -size3. Each grid cell is split along the diagonal (r,c)-(r+1,c+1) into two
// triangles, each extruded down to the base into a prism; the geom is tested against every prism
// under its bounding box by MPR, rows outer, columns inner, and per cell the triangle
// (r,c),(r+1,c+1),(r+1,c) before (r,c),(r,c+1),(r+1,c+1). As MuJoCo 2.2.2 does, only the geom
// is grown by half the margin and dist is minus the MPR depth (not corrected by the margin), so
// within-margin contacts agree with MuJoCo contact for contact. No allocation.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "mpr.h"
#include "support.h"

// one prism: six world-space vertices (bottom triangle, then top), optionally grown
typedef struct {
  mcNum v[6][3];
  mcNum margin;
} Prism;


// vertex with the largest projection (the first among ties), plus the margin
static void prismSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  const Prism* p = (const Prism*)obj;
  int best = 0;
  mcNum bestp = -INFINITY;
  for (int i = 0; i < 6; i++) {
    mcNum x = p->v[i][0]*dir[0] + p->v[i][1]*dir[1] + p->v[i][2]*dir[2];
    if (x >= bestp) {
      bestp = x;
      best = i;
    }
  }
  for (int k = 0; k < 3; k++) {
    res[k] = p->v[best][k] + 0.5*p->margin*dir[k];
  }
}


// the vertex average
static void prismCenter(const void* obj, mcNum res[3]) {
  const Prism* p = (const Prism*)obj;
  for (int k = 0; k < 3; k++) {
    mcNum s = 0;
    for (int i = 0; i < 6; i++) {
      s += p->v[i][k];
    }
    res[k] = s / 6;
  }
}


// grid index range [lo, hi] of cells overlapping [a, b] along one axis of n points over
// [-half, half]; return 0 when empty
static int cellRange(mcNum a, mcNum b, mcNum half, int n, int* lo, int* hi) {
  mcNum step = 2*half / (n - 1);
  if (b < -half || a > half) {
    return 0;
  }
  int i0 = (int)floor((a + half) / step), i1 = (int)floor((b + half) / step);
  *lo = i0 < 0 ? 0 : i0;
  *hi = i1 > n - 2 ? n - 2 : i1;
  return *lo <= *hi;
}


// hfield geom g1 against convex geom g2
static int hfieldConvex(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                        int g1, int g2, mcNum margin) {
  int id = m->geom_dataid[g1];
  if (id < 0 || id >= m->nhfield) {
    return 0;
  }
  const mcNum* hs = m->hfield_size + 4*id;
  int nrow = m->hfield_nrow[id], ncol = m->hfield_ncol[id];
  const float* data = m->hfield_data + m->hfield_adr[id];
  const mcNum* hpos = d->geom_xpos + 3*g1;
  const mcNum* hmat = d->geom_xmat + 9*g1;
  if (nrow < 2 || ncol < 2) {
    return 0;
  }

  // the geom's bounding box in the hfield frame (from its support along the hfield axes)
  ConvexObj obj = {m, d, g2, margin};
  mcNum lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    mcNum ax[3] = {hmat[k], hmat[3 + k], hmat[6 + k]}, nax[3] = {-ax[0], -ax[1], -ax[2]};
    mcNum sp[3], sn[3];
    geomSupport(&obj, ax, sp);
    geomSupport(&obj, nax, sn);
    hi[k] = (sp[0] - hpos[0])*ax[0] + (sp[1] - hpos[1])*ax[1] + (sp[2] - hpos[2])*ax[2];
    lo[k] = (sn[0] - hpos[0])*ax[0] + (sn[1] - hpos[1])*ax[1] + (sn[2] - hpos[2])*ax[2];
    lo[k] -= 0.5*margin;
    hi[k] += 0.5*margin;
  }

  // above the highest possible top or below the base: nothing
  if (lo[2] > hs[2] + margin || hi[2] < -hs[3] - margin) {
    return 0;
  }
  int c0, c1, r0, r1;
  if (!cellRange(lo[0], hi[0], hs[0], ncol, &c0, &c1) ||
      !cellRange(lo[1], hi[1], hs[1], nrow, &r0, &r1)) {
    return 0;
  }

  // prisms under the box, two per cell
  static const int tri[2][3] = {{0, 3, 2}, {0, 1, 3}};
  mcmQuery q = {NULL, &obj, prismSupport, geomSupport, prismCenter, geomCenter,
                m->opt.mpr_tolerance > 0 ? m->opt.mpr_tolerance : 1e-6,
                m->opt.mpr_iterations > 0 ? m->opt.mpr_iterations : 50};
  int cnt = 0;
  for (int r = r0; r <= r1; r++) {
    for (int c = c0; c <= c1; c++) {
      for (int t = 0; t < 2; t++) {
        if (cnt >= mcMAXCONPAIR) {
          return cnt;
        }

        // corners 0 (r,c), 1 (r,c+1), 2 (r+1,c), 3 (r+1,c+1): bottom and top in world
        Prism p;
        p.margin = 0;
        for (int k = 0; k < 3; k++) {
          int rr = r + tri[t][k] / 2, cc = c + tri[t][k] % 2;
          mcNum top[3] = {-hs[0] + 2*hs[0]*cc / (ncol - 1), -hs[1] + 2*hs[1]*rr / (nrow - 1),
                          hs[2]*data[rr*ncol + cc]};
          mcNum bot[3] = {top[0], top[1], -hs[3]};
          for (int j = 0; j < 3; j++) {
            p.v[k][j] = hpos[j] + hmat[3*j]*bot[0] + hmat[3*j + 1]*bot[1] + hmat[3*j + 2]*bot[2];
            p.v[k + 3][j] = hpos[j] + hmat[3*j]*top[0] + hmat[3*j + 1]*top[1] +
                            hmat[3*j + 2]*top[2];
          }
        }

        // MPR between the prism and the geom
        mcNum depth, dir[3], pos[3];
        q.obj1 = &p;
        if (mcm_penetration(&q, &depth, dir, pos) != 0) {
          continue;
        }
        if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0) {
          continue;
        }
        mcContact* cn = con + cnt++;
        cn->dist = -depth;
        memcpy(cn->pos, pos, sizeof(mcNum) * 3);
        memcpy(cn->frame, dir, sizeof(mcNum) * 3);
        memset(cn->frame + 3, 0, sizeof(mcNum) * 6);
      }
    }
  }
  return cnt;
}


//---------------------------------- plugin descriptor ---------------------------------------------

static const mcpCollisionPair g_pairs[] = {
  {mcGEOM_HFIELD, mcGEOM_SPHERE, hfieldConvex},
  {mcGEOM_HFIELD, mcGEOM_CAPSULE, hfieldConvex},
  {mcGEOM_HFIELD, mcGEOM_ELLIPSOID, hfieldConvex},
  {mcGEOM_HFIELD, mcGEOM_CYLINDER, hfieldConvex},
  {mcGEOM_HFIELD, mcGEOM_BOX, hfieldConvex},
  {mcGEOM_HFIELD, mcGEOM_MESH, hfieldConvex},
};

static const mcpCollision g_plugin = {
  MCP_HEADER(mcpKIND_COLLISION, mcpCollision, "hfield", "1.0.0",
             "height field against convex geoms as a union of triangular prisms (MPR)", -1),
  0,
  (int)(sizeof(g_pairs) / sizeof(g_pairs[0])),
  g_pairs
};

static const mcpHeader* const g_list[] = {&g_plugin.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("collision-hfield", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (!host || host->abi_major != MCP_ABI_MAJOR) {
    return NULL;
  }
  return &g_library;
}
