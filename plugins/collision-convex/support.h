// Moduco collision plugins: support functions of the convex geom types (sphere, capsule,
// ellipsoid, cylinder, box, mesh vertices) in world coordinates, grown by half the margin.
// Header-only (static) so collision-convex and collision-hfield each compile their own copy.
#ifndef MODUCO_PLUGINS_COLLISION_CONVEX_SUPPORT_H_
#define MODUCO_PLUGINS_COLLISION_CONVEX_SUPPORT_H_

#include <math.h>

#include <moduco/mcplugin.h>

// one convex object: a geom with its pose, grown by half the margin
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



// support point in world coordinates for a world direction (normalized here)
static void geomSupport(const void* obj, const mcNum dir[3], mcNum res[3]) {
  const ConvexObj* o = (const ConvexObj*)obj;
  const mcNum* pos = o->d->geom_xpos + 3*o->geom;
  const mcNum* mat = o->d->geom_xmat + 9*o->geom;
  mcNum w[3] = {dir[0], dir[1], dir[2]}, loc[3], sp[3];
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
  localSupport(o, loc, sp);
  for (int k = 0; k < 3; k++) {
    res[k] = pos[k] + mat[3*k]*sp[0] + mat[3*k + 1]*sp[1] + mat[3*k + 2]*sp[2] +
             0.5*o->margin*w[k];
  }
}


// the geom centre as the interior point
static void geomCenter(const void* obj, mcNum res[3]) {
  const ConvexObj* o = (const ConvexObj*)obj;
  const mcNum* pos = o->d->geom_xpos + 3*o->geom;
  res[0] = pos[0];
  res[1] = pos[1];
  res[2] = pos[2];
}

#endif  // MODUCO_PLUGINS_COLLISION_CONVEX_SUPPORT_H_
