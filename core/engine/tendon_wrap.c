// Moduco core: spatial tendon geometry.
//
// A spatial tendon path is a list of sites, optionally separated by one wrapping geom (sphere or
// cylinder) and by pulleys. Each straight piece between consecutive path points contributes its
// length and, through the Jacobians of its end points projected on its direction, its moment
// arms; the arc on a wrapping surface contributes its length only (at the minimum of the path
// length over the tangent points, their motion on the surface does not change the length to
// first order). A pulley divides the contribution of everything after it by its divisor.
//
// Side sites (rules measured against MuJoCo 2.2.2 on random configurations): a side site whose
// projection lies inside the circle makes the path cross the disc, touching the surface at one
// point when the straight segment misses it; a side site outside picks, among the two tangent
// paths, the one whose chord midpoint points nearer to it, unless that path's straight pieces
// cross, and forces a wrap of a segment that misses the circle on the other side.
#include <math.h>

#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/tendon_wrap.h"
#include "math/math.h"


//---------------------------------- wrapping ------------------------------------------------------

// the two tangent points on the circle of radius r seen from e (|e| > r): tp on the side that
// makes a path through it turn counterclockwise when arriving from e, tm clockwise
static void tangentPoints(mcNum tp[2], mcNum tm[2], const mcNum e[2], mcNum r) {
  mcNum sq = e[0] * e[0] + e[1] * e[1];
  mcNum s = sqrt(sq - r * r);
  mcNum a0 = r * e[0], a1 = r * e[1], b0 = s * e[0], b1 = s * e[1];
  tp[0] = r * (a0 - b1) / sq;
  tp[1] = r * (a1 + b0) / sq;
  tm[0] = r * (a0 + b1) / sq;
  tm[1] = r * (a1 - b0) / sq;
}


// angle swept from a to b (points on a circle) turning in direction dir, in [0, 2 pi)
static mcNum sweep(const mcNum a[2], const mcNum b[2], mcNum dir) {
  mcNum cr = a[0] * b[1] - a[1] * b[0];
  mcNum dt = a[0] * b[0] + a[1] * b[1];
  mcNum ang = atan2(dir * cr, dt);
  return ang < 0 ? ang + 2 * mcPI : ang;
}


// orientation of r relative to the line p -> q (twice the signed triangle area)
static mcNum orient(const mcNum p[2], const mcNum q[2], const mcNum r[2]) {
  return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
}


// whether the segments a0-a1 and b0-b1 cross (strictly)
static int piecesCross(const mcNum a0[2], const mcNum a1[2], const mcNum b0[2],
                       const mcNum b1[2]) {
  return orient(a0, a1, b0) * orient(a0, a1, b1) < 0 && orient(b0, b1, a0) * orient(b0, b1, a1) < 0;
}


// point t on the circle of radius r touched by the path e0 -> t -> e1 (both ends outside, the
// segment missing the disc), where the two pieces make equal angles alpha with the normal. With
// z = sin(alpha), A = r/|e0|, B = r/|e1| and G the angle between e0 and e1, the angles at the
// center add up to G:  f(z) = asin(A z) + asin(B z) - 2 asin(z) + G = 0, solved by Newton from
// just below z = 1 to |f| < 1e-6 (the tolerance of the reference engine, matched on purpose: it
// fixes t to ~1e-8 and so the moment arms); the angle is measured from the end from which the
// other one is counterclockwise. When no root is found below the start, the point in the
// direction of e0 + e1.
static void touchPoint(mcNum t[2], const mcNum e0[2], const mcNum e1[2], mcNum r) {
  mcNum l0 = hypot(e0[0], e0[1]), l1 = hypot(e1[0], e1[1]);
  mcNum A = r / l0, B = r / l1;
  mcNum cr = e0[0] * e1[1] - e0[1] * e1[0];
  mcNum G = acos(fmin(1, fmax(-1, (e0[0] * e1[0] + e0[1] * e1[1]) / (l0 * l1))));

  // Newton on f
  mcNum z = 1 - 1e-7;
  mcNum f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
  int ok = f <= 0;
  for (int it = 0; ok && it < 50 && fabs(f) >= 1e-6; it++) {
    mcNum df = A / sqrt(1 - A * A * z * z) + B / sqrt(1 - B * B * z * z) - 2 / sqrt(1 - z * z);
    z -= f / df;
    if (!(z > 0 && z < 1)) {
      ok = 0;
      break;
    }
    f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
  }

  // no root: toward the midpoint of the segment
  if (!ok) {
    mcNum m[2] = {e0[0] + e1[0], e0[1] + e1[1]};
    mcNum nm = hypot(m[0], m[1]);
    if (nm < mcMINVAL) {
      m[0] = -e0[1];
      m[1] = e0[0];
      nm = l0;
    }
    t[0] = r * m[0] / nm;
    t[1] = r * m[1] / nm;
    return;
  }

  // rotate the direction of the first end counterclockwise by its angle at the center
  const mcNum* e = cr >= 0 ? e0 : e1;
  mcNum l = cr >= 0 ? l0 : l1;
  mcNum th = asin(z) - asin((cr >= 0 ? A : B) * z);
  mcNum c = cos(th), sn = sin(th);
  t[0] = r * (c * e[0] - sn * e[1]) / l;
  t[1] = r * (sn * e[0] + c * e[1]) / l;
}


// 2D wrap of the path e0 -> e1 around the circle of radius r at the origin; side (nullable) is
// the 2D side point. Return the arc length and the tangent points t (4), or -1 for no wrap.
static mcNum wrapCircle(mcNum t[4], const mcNum e0[2], const mcNum e1[2], const mcNum* side,
                        mcNum r) {
  mcNum r2 = r * r;
  mcNum sq0 = e0[0] * e0[0] + e0[1] * e0[1];
  mcNum sq1 = e1[0] * e1[0] + e1[1] * e1[1];

  // an end point inside the circle, or a degenerate circle: no wrap
  if (r < mcMINVAL || sq0 <= r2 || sq1 <= r2) {
    return -1;
  }

  // point of the straight segment nearest to the center
  mcNum dif[2] = {e1[0] - e0[0], e1[1] - e0[1]};
  mcNum dd = dif[0] * dif[0] + dif[1] * dif[1];
  mcNum a = dd > mcMINVAL ? -(e0[0] * dif[0] + e0[1] * dif[1]) / dd : 0;
  a = a < 0 ? 0 : (a > 1 ? 1 : a);
  mcNum near[2] = {e0[0] + a * dif[0], e0[1] + a * dif[1]};
  int hits = near[0] * near[0] + near[1] * near[1] < r2;

  // side point inside the circle: the path must cross the disc; a segment missing it touches
  // the circle at one point (both tangent points there, no arc)
  if (side && side[0] * side[0] + side[1] * side[1] < r2) {
    if (hits) {
      return -1;
    }
    touchPoint(t, e0, e1, r);
    t[2] = t[0];
    t[3] = t[1];
    return 0;
  }

  // no wrap when the segment misses the circle on the side of the side point (if any)
  int sameSide = !side || side[0] * near[0] + side[1] * near[1] >= 0;
  if (!hits && sameSide) {
    return -1;
  }

  // the two consistent candidates, counterclockwise and clockwise (the tangent pieces have the
  // same lengths in both, so the shorter arc is the shorter path)
  mcNum cand[2][4], ang[2], score[2];
  tangentPoints(cand[0], cand[1], e0, r);
  tangentPoints(cand[1] + 2, cand[0] + 2, e1, r);
  for (int c = 0; c < 2; c++) {
    mcNum dir = c == 0 ? 1 : -1;

    // with a side point: the candidate whose chord midpoint points nearer to the side point's
    // direction (largest cosine); otherwise the shorter arc
    if (side) {
      mcNum mid[2] = {cand[c][0] + cand[c][2], cand[c][1] + cand[c][3]};
      mcNum nm = hypot(mid[0], mid[1]);
      score[c] = nm > mcMINVAL ? -(mid[0] * side[0] + mid[1] * side[1]) / nm : 0;
    } else {
      ang[c] = sweep(cand[c], cand[c] + 2, dir);
      score[c] = ang[c];
    }
  }

  // pick the better candidate
  int sel = score[1] < score[0] ? 1 : 0;

  // with a side point, a candidate whose two straight pieces cross is replaced by the other;
  // only the chosen arc's angle is needed then
  if (side) {
    if (piecesCross(e0, cand[sel], e1, cand[sel] + 2)) {
      sel = 1 - sel;
    }
    ang[sel] = sweep(cand[sel], cand[sel] + 2, sel == 0 ? 1 : -1);
  }
  mcu_copy(t, cand[sel], 4);
  return r * ang[sel];
}


mcNum mc_wrap(mcNum wpnt[6], const mcNum x0[3], const mcNum x1[3], const mcNum xpos[3],
              const mcNum xmat[9], mcNum radius, int type, const mcNum* side) {
  // end points (and side) in the geom frame
  mcNum p0[3], p1[3], s[3], dif[3];
  mcu_sub3(dif, x0, xpos);
  mcu_mulMatTVec3(p0, xmat, dif);
  mcu_sub3(dif, x1, xpos);
  mcu_mulMatTVec3(p1, xmat, dif);
  if (side) {
    mcu_sub3(dif, side, xpos);
    mcu_mulMatTVec3(s, xmat, dif);
  }

  // 2D frame: the xy plane for a cylinder, the plane through the center and both ends for a
  // sphere
  mcNum ax0[3] = {1, 0, 0}, ax1[3] = {0, 1, 0};
  if (type == mcWRAP_SPHERE) {
    // the end points inside the sphere: no wrap
    if (mcu_dot3(p0, p0) <= radius * radius || mcu_dot3(p1, p1) <= radius * radius) {
      return -1;
    }
    mcNum n[3];
    mcu_cross(n, p0, p1);
    mcNum nn = mcu_norm3(n);

    // ends aligned with the center: the plane through the side point, else any plane
    if (nn < mcMINVAL) {
      if (side) {
        mcu_cross(n, p0, s);
        nn = mcu_norm3(n);
      }
      if (nn < mcMINVAL) {
        mcNum other[3] = {0, 0, 0};
        other[fabs(p0[0]) < fabs(p0[1]) ? 0 : 1] = 1;
        mcu_cross(n, p0, other);
        nn = mcu_norm3(n);
        if (nn < mcMINVAL) {
          return -1;
        }
      }
    }
    mcu_scl3(n, n, 1 / nn);
    mcu_copy3(ax0, p0);
    mcu_normalize3(ax0);
    mcu_cross(ax1, n, ax0);
    mcu_normalize3(ax1);
  }

  // project and wrap in 2D (a cylinder's plane is the xy plane: the coordinates themselves)
  int cyl = type == mcWRAP_CYLINDER;
  mcNum e0[2] = {cyl ? p0[0] : mcu_dot3(p0, ax0), cyl ? p0[1] : mcu_dot3(p0, ax1)};
  mcNum e1[2] = {cyl ? p1[0] : mcu_dot3(p1, ax0), cyl ? p1[1] : mcu_dot3(p1, ax1)};
  mcNum s2[2], t[4];
  if (side) {
    s2[0] = cyl ? s[0] : mcu_dot3(s, ax0);
    s2[1] = cyl ? s[1] : mcu_dot3(s, ax1);
  }
  mcNum arc = wrapCircle(t, e0, e1, side ? s2 : NULL, radius);
  if (arc < 0) {
    return -1;
  }

  // tangent points in the geom frame
  mcNum q[6];
  if (cyl) {
    mcNum q0[6] = {t[0], t[1], 0, t[2], t[3], 0};
    mcu_copy(q, q0, 6);
  } else {
    for (int k = 0; k < 3; k++) {
      q[k] = t[0] * ax0[k] + t[1] * ax1[k];
      q[3 + k] = t[2] * ax0[k] + t[3] * ax1[k];
    }
  }
  mcNum len = arc;

  // cylinder: heights that make the unrolled path a straight line (a helix on the surface)
  if (cyl) {
    mcNum l0 = hypot(e0[0] - t[0], e0[1] - t[1]);
    mcNum l1 = hypot(e1[0] - t[2], e1[1] - t[3]);
    mcNum total = l0 + arc + l1;
    mcNum dz = p1[2] - p0[2];
    q[2] = p0[2] + (total > mcMINVAL ? dz * l0 / total : 0);
    q[5] = p0[2] + (total > mcMINVAL ? dz * (l0 + arc) / total : 0);
    len = sqrt(arc * arc + (q[5] - q[2]) * (q[5] - q[2]));
  }

  // back to global coordinates
  for (int k = 0; k < 2; k++) {
    mcu_mulMatVec3(wpnt + 3 * k, xmat, q + 3 * k);
    mcu_addTo3(wpnt + 3 * k, xpos);
  }
  return len;
}


//---------------------------------- spatial tendons -----------------------------------------------

// straight piece from pa (body a) to pb (body b): add length and Jacobian, scaled by 1/div
static mcNum straight(const mcModel* m, const mcData* d, mcNum* J, const mcNum pa[3], int a,
                      const mcNum pb[3], int b, mcNum div) {
  mcNum u[3];
  mcu_sub3(u, pb, pa);
  mcNum len = mcu_norm3(u);
  if (len > mcMINVAL) {
    mcu_scl3(u, u, 1 / len);
    mc_addJacDifDir(m, d, J, u, pa, a, pb, b, 1 / div);
  }
  return len / div;
}


mcNum mc_spatialTendon(const mcModel* m, const mcData* d, int i, mcNum* J) {
  int adr = m->tendon_adr[i], end = adr + m->tendon_num[i];
  mcNum len = 0, div = 1;

  for (int j = adr; j < end - 1;) {
    int t0 = m->wrap_type[j], t1 = m->wrap_type[j + 1];

    // a pulley sets the divisor of what follows; a piece ending at a pulley does not exist
    if (t0 == mcWRAP_PULLEY) {
      div = m->wrap_prm[j];
      j++;
      continue;
    }
    if (t1 == mcWRAP_PULLEY || t0 != mcWRAP_SITE) {
      j++;
      continue;
    }

    // site to site
    int s0 = m->wrap_objid[j];
    const mcNum* x0 = d->site_xpos + 3 * s0;
    int b0 = m->site_bodyid[s0];
    if (t1 == mcWRAP_SITE) {
      int s1 = m->wrap_objid[j + 1];
      len += straight(m, d, J, x0, b0, d->site_xpos + 3 * s1, m->site_bodyid[s1], div);
      j++;
      continue;
    }

    // site, wrapping geom, site
    if (j + 2 >= end) {
      break;
    }
    int g = m->wrap_objid[j + 1];
    int sd = (int)m->wrap_prm[j + 1];
    int s1 = m->wrap_objid[j + 2];
    const mcNum* x1 = d->site_xpos + 3 * s1;
    int b1 = m->site_bodyid[s1];
    mcNum wpnt[6];
    mcNum wlen = mc_wrap(wpnt, x0, x1, d->geom_xpos + 3 * g, d->geom_xmat + 9 * g,
                         m->geom_size[3 * g], t1, sd >= 0 ? d->site_xpos + 3 * sd : NULL);
    if (wlen < 0) {
      len += straight(m, d, J, x0, b0, x1, b1, div);
    } else {
      int gb = m->geom_bodyid[g];
      len += straight(m, d, J, x0, b0, wpnt, gb, div);
      len += wlen / div;
      len += straight(m, d, J, wpnt + 3, gb, x1, b1, div);
    }
    j += 2;
  }
  return len;
}
