// Moduco collision-primitive plugin: box pairs (sphere-box, capsule-box, box-box).
#include <math.h>

#include <moduco/mcplugin.h>

#include "geom.h"
#include "primitive.h"


//---------------------------------- sphere-box ----------------------------------------------------

// a sphere (centre c, radius r, world) against box g: one contact, normal from sphere to box.
// With the centre inside the box the sphere leaves through the nearest face (the first of equals
// in x, y, z order; a centre on a mid-plane leaves through the negative face) with the depth
// r + (distance to that face) when trueDepth is set, as MuJoCo 3.3.8 has it (MJ#2206 fixed), or
// r alone, as MuJoCo 2.2.2 has it, otherwise.
static int sphereBoxDepth(const mcModel* m, const mcData* d, mcContact* con, int g,
                          const mcNum c[3], mcNum r, mcNum margin, int trueDepth) {
  const mcNum* bpos = MCC_POS(d, g);
  const mcNum* bmat = MCC_MAT(d, g);
  const mcNum* s = MCC_SIZE(m, g);
  mcNum dif[3], loc[3], clamped[3], n[3], pos[3];

  // centre in the box frame, nearest box point
  sub3(dif, c, bpos);
  mulMatTVec(loc, bmat, dif);
  int inside = 1;
  for (int k = 0; k < 3; k++) {
    clamped[k] = loc[k];
    if (loc[k] > s[k]) {
      clamped[k] = s[k];
      inside = 0;
    } else if (loc[k] < -s[k]) {
      clamped[k] = -s[k];
      inside = 0;
    }
  }

  // outside: nearest point gives normal and distance
  if (!inside) {
    mcNum v[3];
    sub3(v, clamped, loc);
    mcNum len = norm3(v);
    mcNum dist = len - r;
    if (dist > margin) {
      return 0;
    }
    scl3(v, v, 1/len);
    mulMatVec(n, bmat, v);
    addScl3(pos, c, n, r + dist/2);
    setContact(con, dist, pos, n, NULL);
    return 1;
  }

  // inside: leave through the nearest face
  int k = 0;
  mcNum best = s[0] - fabs(loc[0]);
  for (int j = 1; j < 3; j++) {
    mcNum f = s[j] - fabs(loc[j]);
    if (f < best) {
      best = f;
      k = j;
    }
  }
  mcNum sgn = loc[k] > 0 ? 1 : -1;
  mcNum ln[3] = {0, 0, 0}, lp[3];
  ln[k] = -sgn;
  copy3(lp, loc);
  lp[k] = 0.5*(loc[k] + sgn*s[k] + ln[k]*r);
  mulMatVec(n, bmat, ln);
  mulMatVec(pos, bmat, lp);
  add3(pos, pos, bpos);
  mcNum dist = trueDepth ? -(r + best) : -r;
  if (dist > margin) {
    return 0;
  }
  setContact(con, dist, pos, n, NULL);
  return 1;
}


// the sphere against a box as MuJoCo 2.2.2's capsule-box uses it (centre inside: depth r)
static int sphereBoxRaw(const mcModel* m, const mcData* d, mcContact* con, int g, const mcNum c[3],
                        mcNum r, mcNum margin) {
  return sphereBoxDepth(m, d, con, g, c, r, margin, 0);
}


int mcc_sphereBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                  int g1, int g2, mcNum margin) {
  return sphereBoxDepth(m, d, con, g2, MCC_POS(d, g1), MCC_SIZE(m, g1)[0], margin, 1);
}


//---------------------------------- capsule-box ---------------------------------------------------

// squared distance from the point c + t*a (box frame) to the box
static mcNum boxDist2(const mcNum s[3], const mcNum c[3], const mcNum a[3], mcNum t) {
  mcNum f = 0;
  for (int k = 0; k < 3; k++) {
    mcNum x = fabs(c[k] + t*a[k]) - s[k];
    if (x > 0) {
      f += x*x;
    }
  }
  return f;
}


// segment parameter in [-h, h] nearest to the box edge along axis k at signs (s1, s2) of the
// other two axes (segment c + t*a with unit a, box frame)
static mcNum segmentEdgeParam(const mcNum s[3], const mcNum c[3], const mcNum a[3], mcNum h,
                              int k, int s1, int s2) {
  int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  mcNum e[3];
  e[k] = 0;
  e[k1] = s1*s[k1];
  e[k2] = s2*s[k2];

  // minimize |c + t a - e - u d| over t in [-h, h], u in [-s[k], s[k]] (d = unit axis k)
  mcNum w[3];
  sub3(w, c, e);
  mcNum ad = a[k], aw = dot3(a, w), dw = w[k];
  mcNum den = 1 - ad*ad;
  mcNum t, u;
  if (den > mcMINVAL) {
    t = (ad*dw - aw) / den;
  } else {
    t = 0;
  }
  t = t < -h ? -h : (t > h ? h : t);
  u = dw + t*ad;
  if (u < -s[k] || u > s[k]) {
    u = u < -s[k] ? -s[k] : s[k];
    t = u*ad - aw;
    t = t < -h ? -h : (t > h ? h : t);
  }
  return t;
}


// The contact set follows MuJoCo 2.2.2, derived from its observable behaviour: the segment
// point nearest to the box (among the two ends and the points nearest to each box edge, the
// first of equals; inside the box the distance is zero) is a sphere against the box. When that
// point lies outside over a face and the axis is within asin(0.2) of the face plane, the segment
// clipped to the face gives two contacts at its clipped ends instead. Otherwise the other end
// sphere is added when within the margin, except that an end inside the box is reported alone,
// and a segment through the box (both ends outside) reports its end spheres within the margin,
// or the inner point when neither is.
int mcc_capsuleBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                   int g1, int g2, mcNum margin) {
  const mcNum* cpos = MCC_POS(d, g1);
  const mcNum* bpos = MCC_POS(d, g2);
  const mcNum* bmat = MCC_MAT(d, g2);
  const mcNum* s = MCC_SIZE(m, g2);
  mcNum r = MCC_SIZE(m, g1)[0], h = MCC_SIZE(m, g1)[1];
  mcNum axis[3], dif[3], lc[3], la[3], pt[3];
  matCol(axis, MCC_MAT(d, g1), 2);
  sub3(dif, cpos, bpos);
  mulMatTVec(lc, bmat, dif);
  mulMatTVec(la, bmat, axis);

  // nearest segment point: ends first, then the points nearest to the 12 edges
  mcNum bestt = -h, bestf = boxDist2(s, lc, la, -h);
  int bestc = 0;
  for (int c = 1; c < 14; c++) {
    mcNum t;
    if (c == 1) {
      t = h;
    } else {
      int e = c - 2;
      t = segmentEdgeParam(s, lc, la, h, e / 4, (e & 1) ? 1 : -1, (e & 2) ? 1 : -1);
    }
    mcNum f = boxDist2(s, lc, la, t);
    if (f < bestf) {
      bestf = f;
      bestt = t;
      bestc = c;
    }
  }
  addScl3(pt, cpos, axis, bestt);
  int cnt = sphereBoxRaw(m, d, con, g2, pt, r, margin);
  if (!cnt) {
    return 0;
  }
  int isEnd = bestc < 2 || bestt == -h || bestt == h;
  int deep = bestf == 0;

  // nearest point over a face (one coordinate outside the box) and the axis nearly parallel to
  // it: clip the segment to the face
  int k = -1, nout = 0;
  for (int j = 0; j < 3; j++) {
    mcNum x = lc[j] + bestt*la[j];
    if (x > s[j] || x < -s[j]) {
      nout++;
      k = j;
    }
  }
  if (!deep && nout == 1 && fabs(la[k]) < 0.2) {
    mcNum sg = lc[k] + bestt*la[k] > 0 ? 1 : -1;
    mcNum t0 = -h, t1 = h;
    for (int j = 0; j < 3; j++) {
      if (j == k || fabs(la[j]) < mcMINVAL) {
        continue;
      }
      mcNum ta = (-s[j] - lc[j]) / la[j], tb = (s[j] - lc[j]) / la[j];
      if (ta > tb) {
        mcNum tmp = ta;
        ta = tb;
        tb = tmp;
      }
      t0 = ta > t0 ? ta : t0;
      t1 = tb < t1 ? tb : t1;
    }
    mcNum n[3], ln[3] = {0, 0, 0};
    ln[k] = -sg;
    mulMatVec(n, bmat, ln);
    cnt = 0;
    for (int e = 0; e < 2; e++) {
      mcNum t = e ? t1 : t0, pos[3];
      mcNum dist = sg*(lc[k] + t*la[k]) - s[k] - r;
      if (dist > margin) {
        continue;
      }
      addScl3(pt, cpos, axis, t);
      addScl3(pos, pt, n, r + dist/2);
      setContact(con + cnt++, dist, pos, n, NULL);
    }
    return cnt;
  }

  // otherwise the end spheres, unless the nearest point is an end inside the box
  if (deep && isEnd) {
    return cnt;
  }
  if (deep) {
    // segment through the box with both ends outside: the end spheres within the margin, else
    // the inner point
    mcContact ends[2];
    int ne = 0;
    for (int e = 0; e < 2; e++) {
      addScl3(pt, cpos, axis, e ? h : -h);
      ne += sphereBoxRaw(m, d, ends + ne, g2, pt, r, margin);
    }
    if (ne) {
      for (int e = 0; e < ne; e++) {
        con[e] = ends[e];
      }
      return ne;
    }
    return cnt;
  }
  for (int e = 0; e < 2; e++) {
    mcNum t = e ? h : -h;
    if (isEnd && t == bestt) {
      continue;
    }
    addScl3(pt, cpos, axis, t);
    cnt += sphereBoxRaw(m, d, con + cnt, g2, pt, r, margin);
  }
  return cnt;
}


//---------------------------------- box-box -------------------------------------------------------

// The contact set follows MuJoCo 2.2.2, derived from its observable behaviour:
// - the axis is the one of largest separation among the 3+3 face normals and the 9 edge-edge
//   cross products (normalized); an edge axis replaces the best so far when its separation
//   exceeds best*(1 - 1e-12): overlapping, it must be larger by a relative 1e-12; separated, an
//   exact tie (an edge of one box level with a face of the other) goes to the edge;
// - whatever the axis, the face of each box most aligned with it (box 1: with the normal, box 2:
//   against it) is projected along the normal; the contacts are the corners of the overlap of
//   the two projected faces: corners of either face inside the other and crossings of their
//   edges, each with the gap between the two faces along the normal as its distance and the
//   midpoint between them as its position, kept while the gap is within the margin;
// - on a face axis, an incident face tilted so that one of its edges is more than 60 degrees
//   away from the normal takes part with its edge nearest to the reference face only (with its
//   nearest corner only when both are); on an edge axis, of the corners of box 1 only those on
//   its edge along the axis direction on the side of box 2's centre count;
// - on a face axis MuJoCo 2.2.2 reports half of that gap as the distance (the position stays the
//   midpoint), overlapping or not; on an edge axis the full gap.
// Not reproduced (physically wrong, see tests/collision/test_collision_pairs.c): the extra
// "phantom" corner of box 2's face that 2.2.2 adds, outside the overlap or repeating a contact,
// when an edge of that face is level with box 1's face.

typedef struct {
  mcNum pa[3];                    // point on the face of box 1
  mcNum pen;                      // penetration along the normal (gap = -pen)
} BoxPoint;


// one contact per overlap corner; returns the new count
static int boxAddPoint(BoxPoint* pt, int cnt, const mcNum pa[3], mcNum pen, mcNum margin) {
  if (-pen > margin || cnt >= 16) {
    return cnt;
  }
  copy3(pt[cnt].pa, pa);
  pt[cnt].pen = pen;
  return cnt + 1;
}


// corners of a face in order (-,-), (+,-), (+,+), (-,+) over its two tangent axes; its edges
// 0: first coordinate -1, 1: first +1, 2: second -1, 3: second +1; edge i of the corner loop
// (from corner i to corner i+1) is side boxQuadEdge[i]
static const int boxQuadEdge[4] = {2, 1, 3, 0};


// mask of one side of a face (side 2*w + sg): its two corners (bits 0-3) and the edge (bit 4+)
static int boxSideMask(int w, int sg) {
  static const int corners[4] = {0x9, 0x6, 0x3, 0xc};
  int side = 2*w + sg;
  return corners[side] | (16 << side);
}


int mcc_boxBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
               int g1, int g2, mcNum margin) {
  const mcNum* p[2] = {MCC_POS(d, g1), MCC_POS(d, g2)};
  const mcNum* R[2] = {MCC_MAT(d, g1), MCC_MAT(d, g2)};
  const mcNum* s[2] = {MCC_SIZE(m, g1), MCC_SIZE(m, g2)};
  mcNum ax[2][3][3], T[3];
  for (int b = 0; b < 2; b++) {
    for (int k = 0; k < 3; k++) {
      matCol(ax[b][k], R[b], k);
    }
  }
  sub3(T, p[1], p[0]);

  // separating axes
  mcNum bestSep = -INFINITY, n[3] = {1, 0, 0};
  int edge = 0, bestA = -1;
  for (int a = 0; a < 15; a++) {
    mcNum L[3];
    if (a < 6) {
      copy3(L, ax[a / 3][a % 3]);
    } else {
      cross3(L, ax[0][(a - 6) / 3], ax[1][(a - 6) % 3]);
      mcNum len = norm3(L);
      if (len < mcMINVAL) {
        continue;
      }
      scl3(L, L, 1/len);
    }
    mcNum ra = 0, rb = 0;
    for (int k = 0; k < 3; k++) {
      ra += s[0][k] * fabs(dot3(ax[0][k], L));
      rb += s[1][k] * fabs(dot3(ax[1][k], L));
    }
    mcNum proj = dot3(T, L);
    mcNum sep = fabs(proj) - ra - rb;
    if (sep > margin) {
      return 0;
    }
    mcNum better = a < 6 ? bestSep : bestSep - 1e-12*bestSep;
    if (sep > better) {
      bestSep = sep;
      edge = a >= 6;
      bestA = a;
      scl3(n, L, proj < 0 ? -1 : 1);
    }
  }
  if (bestA < 0) {
    return 0;  // not finite
  }

  // face of box 1 facing along n, face of box 2 facing against it
  int fk[2] = {0, 0};
  mcNum fsg[2], fc[2][3], fn[2][3];
  for (int b = 0; b < 2; b++) {
    mcNum best = -1;
    for (int k = 0; k < 3; k++) {
      mcNum al = fabs(dot3(ax[b][k], n));
      if (al >= best) {
        best = al;
        fk[b] = k;
      }
    }
    mcNum dn = dot3(ax[b][fk[b]], n);
    fsg[b] = (b == 0) == (dn > 0) ? 1 : -1;
    scl3(fn[b], ax[b][fk[b]], fsg[b]);
    addScl3(fc[b], p[b], fn[b], s[b][fk[b]]);
  }
  mcNum na = dot3(n, fn[0]), nb = dot3(n, fn[1]);
  if (fabs(na) < mcMINVAL || fabs(nb) < mcMINVAL) {
    return 0;
  }

  // face 1 in 2D: axes U, V with half sizes su, sv
  int ku = (fk[0] + 1) % 3, kv = (fk[0] + 2) % 3;
  const mcNum* U = ax[0][ku];
  const mcNum* V = ax[0][kv];
  mcNum su = s[0][ku], sv = s[0][kv];

  // corners of face 2 projected along n onto the plane of face 1: 2D position, penetration
  int k1 = (fk[1] + 1) % 3, k2 = (fk[1] + 2) % 3;
  const mcNum cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
  mcNum q[4][2], qpen[4];
  for (int i = 0; i < 4; i++) {
    mcNum v[3], dif[3], w[3];
    addScl3(v, fc[1], ax[1][k1], cu[i]*s[1][k1]);
    addScl3(v, v, ax[1][k2], cv[i]*s[1][k2]);
    sub3(dif, fc[0], v);
    qpen[i] = dot3(dif, fn[0]) / na;
    addScl3(w, v, n, qpen[i]);
    sub3(w, w, fc[0]);
    q[i][0] = dot3(w, U);
    q[i][1] = dot3(w, V);
  }

  BoxPoint pt[16];
  int cnt = 0;
  mcNum pa[3];

  // which parts take part: corners of face 2 (bit i of useB), edges of face 2 (bit 4+i), corners
  // of face 1 (bit i of useA), edges of face 1 (bit 4+i: u=-su, u=+su, v=-sv, v=+sv)
  int useA = 0xff, useB = 0xff;
  if (edge) {
    // edge axis: of face 1 only the corners of its edge along the edge direction on the side of
    // box 2's centre
    int ia = (bestA - 6) / 3;
    int w = ia == ku ? 1 : 0;
    int sg = dot3(ax[0][w == 0 ? ku : kv], T) > 0 ? 1 : 0;
    useA = (boxSideMask(w, sg) & 0xf) | 0xf0;
  } else {
    // face axis: a tilted incident face (a tangent axis more than 60 degrees from the normal)
    // takes part only with its edge nearest the reference face
    int inc = bestA < 3 ? 1 : 0;
    int t1 = (fk[inc] + 1) % 3, t2 = (fk[inc] + 2) % 3;
    mcNum d1 = dot3(ax[inc][t1], n), d2 = dot3(ax[inc][t2], n);
    if (fabs(d1) > 0.5 || fabs(d2) > 0.5) {
      int w = fabs(d2) > fabs(d1) ? 1 : 0;
      mcNum dw = w ? d2 : d1;
      int sg = (inc == 1) == (dw < 0) ? 1 : 0;
      int mask = boxSideMask(w, sg);
      if (fabs(d1) > 0.5 && fabs(d2) > 0.5) {
        // both edges that far from the normal: only the corner nearest to the reference face
        mcNum dv = w ? d1 : d2;
        mask &= boxSideMask(1 - w, (inc == 1) == (dv < 0) ? 1 : 0) & 0xf;
      }
      if (inc == 1) {
        useA = 0xf0;
        useB = mask;
      } else {
        useB = 0xf0;
        useA = mask;
      }
    }
  }

  // corners of face 2 inside face 1
  for (int i = 0; i < 4; i++) {
    if ((useB & (1 << i)) && fabs(q[i][0]) <= su && fabs(q[i][1]) <= sv) {
      addScl3(pa, fc[0], U, q[i][0]);
      addScl3(pa, pa, V, q[i][1]);
      cnt = boxAddPoint(pt, cnt, pa, qpen[i], margin);
    }
  }

  // crossings of the edges of face 2 with the edges of face 1
  for (int i = 0; i < 4; i++) {
    const mcNum* a = q[i];
    const mcNum* b = q[(i + 1) % 4];
    if (!(useB & (16 << boxQuadEdge[i]))) {
      continue;
    }
    for (int c = 0; c < 2; c++) {
      int o = 1 - c;
      mcNum lim = c == 0 ? su : sv, olim = c == 0 ? sv : su;
      if (a[c] == b[c]) {
        continue;
      }
      for (int sg = -1; sg <= 1; sg += 2) {
        if (!(useA & (16 << (2*c + (sg > 0))))) {
          continue;
        }
        mcNum t = (sg*lim - a[c]) / (b[c] - a[c]);
        if (!(t > 0 && t < 1)) {
          continue;
        }
        mcNum x[2];
        x[c] = sg*lim;
        x[o] = a[o] + t*(b[o] - a[o]);
        if (!(fabs(x[o]) < olim)) {
          continue;
        }
        addScl3(pa, fc[0], U, x[0]);
        addScl3(pa, pa, V, x[1]);
        cnt = boxAddPoint(pt, cnt, pa, qpen[i] + t*(qpen[(i + 1) % 4] - qpen[i]), margin);
      }
    }
  }

  // corners of face 1 inside the projection of face 2
  mcNum area = 0;
  for (int i = 0; i < 4; i++) {
    const mcNum* a = q[i];
    const mcNum* b = q[(i + 1) % 4];
    area += a[0]*b[1] - a[1]*b[0];
  }
  for (int i = 0; i < 4; i++) {
    mcNum x[2] = {cu[i]*su, cv[i]*sv};
    if (!(useA & (1 << i))) {
      continue;
    }
    int inside = 1;
    for (int j = 0; j < 4 && inside; j++) {
      const mcNum* a = q[j];
      const mcNum* b = q[(j + 1) % 4];
      mcNum cr = (b[0] - a[0])*(x[1] - a[1]) - (b[1] - a[1])*(x[0] - a[0]);
      inside = area > 0 ? cr > 0 : cr < 0;
    }
    if (inside) {
      mcNum dif[3];
      addScl3(pa, fc[0], U, x[0]);
      addScl3(pa, pa, V, x[1]);
      sub3(dif, pa, fc[1]);
      cnt = boxAddPoint(pt, cnt, pa, dot3(dif, fn[1]) / nb, margin);
    }
  }

  // edge axis with separated boxes and no overlap of the projected faces: 2.2.2 reports corners
  // with deep penetrations here (MJ#3476-like); the physical contact is the pair of nearest
  // points of the two edges, at the separation
  if (edge && !cnt && bestSep > 0) {
    int ia = (bestA - 6) / 3, jb = (bestA - 6) % 3;
    mcNum ea[3], eb[3], dif[3];
    copy3(ea, p[0]);
    copy3(eb, p[1]);
    for (int k = 0; k < 3; k++) {
      if (k != ia) {
        addScl3(ea, ea, ax[0][k], (dot3(ax[0][k], n) > 0 ? 1 : -1) * s[0][k]);
      }
      if (k != jb) {
        addScl3(eb, eb, ax[1][k], (dot3(ax[1][k], n) > 0 ? -1 : 1) * s[1][k]);
      }
    }

    // nearest points of the segments ea + x*u (|x| <= s0), eb + y*v (|y| <= s1)
    const mcNum* u = ax[0][ia];
    const mcNum* v = ax[1][jb];
    sub3(dif, ea, eb);
    mcNum uv = dot3(u, v), du = dot3(dif, u), dv = dot3(dif, v), den = 1 - uv*uv, x = 0, y = 0;
    if (den > mcMINVAL) {
      x = (uv*dv - du) / den;
    }
    x = x < -s[0][ia] ? -s[0][ia] : (x > s[0][ia] ? s[0][ia] : x);
    y = dv + x*uv;
    if (y < -s[1][jb] || y > s[1][jb]) {
      y = y < -s[1][jb] ? -s[1][jb] : s[1][jb];
      x = y*uv - du;
      x = x < -s[0][ia] ? -s[0][ia] : (x > s[0][ia] ? s[0][ia] : x);
    }
    mcNum qa[3], qb[3], pos[3];
    addScl3(qa, ea, u, x);
    addScl3(qb, eb, v, y);
    add3(pos, qa, qb);
    scl3(pos, pos, 0.5);
    setContact(con, bestSep, pos, n, NULL);
    return 1;
  }

  // contacts: midpoint between the faces; halved distance on face axes
  mcNum scale = edge ? 1 : 0.5;
  int ncon = 0;
  for (int i = 0; i < cnt && ncon < mcMAXCONPAIR; i++) {
    mcNum pos[3];
    addScl3(pos, pt[i].pa, n, -0.5*pt[i].pen);
    setContact(con + ncon++, -pt[i].pen*scale, pos, n, NULL);
  }
  return ncon;
}
