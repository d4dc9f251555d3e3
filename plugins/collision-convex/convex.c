// Moduco collision-convex plugin: any pair of convex geoms (sphere, capsule, ellipsoid,
// cylinder, box, mesh hull) through libccd's Minkowski Portal Refinement, with
// opt.mpr_tolerance and opt.mpr_iterations; plane-mesh by the mesh's support point. Registered
// at a lower priority than the analytic primitives, so it fills the pairs they leave open.
#include <math.h>
#include <string.h>

#include <ccd/ccd.h>
#include <ccd/vec3.h>

#include <moduco/mcplugin.h>

// one convex object for libccd: a geom with its pose, grown by half the margin
typedef struct {
  const mcModel* m;
  const mcData* d;
  int geom;
  mcNum margin;
} ConvexObj;


// support point in the geom frame for a unit local direction
static void localSupport(const ConvexObj* o, const mcNum dir[3], mcNum res[3]) {
  const mcModel* m = o->m;
  const mcNum* s = m->geom_size + 3*o->geom;
  switch (m->geom_type[o->geom]) {
  case mcGEOM_SPHERE:
    for (int k = 0; k < 3; k++) {
      res[k] = s[0]*dir[k];
    }
    break;

  case mcGEOM_CAPSULE:
    for (int k = 0; k < 3; k++) {
      res[k] = s[0]*dir[k];
    }
    res[2] += dir[2] >= 0 ? s[1] : -s[1];
    break;

  case mcGEOM_ELLIPSOID: {
    mcNum su[3] = {s[0]*dir[0], s[1]*dir[1], s[2]*dir[2]};
    mcNum len = sqrt(su[0]*su[0] + su[1]*su[1] + su[2]*su[2]);
    for (int k = 0; k < 3; k++) {
      res[k] = len > mcMINVAL ? s[k]*su[k]/len : 0;
    }
    break;
  }

  case mcGEOM_CYLINDER: {
    mcNum len = sqrt(dir[0]*dir[0] + dir[1]*dir[1]);
    res[0] = len > mcMINVAL ? s[0]*dir[0]/len : 0;
    res[1] = len > mcMINVAL ? s[0]*dir[1]/len : 0;
    res[2] = dir[2] >= 0 ? s[1] : -s[1];
    break;
  }

  case mcGEOM_BOX:
    for (int k = 0; k < 3; k++) {
      res[k] = dir[k] >= 0 ? s[k] : -s[k];
    }
    break;

  case mcGEOM_MESH: {
    // vertex with the largest projection (the hull has the same support)
    int id = m->geom_dataid[o->geom];
    res[0] = res[1] = res[2] = 0;
    if (id < 0 || !m->nmesh || !m->mesh_vert) {
      break;
    }
    const float* v = m->mesh_vert + 3*m->mesh_vertadr[id];
    int n = m->mesh_vertnum[id], best = 0;
    mcNum bestp = -INFINITY;
    for (int i = 0; i < n; i++) {
      mcNum p = dir[0]*v[3*i] + dir[1]*v[3*i + 1] + dir[2]*v[3*i + 2];
      if (p > bestp) {
        bestp = p;
        best = i;
      }
    }
    if (n) {
      for (int k = 0; k < 3; k++) {
        res[k] = v[3*best + k];
      }
    }
    break;
  }

  default:
    res[0] = res[1] = res[2] = 0;
  }
}


// libccd support callback: world direction in, world support point out
static void support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* vec) {
  const ConvexObj* o = (const ConvexObj*)obj;
  const mcNum* pos = o->d->geom_xpos + 3*o->geom;
  const mcNum* mat = o->d->geom_xmat + 9*o->geom;
  mcNum w[3] = {dir->v[0], dir->v[1], dir->v[2]}, loc[3], res[3];
  mcNum len = sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2]);
  if (len > mcMINVAL) {
    for (int k = 0; k < 3; k++) {
      w[k] /= len;
    }
  }

  // to the geom frame and back
  for (int k = 0; k < 3; k++) {
    loc[k] = mat[k]*w[0] + mat[3 + k]*w[1] + mat[6 + k]*w[2];
  }
  localSupport(o, loc, res);
  for (int k = 0; k < 3; k++) {
    vec->v[k] = pos[k] + mat[3*k]*res[0] + mat[3*k + 1]*res[1] + mat[3*k + 2]*res[2] +
                0.5*o->margin*w[k];
  }
}


static void center(const void* obj, ccd_vec3_t* c) {
  const ConvexObj* o = (const ConvexObj*)obj;
  const mcNum* pos = o->d->geom_xpos + 3*o->geom;
  c->v[0] = pos[0];
  c->v[1] = pos[1];
  c->v[2] = pos[2];
}


// MPR on the margin-grown shapes: depth beyond the margin is the penetration
static int convexConvex(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                        int g1, int g2, mcNum margin) {
  ConvexObj o1 = {m, d, g1, margin}, o2 = {m, d, g2, margin};
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = support;
  ccd.support2 = support;
  ccd.center1 = center;
  ccd.center2 = center;
  ccd.max_iterations = (unsigned long)(m->opt.mpr_iterations > 0 ? m->opt.mpr_iterations : 50);
  ccd.mpr_tolerance = m->opt.mpr_tolerance > 0 ? m->opt.mpr_tolerance : 1e-6;

  ccd_real_t depth;
  ccd_vec3_t dir, pos;
  if (ccdMPRPenetration(&o1, &o2, &ccd, &depth, &dir, &pos) != 0) {
    return 0;
  }
  con->dist = margin - depth;
  for (int k = 0; k < 3; k++) {
    con->pos[k] = pos.v[k];
    con->frame[k] = dir.v[k];
  }
  memset(con->frame + 3, 0, sizeof(mcNum) * 6);
  return 1;
}


// plane against a convex geom: the support point in the direction of -normal
static int planeConvex(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                       int g1, int g2, mcNum margin) {
  const mcNum* ppos = d->geom_xpos + 3*g1;
  const mcNum* pmat = d->geom_xmat + 9*g1;
  mcNum n[3] = {pmat[2], pmat[5], pmat[8]};
  ConvexObj o = {m, d, g2, 0};
  ccd_vec3_t dir = {{-n[0], -n[1], -n[2]}}, pt;
  support(&o, &dir, &pt);
  mcNum dist = (pt.v[0] - ppos[0])*n[0] + (pt.v[1] - ppos[1])*n[1] + (pt.v[2] - ppos[2])*n[2];
  if (dist > margin) {
    return 0;
  }
  con->dist = dist;
  for (int k = 0; k < 3; k++) {
    con->pos[k] = pt.v[k] - 0.5*dist*n[k];
    con->frame[k] = n[k];
  }
  memset(con->frame + 3, 0, sizeof(mcNum) * 6);
  return 1;
}


//---------------------------------- plugin descriptor ---------------------------------------------

static const mcpCollisionPair g_pairs[] = {
  {mcGEOM_PLANE, mcGEOM_ELLIPSOID, planeConvex},
  {mcGEOM_PLANE, mcGEOM_MESH, planeConvex},
  {mcGEOM_SPHERE, mcGEOM_SPHERE, convexConvex},
  {mcGEOM_SPHERE, mcGEOM_CAPSULE, convexConvex},
  {mcGEOM_SPHERE, mcGEOM_ELLIPSOID, convexConvex},
  {mcGEOM_SPHERE, mcGEOM_CYLINDER, convexConvex},
  {mcGEOM_SPHERE, mcGEOM_BOX, convexConvex},
  {mcGEOM_SPHERE, mcGEOM_MESH, convexConvex},
  {mcGEOM_CAPSULE, mcGEOM_CAPSULE, convexConvex},
  {mcGEOM_CAPSULE, mcGEOM_ELLIPSOID, convexConvex},
  {mcGEOM_CAPSULE, mcGEOM_CYLINDER, convexConvex},
  {mcGEOM_CAPSULE, mcGEOM_BOX, convexConvex},
  {mcGEOM_CAPSULE, mcGEOM_MESH, convexConvex},
  {mcGEOM_ELLIPSOID, mcGEOM_ELLIPSOID, convexConvex},
  {mcGEOM_ELLIPSOID, mcGEOM_CYLINDER, convexConvex},
  {mcGEOM_ELLIPSOID, mcGEOM_BOX, convexConvex},
  {mcGEOM_ELLIPSOID, mcGEOM_MESH, convexConvex},
  {mcGEOM_CYLINDER, mcGEOM_CYLINDER, convexConvex},
  {mcGEOM_CYLINDER, mcGEOM_BOX, convexConvex},
  {mcGEOM_CYLINDER, mcGEOM_MESH, convexConvex},
  {mcGEOM_BOX, mcGEOM_BOX, convexConvex},
  {mcGEOM_BOX, mcGEOM_MESH, convexConvex},
  {mcGEOM_MESH, mcGEOM_MESH, convexConvex},
};

static const mcpCollision g_plugin = {
  MCP_HEADER(mcpKIND_COLLISION, mcpCollision, "convex", "1.0.0",
             "any convex pair (mesh hulls included) by libccd MPR", -1),
  -10,
  (int)(sizeof(g_pairs) / sizeof(g_pairs[0])),
  g_pairs
};

static const mcpHeader* const g_list[] = {&g_plugin.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("collision-convex", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (!host || host->abi_major != MCP_ABI_MAJOR) {
    return NULL;
  }
  return &g_library;
}
