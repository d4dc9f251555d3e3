// Moduco collision-primitive plugin: small vector helpers and geom accessors shared by the
// analytic collide functions (static inline, no state).
#ifndef MODUCO_PLUGINS_COLLISION_PRIMITIVE_GEOM_H_
#define MODUCO_PLUGINS_COLLISION_PRIMITIVE_GEOM_H_

#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

static inline mcNum dot3(const mcNum a[3], const mcNum b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


static inline void sub3(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}


static inline void add3(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}


// r = a + s*b
static inline void addScl3(mcNum r[3], const mcNum a[3], const mcNum b[3], mcNum s) {
  r[0] = a[0] + s*b[0];
  r[1] = a[1] + s*b[1];
  r[2] = a[2] + s*b[2];
}


static inline void scl3(mcNum r[3], const mcNum a[3], mcNum s) {
  r[0] = a[0]*s;
  r[1] = a[1]*s;
  r[2] = a[2]*s;
}


static inline void copy3(mcNum r[3], const mcNum a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}


static inline void cross3(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  mcNum x = a[1]*b[2] - a[2]*b[1];
  mcNum y = a[2]*b[0] - a[0]*b[2];
  mcNum z = a[0]*b[1] - a[1]*b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}


static inline mcNum norm3(const mcNum a[3]) {
  return sqrt(dot3(a, a));
}


// normalize in place; return the old norm (vector set to (1,0,0) when tiny)
static inline mcNum normalize3(mcNum a[3]) {
  mcNum n = norm3(a);
  if (n < mcMINVAL) {
    a[0] = 1;
    a[1] = a[2] = 0;
  } else {
    a[0] /= n;
    a[1] /= n;
    a[2] /= n;
  }
  return n;
}


// column k of a row-major 3x3 rotation (the geom's local axis k in world coordinates)
static inline void matCol(mcNum r[3], const mcNum mat[9], int k) {
  r[0] = mat[k];
  r[1] = mat[3 + k];
  r[2] = mat[6 + k];
}


// r = mat * v (local to world), r = mat' * v (world to local)
static inline void mulMatVec(mcNum r[3], const mcNum mat[9], const mcNum v[3]) {
  mcNum x = mat[0]*v[0] + mat[1]*v[1] + mat[2]*v[2];
  mcNum y = mat[3]*v[0] + mat[4]*v[1] + mat[5]*v[2];
  mcNum z = mat[6]*v[0] + mat[7]*v[1] + mat[8]*v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}


static inline void mulMatTVec(mcNum r[3], const mcNum mat[9], const mcNum v[3]) {
  mcNum x = mat[0]*v[0] + mat[3]*v[1] + mat[6]*v[2];
  mcNum y = mat[1]*v[0] + mat[4]*v[1] + mat[7]*v[2];
  mcNum z = mat[2]*v[0] + mat[5]*v[1] + mat[8]*v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}


// write one contact: distance, position, normal (frame row 0), optional second axis
static inline void setContact(mcContact* con, mcNum dist, const mcNum pos[3], const mcNum n[3],
                              const mcNum* yaxis) {
  con->dist = dist;
  copy3(con->pos, pos);
  copy3(con->frame, n);
  if (yaxis) {
    copy3(con->frame + 3, yaxis);
    // a hint (nearly) along the normal, as a capsule standing on a plane gives: hand the core its
    // part across the normal, or world x across the normal when nothing is left (what the core
    // makes of such a hint when the normal is a world axis; the collision contract asks for a hint
    // apart from the normal, docs/plugins.md)
    mcNum c = dot3(n, yaxis);
    if (fabs(c) > 1 - 1e-5) {
      mcNum* t = con->frame + 3;
      addScl3(t, yaxis, n, -c);
      mcNum len = sqrt(dot3(t, t));
      if (len < mcMINVAL) {
        const mcNum x[3] = {1, 0, 0};
        addScl3(t, x, n, -n[0]);
        len = sqrt(dot3(t, t));
      }
      if (len < mcMINVAL) {  // normal along world x: world y across it
        const mcNum y[3] = {0, 1, 0};
        addScl3(t, y, n, -n[1]);
        len = sqrt(dot3(t, t));
      }
      t[0] /= len;
      t[1] /= len;
      t[2] /= len;
    }
  } else {
    con->frame[3] = con->frame[4] = con->frame[5] = 0;
  }
  con->frame[6] = con->frame[7] = con->frame[8] = 0;
}

#endif  // MODUCO_PLUGINS_COLLISION_PRIMITIVE_GEOM_H_
