// Moduco collision-primitive plugin: box pairs (sphere-box, capsule-box, box-box).
#include <math.h>

#include <moduco/mcplugin.h>

#include "geom.h"
#include "primitive.h"


//---------------------------------- sphere-box ----------------------------------------------------

// a sphere (centre c, radius r, world) against box g: one contact, normal from sphere to box
static int sphereBoxRaw(const mcModel* m, const mcData* d, mcContact* con, int g, const mcNum c[3],
                        mcNum r, mcNum margin) {
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

  // inside: leave through the nearest face; MuJoCo 2.2.2 reports dist = -r here
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
  mcNum dist = -r;
  if (dist > margin) {
    return 0;
  }
  setContact(con, dist, pos, n, NULL);
  return 1;
}


int mcc_sphereBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                  int g1, int g2, mcNum margin) {
  return sphereBoxRaw(m, d, con, g2, MCC_POS(d, g1), MCC_SIZE(m, g1)[0], margin);
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


// segment parameter in [-h, h] nearest to the box (the lowest one among ties): the squared
// distance is convex and piecewise quadratic between the slab crossings
static mcNum segmentBoxParam(const mcNum s[3], const mcNum c[3], const mcNum a[3], mcNum h) {
  mcNum br[8];
  int nb = 0;
  br[nb++] = -h;
  for (int k = 0; k < 3; k++) {
    if (fabs(a[k]) < mcMINVAL) {
      continue;
    }
    for (int sg = -1; sg <= 1; sg += 2) {
      mcNum t = (sg*s[k] - c[k]) / a[k];
      if (t > -h && t < h) {
        br[nb++] = t;
      }
    }
  }
  br[nb++] = h;

  // insertion sort of the few breakpoints
  for (int i = 1; i < nb; i++) {
    mcNum x = br[i];
    int j = i - 1;
    while (j >= 0 && br[j] > x) {
      br[j + 1] = br[j];
      j--;
    }
    br[j + 1] = x;
  }

  // minimize on each piece
  mcNum bestt = -h, bestf = boxDist2(s, c, a, -h);
  for (int i = 0; i + 1 < nb; i++) {
    mcNum lo = br[i], hi = br[i + 1], mid = 0.5*(lo + hi), num = 0, den = 0;
    for (int k = 0; k < 3; k++) {
      mcNum x = c[k] + mid*a[k];
      if (x > s[k]) {
        num += a[k]*(c[k] - s[k]);
        den += a[k]*a[k];
      } else if (x < -s[k]) {
        num += a[k]*(c[k] + s[k]);
        den += a[k]*a[k];
      }
    }
    mcNum cand[2] = {lo, hi};
    int nc = 2;
    if (den > mcMINVAL) {
      mcNum t = -num / den;
      if (t > lo && t < hi) {
        cand[0] = t;
        nc = 1;
      }
    }
    for (int j = 0; j < nc; j++) {
      mcNum f = boxDist2(s, c, a, cand[j]);
      if (f < bestf - 1e-14 * (1 + bestf)) {
        bestf = f;
        bestt = cand[j];
      }
    }
  }
  return bestt;
}


// the segment point nearest to the box as a sphere; when both end spheres touch the same face
// (capsule lying on a face) the two ends instead
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

  // both ends over the same face: two contacts
  mcContact ends[2];
  int nend = 0;
  for (int e = 0; e < 2; e++) {
    addScl3(pt, cpos, axis, e == 0 ? -h : h);
    nend += sphereBoxRaw(m, d, ends + nend, g2, pt, r, margin);
  }
  if (nend == 2 && dot3(ends[0].frame, ends[1].frame) > 1 - 1e-9) {
    mcNum lp[3];
    int face = 1;
    for (int e = 0; e < 2 && face; e++) {
      mcNum ln[3];
      mulMatTVec(ln, bmat, ends[e].frame);
      int naxis = 0;
      for (int k = 0; k < 3; k++) {
        naxis += fabs(ln[k]) > 1 - 1e-9;
      }
      addScl3(lp, lc, la, e == 0 ? -h : h);
      face = naxis == 1;
    }
    if (face) {
      con[0] = ends[0];
      con[1] = ends[1];
      return 2;
    }
  }

  // nearest segment point
  mcNum t = segmentBoxParam(s, lc, la, h);
  addScl3(pt, cpos, axis, t);
  return sphereBoxRaw(m, d, con, g2, pt, r, margin);
}


//---------------------------------- box-box -------------------------------------------------------

// clip a convex polygon (n points) to the half space dot(p, nrm) <= off; return the new count
static int clipPolygon(mcNum (*poly)[3], int n, const mcNum nrm[3], mcNum off, mcNum (*out)[3]) {
  int cnt = 0;
  for (int i = 0; i < n; i++) {
    const mcNum* a = poly[i];
    const mcNum* b = poly[(i + 1) % n];
    mcNum da = dot3(a, nrm) - off, db = dot3(b, nrm) - off;
    if (da <= 0) {
      copy3(out[cnt++], a);
    }
    if ((da < 0 && db > 0) || (da > 0 && db < 0)) {
      mcNum t = da / (da - db);
      mcNum p[3];
      for (int k = 0; k < 3; k++) {
        p[k] = a[k] + t*(b[k] - a[k]);
      }
      copy3(out[cnt++], p);
    }
  }
  return cnt;
}


// separating-axis test over the 15 axes; the axis of least penetration gives the contact
// normal; face axes clip the incident face against the reference face, edge axes give one
// contact between the two edges
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

  // best axis: largest separation (face axes preferred on near ties)
  mcNum bestSep = -INFINITY, bestN[3] = {1, 0, 0};
  int bestType = -1, bestI = 0, bestJ = 0;
  for (int a = 0; a < 15; a++) {
    mcNum L[3];
    int type, i = 0, j = 0;
    if (a < 6) {
      type = a < 3 ? 0 : 1;
      copy3(L, ax[type][a % 3]);
    } else {
      type = 2;
      i = (a - 6) / 3;
      j = (a - 6) % 3;
      cross3(L, ax[0][i], ax[1][j]);
      mcNum len = norm3(L);
      if (len < 1e-6) {
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
    mcNum bias = type == 2 ? 1e-6 : 0;
    if (sep > bestSep + bias) {
      bestSep = sep;
      bestType = type;
      bestI = type == 2 ? i : a % 3;
      bestJ = j;
      scl3(bestN, L, proj < 0 ? -1 : 1);
    }
  }

  // edge-edge: nearest points of the two supporting edges
  if (bestType == 2) {
    mcNum e0[3], e1[3];
    copy3(e0, p[0]);
    copy3(e1, p[1]);
    for (int k = 0; k < 3; k++) {
      if (k != bestI) {
        mcNum sg = dot3(ax[0][k], bestN) > 0 ? 1 : -1;
        addScl3(e0, e0, ax[0][k], sg*s[0][k]);
      }
      if (k != bestJ) {
        mcNum sg = dot3(ax[1][k], bestN) > 0 ? -1 : 1;
        addScl3(e1, e1, ax[1][k], sg*s[1][k]);
      }
    }
    const mcNum* u = ax[0][bestI];
    const mcNum* v = ax[1][bestJ];
    mcNum w[3];
    sub3(w, e0, e1);
    mcNum uv = dot3(u, v), uw = dot3(u, w), vw = dot3(v, w), den = 1 - uv*uv;
    mcNum tu = 0, tv = 0;
    if (den > mcMINVAL) {
      tu = (uv*vw - uw) / den;
      tv = (vw - uv*uw) / den;
    }
    mcNum q0[3], q1[3], pos[3];
    addScl3(q0, e0, u, tu);
    addScl3(q1, e1, v, tv);
    mcNum dist = bestSep;
    for (int k = 0; k < 3; k++) {
      pos[k] = 0.5*(q0[k] + q1[k]);
    }
    setContact(con, dist, pos, bestN, NULL);
    return 1;
  }

  // face: reference box ref, incident box inc; nref points out of ref toward inc
  int ref = bestType, inc = 1 - bestType;
  mcNum nref[3];
  scl3(nref, bestN, ref == 0 ? 1 : -1);

  // incident face: most anti-parallel to nref
  int fk = 0;
  mcNum fd = 0;
  for (int k = 0; k < 3; k++) {
    mcNum dk = dot3(ax[inc][k], nref);
    if (fabs(dk) > fabs(fd)) {
      fd = dk;
      fk = k;
    }
  }
  mcNum fsg = fd > 0 ? -1 : 1;
  mcNum poly[8][3], tmp[8][3];
  int k1 = (fk + 1) % 3, k2 = (fk + 2) % 3;
  const mcNum sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
  for (int v = 0; v < 4; v++) {
    copy3(poly[v], p[inc]);
    addScl3(poly[v], poly[v], ax[inc][fk], fsg*s[inc][fk]);
    addScl3(poly[v], poly[v], ax[inc][k1], sx[v]*s[inc][k1]);
    addScl3(poly[v], poly[v], ax[inc][k2], sy[v]*s[inc][k2]);
  }

  // clip against the four side planes of the reference face
  int n = 4;
  for (int k = 0; k < 3 && n; k++) {
    if (k == bestI) {
      continue;
    }
    for (int sg = -1; sg <= 1 && n; sg += 2) {
      mcNum nrm[3];
      scl3(nrm, ax[ref][k], sg);
      mcNum off = dot3(nrm, p[ref]) + s[ref][k];
      n = clipPolygon(poly, n, nrm, off, tmp);
      for (int v = 0; v < n; v++) {
        copy3(poly[v], tmp[v]);
      }
    }
  }

  // points within margin of the reference face
  mcNum fpt[3];
  addScl3(fpt, p[ref], nref, s[ref][bestI] * 1);
  {
    // the reference face is the one facing nref
    mcNum sg = dot3(ax[ref][bestI], nref) > 0 ? 1 : -1;
    addScl3(fpt, p[ref], ax[ref][bestI], sg*s[ref][bestI]);
  }
  int cnt = 0;
  for (int v = 0; v < n && cnt < mcMAXCONPAIR; v++) {
    mcNum dif[3], pos[3];
    sub3(dif, poly[v], fpt);
    mcNum dist = dot3(dif, nref);
    if (dist > margin) {
      continue;
    }
    // MuJoCo 2.2.2 reports half the penetration of face contacts (the position stays midway)
    addScl3(pos, poly[v], nref, -dist/2);
    setContact(con + cnt, dist/2, pos, bestN, NULL);
    cnt++;
  }
  return cnt;
}
