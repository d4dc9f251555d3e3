// Moduco collision-convex plugin: any pair of convex geoms (sphere, capsule, ellipsoid,
// cylinder, box, mesh hull) through libccd's Minkowski Portal Refinement, with
// opt.mpr_tolerance and opt.mpr_iterations; plane-mesh by the mesh's support point. Registered
// at a lower priority than the analytic primitives, so it fills the pairs they leave open.
#include <math.h>
#include <string.h>

#include <ccd/ccd.h>
#include <ccd/vec3.h>

#include <moduco/mcplugin.h>

#include "multiccd.h"
#include "support.h"

// libccd support callback: world direction in, world support point out, as MuJoCo 2.2.2's
// (support.h geomSupport222: for meshes 2.2.2's choice among tied vertices and its rounding)
static void support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* vec) {
  geomSupport222(obj, dir->v, vec->v);
}


static void center(const void* obj, ccd_vec3_t* c) {
  geomCenter(obj, c->v);
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
  smoothContactNormal(m, d, g1, g2, con->pos, con->frame);  // as MuJoCo 2.2.2 (support.h)
  memset(con->frame + 3, 0, sizeof(mcNum) * 6);
  if (m->opt.enableflags & mcENBL_MULTICCD) {  // several contacts (multiccd.c)
    return mccd_multiContact(m, d, con, g1, g2, margin);
  }
  return 1;
}


// one vertex (world position pt) against the plane through pp with unit normal n
static int vertexOnPlane(mcContact* con, mcNum margin, const mcNum pp[3], const mcNum n[3],
                         const mcNum pt[3]) {
  mcNum dist = (pt[0] - pp[0])*n[0] + (pt[1] - pp[1])*n[1] + (pt[2] - pp[2])*n[2];
  if (dist > margin) {
    return 0;
  }
  con->dist = dist;
  for (int k = 0; k < 3; k++) {
    con->pos[k] = pt[k] - 0.5*dist*n[k];
    con->frame[k] = n[k];
  }
  memset(con->frame + 3, 0, sizeof(mcNum) * 6);
  return 1;
}


// world position of vertex i of mesh geom g
static void meshVertex(const mcModel* m, const mcData* d, int g, int i, mcNum res[3]) {
  const float* v = m->mesh_vert + 3*(m->mesh_vertadr[m->geom_dataid[g]] + i);
  const mcNum* pos = d->geom_xpos + 3*g;
  const mcNum* mat = d->geom_xmat + 9*g;
  for (int k = 0; k < 3; k++) {
    res[k] = pos[k] + mat[3*k]*v[0] + mat[3*k + 1]*v[1] + mat[3*k + 2]*v[2];
  }
}


// plane against a convex geom: the support point in the direction of -normal; for a mesh with
// a hull graph also the first two hull neighbours of that vertex (in the graph's edge order)
// that lie within the margin and whose vertex is at least 0.3*geom_rbound away from the first
// contact's point (the midpoint between the deepest vertex and the plane): at most three
// contacts, as MuJoCo 2.2.2 (rule found by probing, see tests/collision/test_collision_pairs.c)
static int planeConvex(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                       int g1, int g2, mcNum margin) {
  const mcNum* ppos = d->geom_xpos + 3*g1;
  const mcNum* pmat = d->geom_xmat + 9*g1;
  mcNum n[3] = {pmat[2], pmat[5], pmat[8]};
  int id = m->geom_dataid[g2];
  int graph = m->geom_type[g2] == mcGEOM_MESH && id >= 0 && m->nmeshgraph &&
              m->mesh_graphadr && m->mesh_graphadr[id] >= 0 && m->mesh_vertnum[id] > 0 &&
              m->mesh_graph[m->mesh_graphadr[id]] > 0;

  // no hull graph: the support point only
  if (!graph) {
    ConvexObj o = {m, d, g2, 0};
    ccd_vec3_t dir = {{-n[0], -n[1], -n[2]}}, pt;
    support(&o, &dir, &pt);
    return vertexOnPlane(con, margin, ppos, n, pt.v);
  }

  // deepest hull vertex: largest projection on -normal in the mesh frame
  const mcNum* mat = d->geom_xmat + 9*g2;
  const MeshHull h = meshHull(m, id);
  int nv = h.nv;
  const int *edgeadr = h.edgeadr, *gid = h.gid, *edge = h.edge;
  const float* v = h.v;
  mcNum loc[3];
  for (int k = 0; k < 3; k++) {
    loc[k] = -(mat[k]*n[0] + mat[3 + k]*n[1] + mat[6 + k]*n[2]);
  }
  int best = 0;
  mcNum bestp = -INFINITY;
  for (int i = 0; i < nv; i++) {
    const float* p = v + 3*gid[i];
    mcNum prj = loc[0]*p[0] + loc[1]*p[1] + loc[2]*p[2];
    if (prj > bestp) {
      bestp = prj;
      best = i;
    }
  }
  mcNum pt[3];
  meshVertex(m, d, g2, gid[best], pt);
  int cnt = vertexOnPlane(con, margin, ppos, n, pt);
  if (!cnt) {
    return 0;
  }

  // neighbours of the deepest vertex within the margin, skipping those that lie (as vertices,
  // not as contact points) within 0.3 bounding radii of the first contact point
  mcNum rmin = 0.3*m->geom_rbound[g2];
  for (int j = edgeadr[best]; edge[j] >= 0 && cnt < 3; j++) {
    meshVertex(m, d, g2, gid[edge[j]], pt);
    mcNum dx = pt[0] - con->pos[0], dy = pt[1] - con->pos[1], dz = pt[2] - con->pos[2];
    if (dx*dx + dy*dy + dz*dz >= rmin*rmin) {
      cnt += vertexOnPlane(con + cnt, margin, ppos, n, pt);
    }
  }
  return cnt;
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
