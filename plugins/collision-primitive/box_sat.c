// Moduco collision-primitive plugin: box-box by the separating-axis test, as MuJoCo 3.12+ reports
// box pairs (its collider was rewritten as a separating-axis test; the contact set below was
// found by probing MuJoCo 3.14 as a black box, tests/collision/test_collision_gjk.c). Used for
// models with the nativeccd flag (mcENBL_NATIVECCD, MuJoCo 3.x behaviour); mcc_boxBox keeps
// MuJoCo 2.2.2's set otherwise.
// - Of the 15 candidate axes (3 + 3 face normals, 9 edge-edge cross products, normalized, the
//   parallel ones skipped) the one of largest separation (least overlap) wins, except that an
//   edge axis nearly parallel to the best face normal yields to it unless clearly better
//   (SAT_EDGECOS, SAT_EDGEGAIN); the boxes are apart when any separation exceeds the margin.
// - A face axis: the face of that box facing the other is the reference, the face of the other
//   box most opposed to it the incident face. The incident face is clipped to the reference
//   face's side planes; every vertex of the clipped polygon within the margin of the reference
//   plane is a contact: its signed height over the plane as dist, the midpoint between the
//   vertex and its projection on the plane as position, the reference normal (turned to point
//   from geom1 to geom2) as normal.
// - An edge axis: one contact at the midpoint of the nearest points of the two edges (segments)
//   supporting the boxes along the axis, with the separation as dist.
#include <math.h>

#include <moduco/mcplugin.h>

#include "geom.h"
#include "primitive.h"

// cross products shorter than this come from parallel edges (their direction is rounding noise)
#define SAT_PARALLEL 1e-10

// an edge axis yields to the best face axis when their angle's cosine exceeds SAT_EDGECOS and
// the edge's overlap is not below SAT_EDGEGAIN times the face's (5% less; separated: its gap not
// 5% above the face's). Found by probing
// MuJoCo 3.14 on 600 random poses: the edge won at cosines up to 0.989 whatever its gain, and
// above 0.991 only with overlaps at least 5.3% below the face's; it lost with 4.7% and less
#define SAT_EDGECOS 0.99
#define SAT_EDGEGAIN (1/1.05)

// a vertex within SAT_SNAP times the plane's offset plus the box's half size of a side plane is
// on it (inside, never cut): when an incident edge lies on a side plane (faces of equal boxes
// flush, issue 14's poses), rounding puts its two ends a few ulps apart on either side and the
// cut would add a contact anywhere along the edge (test_box_scale: a fifth contact at an edge's
// midpoint where MuJoCo 3.14 has the 4 corners)
#define SAT_SNAP 1e-12

// room for the clipped polygon: a quadrilateral clipped by 4 planes has at most 8 vertices
#define SAT_MAXPOLY 12

typedef struct {
  const mcNum* pos[2];
  mcNum ax[2][3][3];              // box b's axis k (unit, world)
  const mcNum* size[2];
} SatBoxes;


// separation of the boxes along unit axis L (positive: apart), and the sign of the centre offset
static mcNum separation(const SatBoxes* B, const mcNum L[3], mcNum* sign) {
  mcNum T[3], r = 0;
  sub3(T, B->pos[1], B->pos[0]);
  for (int b = 0; b < 2; b++) {
    for (int k = 0; k < 3; k++) {
      r += B->size[b][k]*fabs(dot3(B->ax[b][k], L));
    }
  }
  mcNum proj = dot3(T, L);
  *sign = proj < 0 ? -1 : 1;
  return fabs(proj) - r;
}


// the height of x over the plane x.a = lim, 0 within eps of it
static mcNum planeHeight(const mcNum x[3], const mcNum a[3], mcNum lim, mcNum eps) {
  mcNum h = dot3(x, a) - lim;
  return fabs(h) <= eps ? 0 : h;
}


// clip polygon in (n points) to the half space x.a <= lim (eps: SAT_SNAP's on-plane band);
// returns the new count
static int clipPlane(mcNum in[][3], int n, mcNum out[][3], const mcNum a[3], mcNum lim,
                     mcNum eps) {
  int m = 0;
  for (int i = 0; i < n && m < SAT_MAXPOLY - 1; i++) {
    const mcNum* p = in[i];
    const mcNum* q = in[(i + 1) % n];
    mcNum dp = planeHeight(p, a, lim, eps), dq = planeHeight(q, a, lim, eps);
    if (dp <= 0) {
      copy3(out[m++], p);
    }
    if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
      mcNum t = dp / (dp - dq), dif[3];
      sub3(dif, q, p);
      addScl3(out[m++], p, dif, t);
    }
  }
  return m;
}


// contacts of a face axis: reference box r, its face normal nf (unit, toward the other box)
static int faceContacts(const SatBoxes* B, mcContact* con, int r, int k, const mcNum nf[3],
                        mcNum margin) {
  int inc = 1 - r;

  // incident face: the other box's face most opposed to nf
  int fk = 0;
  mcNum best = -1;
  for (int j = 0; j < 3; j++) {
    mcNum al = fabs(dot3(B->ax[inc][j], nf));
    if (al > best) {
      best = al;
      fk = j;
    }
  }
  mcNum fsg = dot3(B->ax[inc][fk], nf) > 0 ? -1 : 1, fc[3];
  addScl3(fc, B->pos[inc], B->ax[inc][fk], fsg*B->size[inc][fk]);
  int t1 = (fk + 1) % 3, t2 = (fk + 2) % 3;
  static const mcNum cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
  mcNum poly[2][SAT_MAXPOLY][3];
  int n = 4;
  for (int i = 0; i < 4; i++) {
    addScl3(poly[0][i], fc, B->ax[inc][t1], cu[i]*B->size[inc][t1]);
    addScl3(poly[0][i], poly[0][i], B->ax[inc][t2], cv[i]*B->size[inc][t2]);
  }

  // clip to the reference face's four side planes
  int cur = 0;
  for (int j = 1; j < 3 && n > 0; j++) {
    const mcNum* a = B->ax[r][(k + j) % 3];
    mcNum c = dot3(B->pos[r], a), h = B->size[r][(k + j) % 3];
    mcNum neg[3] = {-a[0], -a[1], -a[2]}, eps = SAT_SNAP*(fabs(c) + h);
    n = clipPlane(poly[cur], n, poly[1 - cur], a, c + h, eps);
    cur = 1 - cur;
    n = clipPlane(poly[cur], n, poly[1 - cur], neg, -(c - h), eps);
    cur = 1 - cur;
  }

  // vertices within the margin of the reference plane
  mcNum plane = dot3(B->pos[r], nf) + B->size[r][k], normal[3];
  scl3(normal, nf, r == 0 ? 1 : -1);
  int cnt = 0;
  for (int i = 0; i < n && cnt < mcMAXCONPAIR; i++) {
    mcNum dist = dot3(poly[cur][i], nf) - plane, pos[3];
    if (dist > margin) {
      continue;
    }
    addScl3(pos, poly[cur][i], nf, -0.5*dist);
    setContact(con + cnt++, dist, pos, normal, NULL);
  }
  return cnt;
}


// x clamped to [-h, h]
static mcNum clampHalf(mcNum x, mcNum h) {
  return x < -h ? -h : (x > h ? h : x);
}


// the contact of an edge axis ax0[i] x ax1[j] (unit L, from box 0 toward box 1)
static int edgeContact(const SatBoxes* B, mcContact* con, int i, int j, const mcNum L[3],
                       mcNum sep) {
  // the supporting edges: box 0's along +L, box 1's along -L
  mcNum ea[3], eb[3];
  copy3(ea, B->pos[0]);
  copy3(eb, B->pos[1]);
  for (int k = 0; k < 3; k++) {
    if (k != i) {
      addScl3(ea, ea, B->ax[0][k], (dot3(B->ax[0][k], L) > 0 ? 1 : -1)*B->size[0][k]);
    }
    if (k != j) {
      addScl3(eb, eb, B->ax[1][k], (dot3(B->ax[1][k], L) > 0 ? -1 : 1)*B->size[1][k]);
    }
  }

  // nearest points of the edges ea + x u (|x| <= hx) and eb + y v (|y| <= hy): those of the
  // lines, x clamped, then y for that point and clamped, then x again for the point of edge b (a
  // clamped x moves y: 3.14 agrees to 6e-17 where the clamped line points were 1.7e-3 off)
  const mcNum* u = B->ax[0][i];
  const mcNum* v = B->ax[1][j];
  mcNum dif[3];
  sub3(dif, eb, ea);
  mcNum uv = dot3(u, v), du = dot3(dif, u), dv = dot3(dif, v), den = 1 - uv*uv;
  mcNum hx = B->size[0][i], hy = B->size[1][j];
  mcNum x = clampHalf(den > 0 ? (du - uv*dv) / den : 0, hx);
  mcNum qa[3], qb[3], pos[3];
  addScl3(qa, ea, u, x);
  sub3(dif, qa, eb);
  mcNum y = clampHalf(dot3(dif, v), hy);
  addScl3(qb, eb, v, y);
  sub3(dif, qb, ea);
  x = clampHalf(dot3(dif, u), hx);
  addScl3(qa, ea, u, x);
  add3(pos, qa, qb);
  scl3(pos, pos, 0.5);
  setContact(con, sep, pos, L, NULL);
  return 1;
}


int mcc_boxBoxSat(const mcModel* m, const mcData* d, mcContact* con, int g1, int g2,
                  mcNum margin) {
  SatBoxes B;
  const int g[2] = {g1, g2};
  for (int b = 0; b < 2; b++) {
    B.pos[b] = MCC_POS(d, g[b]);
    B.size[b] = MCC_SIZE(m, g[b]);
    for (int k = 0; k < 3; k++) {
      matCol(B.ax[b][k], MCC_MAT(d, g[b]), k);
    }
  }

  // the axis of largest separation: faces of box 0, of box 1, then edge pairs
  mcNum best = -INFINITY, bestL[3] = {0, 0, 0};
  int bestA = -1;
  for (int a = 0; a < 15; a++) {
    mcNum L[3], sign;
    if (a < 6) {
      copy3(L, B.ax[a / 3][a % 3]);
    } else {
      cross3(L, B.ax[0][(a - 6) / 3], B.ax[1][(a - 6) % 3]);
      mcNum len = norm3(L);
      if (len < SAT_PARALLEL) {
        continue;
      }
      scl3(L, L, 1/len);
    }
    mcNum sep = separation(&B, L, &sign);
    if (sep > margin) {
      return 0;
    }
    if (sep > best) {
      best = sep;
      bestA = a;
      scl3(bestL, L, sign);
    }
  }
  if (bestA < 0) {
    return 0;                       // not finite
  }

  // an edge axis within about 8 degrees of the best face normal yields to that face unless its
  // overlap is smaller by over 5% (SAT_EDGECOS, SAT_EDGEGAIN: found by probing 3.14)
  if (bestA >= 6) {
    int face = -1;
    mcNum faceSep = -INFINITY, faceL[3] = {0, 0, 0};
    for (int a = 0; a < 6; a++) {
      mcNum sign, sep = separation(&B, B.ax[a / 3][a % 3], &sign);
      if (sep > faceSep) {
        faceSep = sep;
        face = a;
        scl3(faceL, B.ax[a / 3][a % 3], sign);
      }
    }
    mcNum need = faceSep < 0 ? SAT_EDGEGAIN*faceSep : faceSep/SAT_EDGEGAIN;  // 5% better
    if (fabs(dot3(faceL, bestL)) > SAT_EDGECOS && best < need) {
      bestA = face;
      best = faceSep;
      copy3(bestL, faceL);
    }
  }

  if (bestA < 6) {
    // reference normal toward the other box: box 1's face looks toward box 0
    int r = bestA / 3;
    mcNum nf[3];
    scl3(nf, bestL, r == 0 ? 1 : -1);
    return faceContacts(&B, con, r, bestA % 3, nf, margin);
  }
  return edgeContact(&B, con, (bestA - 6) / 3, (bestA - 6) % 3, bestL, best);
}
