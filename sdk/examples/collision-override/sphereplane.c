// Example third-party collision plugin "example.sphereplane": replaces the built-in plane-sphere
// narrow phase (collision plugin "primitive", priority 0) by declaring the same geom-type pair at
// priority 10. Every other pair stays with the built-ins.
//
// The contact is the built-in's (distance along the plane normal, position halfway into the
// penetration, normal = the plane's z axis), and in addition the frame's second axis is the
// plane's x axis, so the friction directions follow the plane instead of the core's default
// completion. It shows the narrow-phase contract of mcplugin.h: fill dist, pos and the unit
// normal; the tangent axes are optional (a second axis given is kept, the third is normal x
// second); return 0 when the geoms are farther apart than the margin.
#include <moduco/mcplugin.h>

// column k of a 3x3 row-major rotation
static void column(mcNum v[3], const mcNum* mat, int k) {
  v[0] = mat[k];
  v[1] = mat[3 + k];
  v[2] = mat[6 + k];
}


// g1: the plane, g2: the sphere (types in the order of the pair table)
static int planeSphere(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                       int g1, int g2, mcNum margin) {
  (void)host;
  const mcNum* p = d->geom_xpos + 3 * g1;
  const mcNum* c = d->geom_xpos + 3 * g2;
  const mcNum* mat = d->geom_xmat + 9 * g1;
  mcNum r = m->geom_size[3 * g2];

  // signed distance of the sphere's surface from the plane, along the plane's z axis
  mcNum n[3], x[3];
  column(n, mat, 2);
  column(x, mat, 0);
  mcNum dist = (c[0] - p[0]) * n[0] + (c[1] - p[1]) * n[1] + (c[2] - p[2]) * n[2] - r;
  if (dist > margin) {
    return 0;
  }

  // halfway between the sphere's lowest point and the plane; frame: plane z, then plane x
  con->dist = dist;
  for (int k = 0; k < 3; k++) {
    con->pos[k] = c[k] - n[k] * (r + dist / 2);
    con->frame[k] = n[k];
    con->frame[3 + k] = x[k];
  }
  return 1;
}


static const mcpCollisionPair g_pairs[] = {{mcGEOM_PLANE, mcGEOM_SPHERE, planeSphere}};

static const mcpCollision g_plugin = {
  .hdr = MCP_HEADER(mcpKIND_COLLISION, mcpCollision, "example.sphereplane", "1.0.0",
                    "example: plane-sphere with the plane's x axis as friction direction", -1),
  .priority = 10,
  .npair = 1,
  .pair = g_pairs,
  .ext = NULL,
};

static const mcpHeader* const g_list[] = {&g_plugin.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("example-sphereplane", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // refuse a host of another major version or precision
  if (!host || host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
