// Moduco collision-hfield plugin: a height field against any convex geom (sphere, capsule,
// ellipsoid, cylinder, box, mesh). The field is a grid of nrow x ncol elevations over
// [-size0, size0] x [-size1, size1] (column index along x, row index along y), scaled by size2,
// with its base at -size3. Each grid cell is split along the diagonal (r,c)-(r+1,c+1) into two
// triangles, each extruded down to the base into a prism; the geom is tested against every prism
// under its bounding box by MPR, rows outer, columns inner, and per cell the triangle
// (r+1,c),(r,c),(r+1,c+1) before (r,c),(r+1,c+1),(r,c+1) (corners in that order).
// What MuJoCo 2.2.2 does, found by probing it as a black box (its MPR inputs and outputs recorded
// at libccd's interface), and reproduced here bit for bit on the probed poses:
// - everything happens in the hfield frame: the geom posed relative to the field
//   (pos = hmat'(xpos - hpos), mat = hmat' xmat), grid points at (c dx - size0, r dy - size1) with
//   dx = 2 size0 / (ncol - 1), dy likewise; MPR's position and direction turned back to the world;
// - the geom's bounding box (not grown by the margin) picks the cells, and a prism whose top
//   corners all lie below the box is skipped;
// - with margin 0 (MuJoCo 2.2.2, bit for bit): dist is minus the MPR depth. With a margin, 2.2.2
//   (and 3.14 alike) raises the prism's top by the margin and grows the geom by half of it, and
//   MPR then escapes through the prisms' side walls: a sphere 0.13 m above a flat field reads
//   0.1-0.2 m deep with tilted normals. Here instead MPR runs on the bare shapes (a penetration
//   as with margin 0), and a geom that does not overlap a prism but comes within the margin of
//   its top face gets a contact at its true distance over that face, along the face normal
//   (topFace), when its lowest point lies above the face;
// - the prism's centre is its vertex average, its support the top (or base) triangle by the sign
//   of the direction's vertical component, first corner with the largest projection;
// - the contact normal is the one 2.2.2 reports for MPR contacts (smoothContactNormal, support.h:
//   the smooth geom's surface normal at the contact point where it has one).
// With the nativeccd flag (on by default, as in MuJoCo 3.x) the same prisms go through GJK and EPA
// instead of MPR (prismNative), as MuJoCo 3.14 does: contact normal and depth of the exact shapes
// (a flat plateau's normal is +z; MPR's tilted it by 3e-5); the margin as above (topFace).
// No allocation.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "gjk.h"
#include "mpr.h"

// support.h's world-frame geomSupport and geomCenter are not used here (MPR runs in the hfield
// frame, see localGeomSupport)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support.h"
#pragma GCC diagnostic pop

// One prism in the hfield frame: three corners of a grid triangle at the base (v[0..2]) and at
// their elevation plus the margin (v[3..5]), in MuJoCo 2.2.2's corner order.
typedef struct {
  mcNum v[6][3];
} Prism;


// The geom posed in the hfield frame: pos = hmat' (xpos - hpos), mat = hmat' xmat. core: a
// sphere or capsule taken as its centre point or axis segment (nativeccd, prismNative).
typedef struct {
  ConvexObj o;
  mcNum pos[3];
  mcNum mat[9];
  int core;
} LocalGeom;


// Support of the prism as MuJoCo 2.2.2 takes it (probed as a black box): the top triangle for a
// direction whose vertical component is >= 0, the base otherwise, and in it the first corner with
// the largest projection (strictly larger replaces); not grown by the margin. Ties are common
// (MPR's portal normals are often normal to a prism edge, or horizontal), so the rule, the corner
// order and the frame decide which face of a box or cylinder MPR follows.
static void prismSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  const Prism* p = (const Prism*)obj;
  int i0 = dir[2] >= 0 ? 3 : 0, best = i0;
  mcNum bestp = p->v[i0][0]*dir[0] + p->v[i0][1]*dir[1] + p->v[i0][2]*dir[2];
  for (int i = i0 + 1; i < i0 + 3; i++) {
    mcNum x = p->v[i][0]*dir[0] + p->v[i][1]*dir[1] + p->v[i][2]*dir[2];
    if (x > bestp) {
      bestp = x;
      best = i;
    }
  }
  res[0] = p->v[best][0];
  res[1] = p->v[best][1];
  res[2] = p->v[best][2];
}


// the vertex average (summed in corner order, times 1/6)
static void prismCenter(const void* obj, mcNum res[3]) {
  const Prism* p = (const Prism*)obj;
  for (int k = 0; k < 3; k++) {
    mcNum s = 0;
    for (int i = 0; i < 6; i++) {
      s += p->v[i][k];
    }
    res[k] = s * (1.0/6);
  }
}


// Support of the geom in the hfield frame, with the rounding of MuJoCo 2.2.2, which runs MPR in
// the hfield frame (bit for bit on the probed poses, meshes included): the direction taken as it
// comes when it is a unit vector, turned into the geom frame, the support there (localSupport,
// support.h) grown by half the margin along it, turned back as (mat*local) + pos.
static void localGeomSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  const LocalGeom* lg = (const LocalGeom*)obj;
  const mcNum* mat = lg->mat;
  if (lg->core) {  // the centre, or the end of the capsule's segment along dir
    const mcModel* m = lg->o.m;
    int g = lg->o.geom;
    mcNum h = m->geom_type[g] == mcGEOM_CAPSULE ? m->geom_size[3*g + 1] : 0;
    mcNum along = dir[0]*mat[2] + dir[1]*mat[5] + dir[2]*mat[8];
    mcNum side = along > 0 ? h : (along < 0 ? -h : 0);
    for (int k = 0; k < 3; k++) {
      res[k] = lg->pos[k] + side*mat[3*k + 2];
    }
    return;
  }
  mcNum w[3] = {dir[0], dir[1], dir[2]}, loc[3], sp[3];
  mcNum len2 = w[0]*w[0] + w[1]*w[1] + w[2]*w[2];
  if (fabs(len2 - 1) > 1e-12 && len2 > mcMINVAL*mcMINVAL) {
    mcNum len = sqrt(len2);
    for (int k = 0; k < 3; k++) {
      w[k] /= len;
    }
  }
  for (int k = 0; k < 3; k++) {
    loc[k] = mat[k]*w[0] + mat[3 + k]*w[1] + mat[6 + k]*w[2];
  }
  localSupport(&lg->o, loc, sp);
  for (int k = 0; k < 3; k++) {
    sp[k] += 0.5*lg->o.margin*loc[k];
  }
  for (int k = 0; k < 3; k++) {
    res[k] = (mat[3*k]*sp[0] + mat[3*k + 1]*sp[1] + mat[3*k + 2]*sp[2]) + lg->pos[k];
  }
}


// the geom centre in the hfield frame
static void localGeomCenter(const void* obj, mcNum res[3]) {
  const LocalGeom* lg = (const LocalGeom*)obj;
  res[0] = lg->pos[0];
  res[1] = lg->pos[1];
  res[2] = lg->pos[2];
}


// grid index range [lo, hi] of cells overlapping [a, b] along one axis of n points over
// [-half, half]; return 0 when empty
static int cellRange(mcNum a, mcNum b, mcNum half, int n, int* lo, int* hi) {
  mcNum step = 2*half / (n - 1);
  if (!(b >= -half) || !(a <= half)) {  // also NaN
    return 0;
  }
  // clamp before converting: a far-away (or huge) bound is outside the range of int
  mcNum f0 = floor((a + half) / step), f1 = floor((b + half) / step);
  *lo = f0 < 0 ? 0 : (int)f0;
  *hi = f1 > n - 2 ? n - 2 : (int)f1;
  return *lo <= *hi;
}


// A geom that does not overlap the bare prism p but comes within the margin of its top face:
// its support point along minus the face's upward normal n lies above the face's footprint at
// height h < margin over the face's plane. Then depth = -h, dir = n and pos the point h/2 below
// the support point (the middle of the gap), in the hfield frame; return 1. The prism's side walls
// are not surfaces of the field (neighbouring prisms share them), so a geom beside a prism is left
// to the prisms it is above: raising the prism by the margin and growing the geom instead (2.2.2,
// and 3.14 the same) lets MPR find the shorter way out through a side wall, reporting a sphere
// 0.05 m above a flat field with margin 0.1 as 0.08 m deep with tilted or horizontal normals.
static int topFace(const Prism* p, const LocalGeom* bare, mcNum margin, mcNum* depth,
                   mcNum dir[3], mcNum pos[3]) {
  const mcNum* a = p->v[3];
  const mcNum* b = p->v[4];
  const mcNum* c = p->v[5];
  mcNum e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  mcNum e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  mcNum n[3] = {e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]};
  if (n[2] < 0) {
    n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
  }
  mcNum len = sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]);
  if (!(len > mcMINVAL)) {
    return 0;
  }
  mcNum neg[3], sp[3];
  for (int k = 0; k < 3; k++) {
    n[k] /= len;
    neg[k] = -n[k];
  }
  localGeomSupport(bare, neg, sp);
  mcNum h = n[0]*(sp[0] - a[0]) + n[1]*(sp[1] - a[1]) + n[2]*(sp[2] - a[2]);
  if (!(h >= 0 && h < margin)) {
    return 0;
  }

  // the support point's footprint inside the triangle's (barycentric in x, y)
  mcNum det = e1[0]*e2[1] - e1[1]*e2[0];
  mcNum px = sp[0] - a[0], py = sp[1] - a[1];
  mcNum u = (px*e2[1] - py*e2[0]) / det, w = (e1[0]*py - e1[1]*px) / det;
  if (!(u >= 0 && w >= 0 && u + w <= 1)) {
    return 0;
  }
  *depth = -h;
  for (int k = 0; k < 3; k++) {
    dir[k] = n[k];
    pos[k] = sp[k] - 0.5*h*n[k];
  }
  return 1;
}


// MuJoCo 3.x's native collision (the nativeccd flag, on by default in 3.x): the bare prism p and
// the bare geom by GJK and EPA (collision-gjk's gjk.c and epa.c), a sphere or capsule as its
// centre point or segment with the radius added after, as collision-gjk takes them: exact, so a
// geom on a flat part of the field gets the face's normal and the true depth, where MPR stops at
// its tolerance and 2.2.2's normal is the geom's surface normal at MPR's point (tilted by up to
// 6e-5 on a flat plateau). Return 1 when they overlap: depth, dir (prism to geom) and pos (midway
// between the deepest points) in the hfield frame.
static int prismNative(const Prism* p, const LocalGeom* bare, mcNum scale, mcNum* depth,
                       mcNum dir[3], mcNum pos[3]) {
  const mcModel* m = bare->o.m;
  int g = bare->o.geom, t = m->geom_type[g];
  LocalGeom core = *bare;
  core.core = t == mcGEOM_SPHERE || t == mcGEOM_CAPSULE;
  for (;;) {
    mcNum r = core.core ? m->geom_size[3*g] : 0;
    gjkQuery q = {p, &core, prismSupport, localGeomSupport, {0, 0, 0},
                  {bare->pos[0], bare->pos[1], bare->pos[2]}, 1e-15*scale, 250, r};
    prismCenter(p, q.center1);
    gjkSimplex simplex;
    mcNum dist, x1[3], x2[3];
    gjkResult res = gjk_distance(&q, &dist, x1, x2, &simplex);
    if (res == gjkBEYOND) {
      return 0;
    }
    int ok = res == gjkSEPARATED ? dist > 0 : epa_penetration(&q, &simplex, depth, dir, x1, x2);
    if (ok && res == gjkSEPARATED) {
      if (!(dist < r)) {
        return 0;
      }
      for (int k = 0; k < 3; k++) {
        dir[k] = (x2[k] - x1[k]) / dist;
      }
      *depth = -dist;
    }
    if (!ok && core.core) {  // a core on the prism's surface: the whole shapes
      core.core = 0;
      continue;
    }
    if (!ok) {
      return 0;
    }
    *depth += r;
    for (int k = 0; k < 3; k++) {
      pos[k] = 0.5*(x1[k] + x2[k] - r*dir[k]);
    }
    return *depth > 0;  // touching (a geom face on a grid line) is no contact, as in 3.14
  }
}


// one contact from the hfield frame's depth, direction and position, turned back to the world;
// smooth: the normal as 2.2.2 reports MPR contacts (support.h), else dir itself
static void addContact(const mcModel* m, const mcData* d, mcContact* cn, const mcNum* hpos,
                       const mcNum* hmat, int g1, int g2, mcNum depth, const mcNum dir[3],
                       const mcNum pos[3], int smooth) {
  cn->dist = -depth;
  for (int k = 0; k < 3; k++) {
    cn->pos[k] = hmat[3*k]*pos[0] + hmat[3*k + 1]*pos[1] + hmat[3*k + 2]*pos[2] + hpos[k];
    cn->frame[k] = hmat[3*k]*dir[0] + hmat[3*k + 1]*dir[1] + hmat[3*k + 2]*dir[2];
  }
  if (smooth) {
    smoothContactNormal(m, d, g1, g2, cn->pos, cn->frame);
  }
  memset(cn->frame + 3, 0, sizeof(mcNum) * 6);
}


// hfield geom g1 against convex geom g2. As MuJoCo 2.2.2 does, everything happens in the hfield
// frame (the geom posed relative to it, contact position and normal turned back to the world).
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

  // the geom in the hfield frame
  LocalGeom lg = {{m, d, g2, margin}};
  const mcNum* gpos = d->geom_xpos + 3*g2;
  const mcNum* gmat = d->geom_xmat + 9*g2;
  mcNum rel[3] = {gpos[0] - hpos[0], gpos[1] - hpos[1], gpos[2] - hpos[2]};
  for (int i = 0; i < 3; i++) {
    lg.pos[i] = hmat[i]*rel[0] + hmat[3 + i]*rel[1] + hmat[6 + i]*rel[2];
    for (int j = 0; j < 3; j++) {
      lg.mat[3*i + j] = hmat[i]*gmat[j] + hmat[3 + i]*gmat[3 + j] + hmat[6 + i]*gmat[6 + j];
    }
  }

  // its bounding box there, not grown by the margin (from its support along the axes)
  LocalGeom bare = lg;
  bare.o.margin = 0;
  mcNum lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    mcNum ax[3] = {0, 0, 0}, nax[3] = {0, 0, 0}, sp[3], sn[3];
    ax[k] = 1;
    nax[k] = -1;
    localGeomSupport(&bare, ax, sp);
    localGeomSupport(&bare, nax, sn);
    hi[k] = sp[k];
    lo[k] = sn[k];
  }

  // below the base (where the grown geom cannot reach a prism): nothing
  if (hi[2] < -hs[3] - margin) {
    return 0;
  }
  int c0, c1, r0, r1;
  if (!cellRange(lo[0], hi[0], hs[0], ncol, &c0, &c1) ||
      !cellRange(lo[1], hi[1], hs[1], nrow, &r0, &r1)) {
    return 0;
  }

  // prisms under the box, two per cell, corners (in 2.2.2's order, which decides the support's
  // ties) 0 (r,c), 1 (r,c+1), 2 (r+1,c), 3 (r+1,c+1)
  static const int tri[2][3] = {{2, 0, 3}, {0, 3, 1}};
  mcNum dx = 2*hs[0] / (ncol - 1), dy = 2*hs[1] / (nrow - 1);
  mcmQuery q = {NULL, margin > 0 ? &bare : &lg, prismSupport, localGeomSupport, prismCenter,
                localGeomCenter,
                m->opt.mpr_tolerance > 0 ? m->opt.mpr_tolerance : 1e-6,
                m->opt.mpr_iterations > 0 ? m->opt.mpr_iterations : 50};
  int native = (m->opt.enableflags & mcENBL_NATIVECCD) != 0;
  mcNum scale = m->geom_rbound[g2] + hs[2] + hs[3] + dx + dy;  // for GJK's tolerance
  int cnt = 0;
  for (int r = r0; r <= r1; r++) {
    for (int c = c0; c <= c1; c++) {
      for (int t = 0; t < 2; t++) {
        if (cnt >= mcMAXCONPAIR) {
          return cnt;
        }
        Prism p;
        for (int k = 0; k < 3; k++) {
          int rr = r + tri[t][k] / 2, cc = c + tri[t][k] % 2;
          p.v[k][0] = p.v[k + 3][0] = cc*dx - hs[0];
          p.v[k][1] = p.v[k + 3][1] = rr*dy - hs[1];
          p.v[k][2] = -hs[3];
          p.v[k + 3][2] = hs[2]*data[rr*ncol + cc] + margin;
        }

        // a prism whose top corners (raised by the margin) all lie below the geom's bounding box
        // is skipped, as 2.2.2 does (the grown geom may still reach it within the margin)
        if (fmax(fmax(p.v[3][2], p.v[4][2]), p.v[5][2]) < lo[2]) {
          continue;
        }

        // with a margin: MPR on the bare shapes (prism not raised, geom not grown), and the
        // top face's distance when they do not overlap (topFace)
        if (margin > 0) {
          for (int k = 0; k < 3; k++) {
            p.v[k + 3][2] = hs[2]*data[(r + tri[t][k] / 2)*ncol + c + tri[t][k] % 2];
          }
        }

        // nativeccd: GJK and EPA on the bare shapes (with a margin as for MPR: topFace)
        mcNum depth, dir[3], pos[3];
        if (native) {
          if (prismNative(&p, &bare, scale, &depth, dir, pos) ||
              (margin > 0 && topFace(&p, &bare, margin, &depth, dir, pos))) {
            addContact(m, d, con + cnt++, hpos, hmat, g1, g2, depth, dir, pos, 0);
          }
          continue;
        }

        // MPR between the prism and the geom (and with a margin, topFace)
        q.obj1 = &p;
        if (mcm_penetration(&q, &depth, dir, pos) != 0) {
          if (margin > 0 && topFace(&p, &bare, margin, &depth, dir, pos)) {
            addContact(m, d, con + cnt++, hpos, hmat, g1, g2, depth, dir, pos, 0);
          }
          continue;
        }
        if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0) {
          continue;
        }

        addContact(m, d, con + cnt++, hpos, hmat, g1, g2, depth, dir, pos, 1);
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
