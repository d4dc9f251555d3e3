// dcmotor against the seed (mujoco-dcmotor.txt): closed forms (stall torque, no-load speed,
// current-limit parallelogram, thermal rise, Stribeck curve and pre-sliding hysteresis, PID
// stiffness and damping, slew, anti-windup, voltage clamp, ZOH stability), an independent
// reference implementation of its equations compared on random attribute sets and trajectories,
// attribute resolution and errors.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <moduco/moduco.h>

#include "testutil.h"


// a one-hinge model with the given dcmotor attributes
static mcModel* motorModel(const char* attrs, char* err, int err_sz) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.001'/><worldbody><body><joint name='j' axis='0 0 1'/>"
           "<geom size='.1' mass='1'/></body></worldbody><actuator><dcmotor joint='j' %s/>"
           "</actuator></mujoco>", attrs);
  return mc_loadXMLString(xml, NULL, err, err_sz);
}


//---------------------------------- reference model -----------------------------------------------

// the seed's equations, written from the text independently of the plugin: physical parameters,
// not the storage arrays
typedef struct {
  double R0, K, alpha, T0, Ta;      // motor, Eq. (2), (8)
  double taumax;                    // current/torque limit, Eq. (3); 0: none
  double te, didt;                  // electrical time constant, current rate limit (4)
  double RT, C;                     // thermal (7)
  double s0, s1, tc, ts, ws;        // LuGre (9), (10) with gamma = 2
  double A, Np, phi;                // cogging (6)
  double B[3];                      // post-clamp drag
  double N;                         // gear (B2, B3 are scaled by N^2 at the joint)
  int mode;                         // 0 voltage, 1 position, 2 velocity
  double kp, ki, kd, slew, Imax, vmax;
  int ctrllimited;
  double ctrlrange[2];
} RefPrm;

// the states present, in Table 18's order, and their values
typedef struct {
  int has[5];                       // u_prev, x_I, T, z, i
  double x[5];
} RefState;

enum { S_U = 0, S_XI, S_T, S_Z, S_I };


static double clampd(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}


static void refLayout(const RefPrm* p, RefState* s) {
  s->has[S_U] = p->slew > 0;
  s->has[S_XI] = p->ki > 0;
  s->has[S_T] = p->RT > 0 && p->C > 0;
  s->has[S_Z] = p->s0 > 0;
  s->has[S_I] = p->te > 0;
}


// Stribeck function (10)
static double refG(const RefPrm* p, double w) {
  if (p->ws <= 0) {
    return p->tc;
  }
  double r = w / p->ws;
  return p->tc + (p->ts - p->tc) * exp(-r * r);
}


// one evaluation: force and the state derivatives at (ctrl, theta, omega)
typedef struct {
  double force, dot[5];
  double u, v, R, iflow;
} RefOut;

static void refEval(const RefPrm* p, const RefState* s, double ctrl, double th, double w, double h,
                    RefOut* o) {
  memset(o, 0, sizeof(*o));

  // setpoint: ctrlrange, then the slew limit around the previous setpoint
  double u = p->ctrllimited ? clampd(ctrl, p->ctrlrange[0], p->ctrlrange[1]) : ctrl;
  if (s->has[S_U]) {
    u = clampd(u, s->x[S_U] - p->slew * h, s->x[S_U] + p->slew * h);
    o->dot[S_U] = (u - s->x[S_U]) / h;
  }

  // controller (12), (13), voltage clamp
  double xi = s->has[S_XI] ? s->x[S_XI] : 0, v;
  if (p->mode == 1) {
    v = p->kp * (u - th) + p->ki * xi - p->kd * w;
    o->dot[S_XI] = u - th;
  } else if (p->mode == 2) {
    v = p->kp * (u - w) + p->ki * (xi - th);
    o->dot[S_XI] = u;
  } else {
    v = u;
  }
  if (p->vmax > 0) {
    v = clampd(v, -p->vmax, p->vmax);
  }
  if (!s->has[S_XI]) {
    o->dot[S_XI] = 0;
  }

  // resistance at the winding temperature (T is the rise above ambient)
  double R = p->R0;
  if (s->has[S_T]) {
    R = p->R0 * (1 + p->alpha * (s->x[S_T] + p->Ta - p->T0));
  }

  // electrical torque: quasi-static current or the current state; then the limit
  double i = s->has[S_I] ? s->x[S_I] : (v - p->K * w) / R;
  double tau = p->K * i;
  if (p->taumax > 0) {
    tau = clampd(tau, -p->taumax, p->taumax);
  }
  if (s->has[S_I]) {
    double L = p->te * p->R0;
    double di = (v - i * R - p->K * w) / L;
    o->dot[S_I] = p->didt > 0 ? clampd(di, -p->didt, p->didt) : di;
  }

  // copper losses of the current that flows (after the limit) heat the winding
  double iflow = p->taumax > 0 ? clampd(i, -p->taumax / p->K, p->taumax / p->K) : i;
  if (s->has[S_T]) {
    o->dot[S_T] = iflow * iflow * R / p->C - s->x[S_T] / (p->RT * p->C);
  }

  // cogging, LuGre (9), drag
  tau += p->A * sin(p->Np * th + p->phi);
  if (s->has[S_Z]) {
    double z = s->x[S_Z];
    double zd = w - p->s0 * fabs(w) / refG(p, w) * z;
    o->dot[S_Z] = zd;
    tau -= p->s0 * z + p->s1 * zd;
  }
  // B1 joins the joint's damping (gear^2 B1 in dof_damping): not part of the actuator force;
  // B2, B3 give the joint N^2 (B2 qdot|qdot| + B3 qdot^3) with qdot = w / N
  double qd = w / p->N;
  tau -= p->N * (p->B[1] * qd * fabs(qd) + p->B[2] * qd * qd * qd);
  o->force = tau;
  o->u = u;
  o->v = v;
  o->R = R;
  o->iflow = iflow;
}


// one step of h: u_prev to the setpoint, x_I Euler + anti-windup, z by the ZOH (11), T and i
// exactly for their drive held over the step (i's increment limited to didt h)
static void refStep(const RefPrm* p, RefState* s, const RefOut* o, double w, double h) {
  RefState n = *s;
  if (s->has[S_U]) {
    n.x[S_U] = o->u;
  }
  if (s->has[S_XI]) {
    n.x[S_XI] = s->x[S_XI] + h * o->dot[S_XI];
    if (p->Imax > 0) {
      n.x[S_XI] = clampd(n.x[S_XI], -p->Imax, p->Imax);
    }
  }
  if (s->has[S_T]) {
    double tT = p->RT * p->C, Tss = p->RT * o->iflow * o->iflow * o->R;
    n.x[S_T] = s->x[S_T] - (Tss - s->x[S_T]) * expm1(-h / tT);
  }
  if (s->has[S_Z]) {
    double a = -p->s0 * fabs(w) / refG(p, w), z = s->x[S_Z];
    n.x[S_Z] = a == 0 ? z + w * h : z + expm1(a * h) * z + expm1(a * h) / a * w;
  }
  if (s->has[S_I]) {
    double tau = p->te * p->R0 / o->R, iss = (o->v - p->K * w) / o->R;
    double di = (iss - s->x[S_I]) * -expm1(-h / tau);
    if (p->didt > 0) {
      di = clampd(di, -p->didt * h, p->didt * h);
    }
    n.x[S_I] = s->x[S_I] + di;
  }
  *s = n;
}


//---------------------------------- random motors -------------------------------------------------

static unsigned long long g_rng = 88172645463325252ull;

static double urand(double lo, double hi) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return lo + (hi - lo) * (double)(g_rng >> 11) / 9007199254740992.0;
}


static int irand(int n) {
  int k = (int)urand(0, n);
  return k < n ? k : n - 1;
}


// append to an attribute string
static void add(char* buf, size_t sz, const char* fmt, ...) {
  size_t n = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, sz - n, fmt, ap);
  va_end(ap);
}


// a random parameter set, written as dcmotor attributes through a random choice among the
// seed's alternative forms; p receives the values the seed's rules resolve to
static void randomMotor(RefPrm* p, char* attr, size_t sz, double* gear) {
  memset(p, 0, sizeof(*p));
  attr[0] = 0;
  double vn = urand(6, 48), Kt = urand(0.05, 0.3), Ke = urand(0.05, 0.3);
  double nom[3] = {0, 0, 0};

  // motor constant
  int kform = irand(4);
  if (kform == 0) {
    p->K = Kt;
    add(attr, sz, " motorconst='%.17g'", Kt);
  } else if (kform == 1) {
    p->K = Ke;
    add(attr, sz, " motorconst='0 %.17g'", Ke);
  } else if (kform == 2) {
    p->K = sqrt(Kt * Ke);
    add(attr, sz, " motorconst='%.17g %.17g'", Kt, Ke);
  } else {
    nom[0] = vn;
    nom[2] = urand(50, 500);
    p->K = vn / nom[2];
  }

  // resistance
  double R = urand(1, 5);
  if (irand(2)) {
    p->R0 = R;
    add(attr, sz, " resistance='%.17g'", R);
  } else {
    nom[0] = vn;
    nom[1] = urand(0.1, 3);
    p->R0 = p->K * vn / nom[1];
  }
  if (nom[0] > 0) {
    add(attr, sz, " nominal='%.17g %.17g %.17g'", nom[0], nom[1], nom[2]);
  }

  // limit and current state
  int sform = irand(3);
  double sat[3] = {0, 0, 0};
  if (sform == 1) {
    sat[0] = urand(0.05, 0.5);
    p->taumax = sat[0];
  } else if (sform == 2) {
    sat[1] = urand(0.5, 5);
    p->taumax = p->K * sat[1];
  }
  int iform = irand(3);
  if (iform == 1) {
    double L = urand(1e-4, 5e-3);
    p->te = L / p->R0;
    add(attr, sz, " inductance='%.17g'", L);
  } else if (iform == 2) {
    p->te = urand(1e-4, 5e-3);
    add(attr, sz, " inductance='0 %.17g'", p->te);
  }
  if (p->te > 0 && irand(2)) {
    sat[2] = urand(50, 2000);
    p->didt = sat[2];
  }
  if (sat[0] > 0 || sat[1] > 0 || sat[2] > 0) {
    add(attr, sz, " saturation='%.17g %.17g %.17g'", sat[0], sat[1], sat[2]);
  }

  // thermal: two of resistance, capacitance, time constant
  int tform = irand(4);
  p->alpha = 0;
  p->T0 = 25;
  p->Ta = 25;
  if (tform > 0) {
    double RT = urand(1, 10), C = urand(0.5, 20), tT = RT * C;
    p->alpha = urand(0, 0.004);
    p->T0 = urand(15, 30);
    p->Ta = urand(15, 40);
    if (tform == 1) {
      p->RT = RT;
      p->C = C;
      add(attr, sz, " thermal='%.17g %.17g 0 %.17g %.17g %.17g'", RT, C, p->alpha, p->T0, p->Ta);
    } else if (tform == 2) {
      p->RT = RT;
      p->C = tT / RT;
      add(attr, sz, " thermal='%.17g 0 %.17g %.17g %.17g %.17g'", RT, tT, p->alpha, p->T0, p->Ta);
    } else {
      p->C = C;
      p->RT = tT / C;
      add(attr, sz, " thermal='0 %.17g %.17g %.17g %.17g %.17g'", C, tT, p->alpha, p->T0, p->Ta);
    }
  }

  // LuGre, cogging, drag, armature
  if (irand(2)) {
    p->s0 = pow(10, urand(3, 6));
    p->s1 = urand(0, 0.05);
    p->tc = urand(0.01, 0.1);
    p->ts = p->tc * urand(1, 2);
    p->ws = urand(0.05, 1);
    add(attr, sz, " lugre='%.17g %.17g %.17g %.17g %.17g'", p->s0, p->s1, p->tc, p->ts, p->ws);
  }
  if (irand(2)) {
    p->A = urand(0, 0.05);
    p->Np = 1 + irand(12);
    p->phi = urand(-3, 3);
    add(attr, sz, " cogging='%.17g %.17g %.17g'", p->A, p->Np, p->phi);
  }
  if (irand(2)) {
    p->B[0] = urand(0, 0.01);
    p->B[1] = urand(0, 0.001);
    p->B[2] = urand(0, 1e-4);
    add(attr, sz, " damping='%.17g %.17g %.17g'", p->B[0], p->B[1], p->B[2]);
  }
  add(attr, sz, " armature='%.17g'", urand(0.001, 0.01));

  // controller
  p->mode = irand(3);
  static const char* const modes[3] = {"voltage", "position", "velocity"};
  add(attr, sz, " input='%s'", modes[p->mode]);
  if (p->mode == 1) {
    p->kp = urand(1, 20);
    p->ki = irand(2) ? urand(0.5, 5) : 0;
    p->kd = irand(2) ? urand(0, 1) : 0;
  } else if (p->mode == 2) {
    p->kp = urand(0.1, 2);
    p->ki = irand(2) ? urand(0.5, 5) : 0;
  }
  p->slew = irand(2) ? urand(1, 50) : 0;
  p->Imax = p->ki > 0 && irand(2) ? urand(0.01, 0.5) : 0;
  p->vmax = irand(2) ? urand(3, 24) : 0;
  add(attr, sz, " controller='%.17g %.17g %.17g %.17g %.17g %.17g'", p->kp, p->ki, p->kd,
      p->slew, p->Imax, p->vmax);
  double range = p->mode == 0 ? 12 : p->mode == 1 ? 1.5 : 5;
  p->ctrllimited = irand(2);
  if (p->ctrllimited) {
    p->ctrlrange[0] = -range;
    p->ctrlrange[1] = range;
    add(attr, sz, " ctrllimited='true' ctrlrange='%.17g %.17g'", -range, range);
  }
  *gear = 1 + irand(3);
  add(attr, sz, " gear='%g'", *gear);
}


// the engine's activation of the states present, in Table 18's order
static void engineState(const mcModel* m, const mcData* d, RefState* s) {
  int k = m->actuator_actadr[0];
  for (int j = 0; j < 5; j++) {
    s->x[j] = s->has[j] ? d->act[k++] : 0;
  }
}


static double scaledErr(double a, double b, double floor) {
  return fabs(a - b) / (fabs(b) + floor);
}


Test(dcmotor, stall_torque_and_slope) {
  char err[512] = "";
  mcModel* m = motorModel("resistance='2' motorconst='0.5'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 12;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.5 * 12 / 2) < 1e-12, "stall %.15g", d->actuator_force[0]);
  d->qvel[0] = 3;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.5 / 2 * (12 - 0.5 * 3)) < 1e-12);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, nominal_resolution_and_saturation) {
  char err[512] = "";
  // K = v/w0 = 24/100, R = K v / tau0 = 0.24*24/2
  mcModel* m = motorModel("nominal='24 2 100' saturation='0 3'", err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect(fabs(m->actuator_gainprm[1] - 0.24) < 1e-15);
  cr_expect(fabs(m->actuator_gainprm[0] - 0.24 * 24 / 2) < 1e-15);
  cr_expect(fabs(m->actuator_forcerange[1] - 0.24 * 3) < 1e-15);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 24;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.72) < 1e-12, "clamped %.15g", d->actuator_force[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, no_load_speed_with_drag) {
  char err[512] = "";
  mcModel* m = motorModel("resistance='1' motorconst='0.1' damping='0.01'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double v = 6, K = 0.1, R = 1, B = 0.01, w0 = v * K / (K * K + R * B);
  d->ctrl[0] = v;
  d->qvel[0] = w0;
  mc_forward(m, d);
  cr_expect(fabs(m->dof_damping[0] - B) < 1e-15, "B1 in the joint damping");
  double net = d->qfrc_actuator[0] + d->qfrc_passive[0];
  cr_expect(fabs(net) < 1e-12, "net torque at w0: %.3g", net);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, state_order_table18) {
  char err[512] = "";
  mcModel* m = motorModel("resistance='1' motorconst='0.1' inductance='0 0.002' "
                          "thermal='2 10 0 0.0039 25 25' lugre='1e3 0.1 0.1 0.2 0.05' "
                          "input='position' controller='5 1 0.1 2 1 12'", err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect_eq(m->na, 5);
  mcData* d = mc_makeData(m);
  for (int s = 0; s < 2000; s++) {
    d->ctrl[0] = 1;
    mc_step(m, d);
  }
  for (int k = 0; k < 5; k++) {
    cr_expect(isfinite(d->act[k]), "act[%d]", k);
  }
  cr_expect(fabs(d->act[0] - 1) < 1e-12, "slew state reached the setpoint");
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, zoh_stable_where_euler_diverges) {
  // sigma0 = 1e6, h = 1 ms, constant velocity: z -> g(w)/sigma0 sgn(w)
  char err[512] = "";
  mcModel* m = motorModel("resistance='1' motorconst='0.1' lugre='1e6 0 0.1 0.1 0'", err,
                          sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  for (int s = 0; s < 50; s++) {
    d->qvel[0] = 2;
    mc_step(m, d);
  }
  cr_expect(fabs(d->act[0] - 0.1 / 1e6) < 1e-12, "z %.6g", d->act[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// every bad combination names its attribute with file:line
Test(dcmotor, errors_name_the_attribute) {
  const char* cases[][2] = {
    {"motorconst='0.1'", "resistance"},
    {"resistance='1'", "motorconst"},
    {"resistance='1' motorconst='0.1' nominal='24 0 100'", "motorconst"},
    {"resistance='-1' motorconst='0.1'", "resistance"},
    {"resistance='1' motorconst='0.1 x'", "motorconst"},
    {"resistance='1' motorconst='0.1 0.2 0.3'", "motorconst"},
    {"resistance='1' motorconst='0.1' saturation='1 2'", "saturation"},
    {"resistance='1' motorconst='0.1' inductance='0.1 0.2'", "inductance"},
    {"resistance='1' motorconst='0.1' thermal='2'", "thermal"},
    {"resistance='1' motorconst='0.1' input='torque'", "input"},
    {"resistance='1' motorconst='0.1' controller='1'", "controller"},
    {"resistance='1' motorconst='0.1' input='position'", "kp"},
    {"resistance='1' motorconst='0.1' lugre='1e5 0 0.2 0.1 0'", "lugre"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char err[512] = "";
    mcModel* m = motorModel(cases[i][0], err, sizeof(err));
    cr_expect(!m, "accepted: %s", cases[i][0]);
    cr_expect(strstr(err, cases[i][1]) != NULL, "'%s': message '%s' lacks '%s'", cases[i][0],
              err, cases[i][1]);
    cr_expect(strstr(err, ":1:") != NULL || strstr(err, "line") != NULL, "no line: %s", err);
    mc_deleteModel(m);
  }
}


//---------------------------------- against the reference -----------------------------------------

// random attribute sets and trajectories: actuator_force, act_dot and the next act match the
// reference to 1e-12 (relative, with a floor of 1 or the bristle scale for z)
Test(dcmotor, reference_random_sets_and_trajectories) {
  int nstate_seen[5] = {0, 0, 0, 0, 0};
  for (int set = 0; set < 60; set++) {
    RefPrm p;
    char attr[2048], err[512] = "";
    double gear;
    randomMotor(&p, attr, sizeof(attr), &gear);
    p.N = gear;
    mcModel* m = motorModel(attr, err, sizeof(err));
    cr_assert(m, "set %d: %s\n%s", set, err, attr);
    RefState s;
    memset(&s, 0, sizeof(s));
    refLayout(&p, &s);
    int na = 0;
    for (int j = 0; j < 5; j++) {
      na += s.has[j];
      nstate_seen[j] += s.has[j];
    }
    cr_assert_eq(m->na, na, "set %d: na %d, reference %d\n%s", set, m->na, na, attr);
    mcData* d = mc_makeData(m);
    double h = m->opt.timestep, range = p.mode == 0 ? 12 : p.mode == 1 ? 1.5 : 5, ctrl = 0;
    double worst = 0;
    for (int step = 0; step < 300; step++) {
      if (step % 25 == 0) {
        ctrl = urand(-1.3 * range, 1.3 * range);
      }
      d->ctrl[0] = ctrl;
      engineState(m, d, &s);
      double th = gear * d->qpos[0], w = gear * d->qvel[0];
      RefOut o;
      refEval(&p, &s, ctrl, th, w, h, &o);
      mc_step(m, d);
      cr_assert(isfinite(d->qvel[0]), "set %d diverged\n%s", set, attr);

      // force and derivatives at the start of the step
      double e = scaledErr(d->actuator_force[0], o.force, 1);
      worst = fmax(worst, e);
      cr_assert(e < 1e-12, "set %d step %d: force %.17g, reference %.17g\n%s", set, step,
                d->actuator_force[0], o.force, attr);
      int k = m->actuator_actadr[0];
      for (int j = 0; j < 5; j++) {
        if (!s.has[j]) {
          continue;
        }
        e = scaledErr(d->act_dot[k], o.dot[j], 1);
        worst = fmax(worst, e);
        cr_assert(e < 1e-12, "set %d step %d: act_dot of state %d %.17g, reference %.17g\n%s",
                  set, step, j, d->act_dot[k], o.dot[j], attr);
        k++;
      }

      // the next activation
      RefState n = s;
      refStep(&p, &n, &o, w, h);
      k = m->actuator_actadr[0];
      for (int j = 0; j < 5; j++) {
        if (!n.has[j]) {
          continue;
        }
        double floor = j == S_Z ? fmax(p.ts, p.tc) / p.s0 : 1;
        e = scaledErr(d->act[k], n.x[j], floor);
        worst = fmax(worst, e);
        cr_assert(e < 1e-12, "set %d step %d: act of state %d %.17g, reference %.17g\n%s", set,
                  step, j, d->act[k], n.x[j], attr);
        k++;
      }
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }

  // every state was exercised
  for (int j = 0; j < 5; j++) {
    cr_expect(nstate_seen[j] > 5, "state %d in only %d sets", j, nstate_seen[j]);
  }
}


//---------------------------------- closed forms --------------------------------------------------

// hold the joint still (or at a given velocity) and step
static void holdStep(const mcModel* m, mcData* d, double qpos, double qvel) {
  d->qpos[0] = qpos;
  d->qvel[0] = qvel;
  mc_step(m, d);
}


// the current-limit parallelogram of Fig. 2: clip(K/R (v - K w), +-K imax) on a grid
Test(dcmotor, current_limit_parallelogram) {
  char err[512] = "";
  double K = 0.2, R = 1.5, imax = 4;
  mcModel* m = motorModel("resistance='1.5' motorconst='0.2' saturation='0 4'", err,
                          sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  for (double v = -24; v <= 24; v += 6) {
    for (double w = -150; w <= 150; w += 12.5) {
      d->ctrl[0] = v;
      d->qvel[0] = w;
      mc_forward(m, d);
      double t = K / R * (v - K * w);
      t = t > K * imax ? K * imax : t < -K * imax ? -K * imax : t;
      cr_expect(fabs(d->actuator_force[0] - t) < 1e-12, "v %g w %g: %.15g vs %.15g", v, w,
                d->actuator_force[0], t);
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// constant losses (locked rotor, alpha = 0): T reaches (1 - 1/e) T_ss at t = R_T C, T_ss = R_T P
Test(dcmotor, thermal_63_percent_at_time_constant) {
  char err[512] = "";
  double R = 2, v = 6, RT = 4, C = 0.5, tT = RT * C, P = v * v / R;
  mcModel* m = motorModel("resistance='2' motorconst='0.1' thermal='4 0.5 0 0 25 20'", err,
                          sizeof(err));
  cr_assert(m, "%s", err);
  cr_assert_eq(m->na, 1);
  mcData* d = mc_makeData(m);
  int n = (int)lround(tT / m->opt.timestep);
  for (int k = 0; k < n; k++) {
    d->ctrl[0] = v;
    holdStep(m, d, 0, 0);
  }
  double Tss = RT * P, frac = d->act[0] / Tss;
  cr_expect(fabs(frac - (1 - exp(-1))) < 1e-6, "T/T_ss at t_T: %.12f", frac);

  // the steady state
  for (int k = 0; k < 20 * n; k++) {
    holdStep(m, d, 0, 0);
  }
  cr_expect(fabs(d->act[0] - Tss) < 1e-6 * Tss, "T_ss %.12g vs %.12g", d->act[0], Tss);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// R(T) = R0 (1 + alpha (T_winding - T0)) lowers the stall torque as the winding heats
Test(dcmotor, thermal_resistance_feedback) {
  char err[512] = "";
  double R0 = 2, K = 0.1, v = 12, alpha = 0.0039, T0 = 20, Ta = 30;
  mcModel* m = motorModel("resistance='2' motorconst='0.1' thermal='3 0 6 0.0039 20 30'", err,
                          sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect(fabs(m->actuator_dynprm[3] - 2) < 1e-15, "C = t_T / R_T");
  mcData* d = mc_makeData(m);
  for (int k = 0; k < 3000; k++) {
    d->ctrl[0] = v;
    holdStep(m, d, 0, 0);
  }
  d->qpos[0] = 0;
  d->qvel[0] = 0;
  mc_forward(m, d);
  double T = d->act[0], R = R0 * (1 + alpha * (T + Ta - T0));
  cr_expect(T > 1, "heated: %g", T);
  cr_expect(fabs(d->actuator_force[0] - K * v / R) < 1e-12, "stall %.15g vs %.15g",
            d->actuator_force[0], K * v / R);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// LuGre steady state at constant velocity: the Stribeck curve -g(w) sgn(w) - sigma2 w of Fig. 6
Test(dcmotor, lugre_stribeck_curve) {
  char err[512] = "";
  double K = 0.05, R = 1, s0 = 1e5, tc = 0.1, ts = 0.25, ws = 0.1, s2 = 0.02;
  mcModel* m = motorModel("resistance='1' motorconst='0.05' lugre='1e5 0.01 0.1 0.25 0.1' "
                          "damping='0.02'", err, sizeof(err));
  cr_assert(m, "%s", err);
  const double ws_list[] = {-3, -0.5, -0.1, -0.03, -0.005, 0.002, 0.01, 0.05, 0.1, 0.2, 1, 4};
  for (size_t c = 0; c < sizeof(ws_list) / sizeof(ws_list[0]); c++) {
    double w = ws_list[c];
    mcData* d = mc_makeData(m);
    for (int k = 0; k < 3000; k++) {
      d->ctrl[0] = 0;
      holdStep(m, d, d->qpos[0], w);
    }
    d->qvel[0] = w;
    mc_forward(m, d);
    // the viscous term sigma_2 w is the damping B1, now in the joint damping (qfrc_passive)
    double friction = d->actuator_force[0] + d->qfrc_passive[0] - K / R * (0 - K * w);
    double g = tc + (ts - tc) * exp(-(w / ws) * (w / ws));
    double expect = -g * (w > 0 ? 1 : -1) - s2 * w;
    cr_expect(fabs(friction - expect) < 1e-6, "w %g: friction %.12g, Stribeck %.12g", w,
              friction, expect);
    cr_expect(fabs(d->act[0] - g * (w > 0 ? 1 : -1) / s0) < 1e-12, "z_ss at w %g", w);
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


// pre-sliding hysteresis: from z = 0 at constant |w| the bristle follows
// z(x) = sgn g/s0 (1 - exp(-s0 |x| / g)) along the travel x; after a reversal at z_r the branch
// z = -g/s0 + (z_r + g/s0) exp(-s0 (x_r - x)/g); the loop dissipates energy
Test(dcmotor, lugre_presliding_hysteresis) {
  char err[512] = "";
  double s0 = 2e4, tc = 0.1, w = 0.002, h = 0.001;
  mcModel* m = motorModel("resistance='1' motorconst='0.05' lugre='2e4 0 0.1 0.1 0'", err,
                          sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double x = 0, zr = 0, xr = 0, work = 0, maxerr = 0, fprev = 0;
  int n = 4000;
  for (int k = 0; k < 3 * n; k++) {
    // out for n steps, back for 2n, sliding through the pre-sliding regime
    double wk = k < n ? w : -w;
    d->ctrl[0] = 0;
    holdStep(m, d, x, wk);
    x += wk * h;
    double z = d->act[0], zexp;
    if (k < n) {
      zexp = tc / s0 * (1 - exp(-s0 * x / tc));
      zr = z;
      xr = x;
    } else {
      zexp = -tc / s0 + (zr + tc / s0) * exp(-s0 * (xr - x) / tc);
    }
    maxerr = fmax(maxerr, fabs(s0 * z - s0 * zexp));

    // friction torque -s0 z: continuous, work over the loop
    double f = -s0 * z;
    cr_assert(fabs(f - fprev) <= 2 * s0 * w * h, "friction jumps at step %d", k);
    work += f * wk * h;
    fprev = f;
  }
  cr_expect(maxerr < 1e-6, "bristle torque off the analytic branches by %.3g", maxerr);
  cr_expect(work < -1e-6, "the loop dissipates: work %.6g", work);
  cr_expect(fabs(d->act[0] + tc / s0) < 1e-9, "slides at -tau_c");
  mc_deleteData(d);
  mc_deleteModel(m);
}


// position mode: stiffness K kp / R, damping K (K + kd) / R, integral gain K ki / R
Test(dcmotor, pid_position_stiffness_damping) {
  char err[512] = "";
  double K = 0.1, R = 2, kp = 8, ki = 3, kd = 0.4;
  mcModel* m = motorModel("resistance='2' motorconst='0.1' input='position' "
                          "controller='8 3 0.4'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double u = 0.7, th = 0.2, w = -0.3, xi = 0.05;
  d->ctrl[0] = u;
  d->qpos[0] = th;
  d->qvel[0] = w;
  d->act[0] = xi;
  mc_forward(m, d);
  double f = d->actuator_force[0];
  double expect = K * kp / R * (u - th) + K * ki / R * xi - K * (K + kd) / R * w;
  cr_expect(fabs(f - expect) < 1e-12, "force %.15g vs %.15g", f, expect);
  d->qpos[0] = th + 0.1;
  mc_forward(m, d);
  cr_expect(fabs((d->actuator_force[0] - f) / 0.1 + K * kp / R) < 1e-9, "stiffness");
  d->qpos[0] = th;
  d->qvel[0] = w + 0.1;
  mc_forward(m, d);
  cr_expect(fabs((d->actuator_force[0] - f) / 0.1 + K * (K + kd) / R) < 1e-9, "damping");
  d->qvel[0] = w;
  d->act[0] = xi + 0.1;
  mc_forward(m, d);
  cr_expect(fabs((d->actuator_force[0] - f) / 0.1 - K * ki / R) < 1e-9, "integral gain");
  cr_expect(fabs(d->act_dot[0] - (u - th)) < 1e-15, "x_I' = u - theta");
  mc_deleteData(d);
  mc_deleteModel(m);
}


// velocity mode: stiffness K ki / R about x_I, damping K (K + kp) / R, feedforward K kp / R
Test(dcmotor, pid_velocity_stiffness_damping) {
  char err[512] = "";
  double K = 0.1, R = 2, kp = 1.5, ki = 4;
  mcModel* m = motorModel("resistance='2' motorconst='0.1' input='velocity' "
                          "controller='1.5 4'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double u = 2, th = 0.3, w = 0.5, xi = 0.6;
  d->ctrl[0] = u;
  d->qpos[0] = th;
  d->qvel[0] = w;
  d->act[0] = xi;
  mc_forward(m, d);
  double f = d->actuator_force[0];
  double expect = K * ki / R * (xi - th) - K * (K + kp) / R * w + K * kp / R * u;
  cr_expect(fabs(f - expect) < 1e-12, "force %.15g vs %.15g", f, expect);
  d->qpos[0] = th + 0.1;
  mc_forward(m, d);
  cr_expect(fabs((d->actuator_force[0] - f) / 0.1 + K * ki / R) < 1e-9, "stiffness");
  d->qpos[0] = th;
  d->qvel[0] = w + 0.1;
  mc_forward(m, d);
  cr_expect(fabs((d->actuator_force[0] - f) / 0.1 + K * (K + kp) / R) < 1e-9, "damping");
  cr_expect(fabs(d->act_dot[0] - u) < 1e-15, "x_I' = u");
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the setpoint ramps at slewmax; anti-windup holds x_I at Imax; Vmax clamps the drive voltage
Test(dcmotor, slew_antiwindup_vmax) {
  char err[512] = "";
  double K = 0.1, R = 2, s = 2, Imax = 0.25, vmax = 5, kp = 50, ki = 10;
  mcModel* m = motorModel("resistance='2' motorconst='0.1' input='position' "
                          "controller='50 10 0 2 0.25 5'", err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_assert_eq(m->na, 2);
  mcData* d = mc_makeData(m);
  double h = m->opt.timestep;
  for (int k = 1; k <= 1000; k++) {
    d->ctrl[0] = 1;
    holdStep(m, d, 0, 0);
    double ramp = fmin(1, k * s * h);
    cr_assert(fabs(d->act[0] - ramp) < 1e-12, "step %d: setpoint %.15g, ramp %.15g", k,
              d->act[0], ramp);
  }
  cr_expect(fabs(d->act[1] - Imax) < 1e-15, "x_I held at Imax: %.15g", d->act[1]);

  // drive voltage kp (u - th) + ki x_I = 52.5 V, clamped to 5 V
  d->qpos[0] = 0;
  d->qvel[0] = 0.4;
  mc_forward(m, d);
  double expect = K / R * (vmax - K * 0.4);
  cr_expect(fabs(d->actuator_force[0] - expect) < 1e-12, "Vmax: %.15g vs %.15g",
            d->actuator_force[0], expect);
  (void)kp;
  (void)ki;
  mc_deleteData(d);

  // without Imax the integral winds up to (u - th) t
  mcModel* m2 = motorModel("resistance='2' motorconst='0.1' input='position' "
                           "controller='50 10 0 0 0 5'", err, sizeof(err));
  cr_assert(m2, "%s", err);
  d = mc_makeData(m2);
  for (int k = 0; k < 1000; k++) {
    d->ctrl[0] = 1;
    holdStep(m2, d, 0, 0);
  }
  cr_expect(fabs(d->act[0] - 1.0) < 1e-9, "wound up: %.15g", d->act[0]);
  mc_deleteData(d);
  mc_deleteModel(m2);
  mc_deleteModel(m);
}


// a current-rate limited step: the current ramps at (di/dt)_max, torque ramps at K (di/dt)_max
Test(dcmotor, current_rate_limit) {
  char err[512] = "";
  double rate = 100, h = 0.001;
  mcModel* m = motorModel("resistance='1' motorconst='0.1' inductance='0 0.0001' "
                          "saturation='0 0 100'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  for (int k = 1; k <= 50; k++) {
    d->ctrl[0] = 12;
    holdStep(m, d, 0, 0);
    cr_assert(fabs(d->act[0] - k * rate * h) < 1e-12, "step %d: i %.15g", k, d->act[0]);
  }
  // stable at t_e << h: settles at v/R
  for (int k = 0; k < 200; k++) {
    holdStep(m, d, 0, 0);
  }
  cr_expect(fabs(d->act[0] - 12) < 1e-12, "i_ss %.15g", d->act[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// armature J_r gear^2 joins the joint's armature, B1 gear^2 the joint's damping; B2, B3 are
// post-clamp drag, gear^2 (B2 qvel|qvel| + B3 qvel^3) at the joint (seed, MuJoCo 3.14)
Test(dcmotor, armature_and_damping_storage) {
  char err[512] = "";
  char xml[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.001'/><worldbody><body><joint name='j' axis='0 0 1' "
           "armature='0.01'/><geom size='.1' mass='1'/></body></worldbody><actuator>"
           "<dcmotor joint='j' gear='5' resistance='1' motorconst='0.1' saturation='0.05' "
           "damping='0.002 0.0003 0.00004' armature='0.0007'/></actuator></mujoco>");
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect(fabs(m->dof_armature[0] - (0.01 + 0.0007 * 25)) < 1e-15, "dof_armature %.15g",
            m->dof_armature[0]);
  cr_expect_eq(m->actuator_armature[0], 0.0007);
  cr_expect(fabs(m->dof_damping[0] - 0.002 * 25) < 1e-15, "dof_damping %.15g",
            m->dof_damping[0]);
  cr_expect_eq(m->actuator_damping[0], 0, "B1 moved to the joint");
  cr_expect_eq(m->actuator_damping[1], 0.0003);
  cr_expect_eq(m->actuator_damping[2], 0.00004);
  for (int k = 6; k < mcNBIAS; k++) {
    cr_expect_eq(m->actuator_biasprm[k], 0, "biasprm[%d] unused", k);
  }
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 24;
  d->qvel[0] = 2;
  mc_forward(m, d);
  double w = 5 * 2, tau = fmin(0.1 * (24 - 0.1 * w), 0.05);
  tau -= (0.0003 * w * w / 5 + 0.00004 * w * w * w / 25);
  cr_expect(fabs(d->actuator_force[0] - tau) < 1e-12, "post-clamp drag %.15g vs %.15g",
            d->actuator_force[0], tau);
  cr_expect(fabs(d->qfrc_actuator[0] - 5 * tau) < 1e-12);
  cr_expect(fabs(d->qfrc_passive[0] + 0.002 * 25 * 2) < 1e-12, "B1 as joint damping");
  mc_deleteData(d);
  mc_deleteModel(m);

  // armature needs a hinge or slide transmission
  snprintf(xml, sizeof(xml),
           "<mujoco><worldbody><body><freejoint name='f'/><geom size='.1'/></body></worldbody>"
           "<actuator><dcmotor joint='f' resistance='1' motorconst='0.1' armature='1e-3'/>"
           "</actuator></mujoco>");
  m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_expect(!m && strstr(err, "armature"), "%s", err);
  mc_deleteModel(m);
}


// B1 as the joint damping MuJoCo's integrators treat: a single hinge at gear 20, B1 = 4e-4 (so
// D = 0.16), inertia 0.01, h = 0.01, 6 V at qvel 0.5; one step against the closed form of the
// Euler step with implicit damping, qvel' = qvel + h (f - D qvel) / (I + h D), and of the implicit
// step with qDeriv = -D - gear^2 K^2 / R (back-EMF), qvel' = qvel + h (f - D qvel) / (I - h qDeriv)
// (f: the actuator's joint torque at the start; the explicit drag gives 0.5 + h (f - D qvel) / I,
// 1.37 away)
Test(dcmotor, b1_joins_implicit_joint_damping) {
  static const char* const integrators[2] = {"Euler", "implicit"};
  for (int k = 0; k < 2; k++) {
    char xml[1024], err[512] = "";
    snprintf(xml, sizeof(xml),
             "<mujoco><option timestep='0.01' gravity='0 0 0' integrator='%s'/><worldbody><body>"
             "<joint name='j' axis='0 0 1'/><inertial pos='0 0 0' mass='1' "
             "diaginertia='0.01 0.01 0.01'/></body></worldbody><actuator><dcmotor joint='j' "
             "gear='20' resistance='1' motorconst='0.1' damping='4e-4'/></actuator></mujoco>",
             integrators[k]);
    mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
    cr_assert(m, "%s", err);
    mcData* d = mc_makeData(m);
    double h = 0.01, I = 0.01, D = 4e-4 * 400, q0 = 0.5, K = 0.1, R = 1;
    double f = 20 * K / R * (6 - K * 20 * q0);
    double denom = k == 0 ? I + h * D : I + h * (D + 400 * K * K / R);
    double expect = q0 + h * (f - D * q0) / denom;
    d->ctrl[0] = 6;
    d->qvel[0] = q0;
    mc_step(m, d);
    cr_expect(fabs(d->qvel[0] - expect) < 1e-12 * fabs(expect), "%s: qvel %.17g, expected %.17g",
              integrators[k], d->qvel[0], expect);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// the drag against MuJoCo 3.14.0 (@mujoco/mujoco, tests/actuator/dcmotor_ref.mjs): B1 alone at
// gear 20 and B1 B2 B3 at gear 7 (and -7), under Euler, implicit and implicitfast, from qvel 0.5
// and 6 V: the joint torque (Moduco: qfrc_actuator + qfrc_passive, B1 in the joint damping and
// B2, B3 in the actuator force; 3.14: B1..B3 all passive) and qvel after one step, to 1e-12
Test(dcmotor, drag_against_mujoco314) {
  TU_MJS314_REQUIRE();
  static const char* const integrators[3] = {"Euler", "implicit", "implicitfast"};
  static const char* const drags[3][2] = {{"20", "4e-4"}, {"7", "4e-4 3e-5 2e-6"},
                                          {"-7", "4e-4 3e-5 2e-6"}};
  char* xmls[9];
  for (int k = 0; k < 9; k++) {
    xmls[k] = malloc(1024);
    snprintf(xmls[k], 1024,
             "<mujoco><option timestep='0.01' gravity='0 0 0' integrator='%s'/><worldbody><body>"
             "<joint name='j' axis='0 0 1'/><inertial pos='0 0 0' mass='1' "
             "diaginertia='0.01 0.01 0.01'/></body></worldbody><actuator><dcmotor joint='j' "
             "gear='%s' resistance='1' motorconst='0.1' damping='%s'/></actuator><keyframe>"
             "<key qvel='0.5' ctrl='6'/></keyframe></mujoco>", integrators[k % 3],
             drags[k / 3][0], drags[k / 3][1]);
  }
  char err[512] = "";
  cJSON* ref = tu_mjs3Models("tests/actuator/dcmotor_ref.mjs", (const char* const*)xmls, 9, err,
                             sizeof(err));
  cr_assert(ref, "MuJoCo 3.14.0 reference: %s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(ref, "models");
  for (int k = 0; k < 9; k++) {
    const cJSON* e = cJSON_GetArrayItem(models, k);
    cr_assert(!cJSON_GetObjectItemCaseSensitive(e, "error"), "3.14 did not compile case %d", k);
    double rtorque = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "qfrc_actuator"),
                                        0)->valuedouble +
                     cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "qfrc_passive"),
                                        0)->valuedouble;
    double rqvel = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "qvel"), 0)->valuedouble;
    char cerr[512] = "";
    mcModel* m = mc_loadXMLString(xmls[k], NULL, cerr, sizeof(cerr));
    cr_assert(m, "%s", cerr);
    mcData* d = mc_makeData(m);
    mc_resetDataKeyframe(m, d, 0);
    mc_forward(m, d);
    double torque = d->qfrc_actuator[0] + d->qfrc_passive[0];
    mc_step(m, d);
    cr_expect(fabs(torque - rtorque) < 1e-12 * fmax(1, fabs(rtorque)),
              "%s gear %s damping %s: joint torque %.17g, 3.14 %.17g", integrators[k % 3],
              drags[k / 3][0], drags[k / 3][1], torque, rtorque);
    cr_expect(fabs(d->qvel[0] - rqvel) < 1e-12 * fmax(1, fabs(rqvel)),
              "%s gear %s damping %s: qvel %.17g, 3.14 %.17g", integrators[k % 3],
              drags[k / 3][0], drags[k / 3][1], d->qvel[0], rqvel);
    mc_deleteData(d);
    mc_deleteModel(m);
    free(xmls[k]);
  }
  cJSON_Delete(ref);
}

//---------------------------------- attribute resolution ------------------------------------------

// every combination the seed lists resolves to the same R, K, tau_max, t_e and thermal constants
Test(dcmotor, every_listed_combination_resolves_the_same) {
  // R = 2, K = 0.1 (Kt = 0.05, Ke = 0.2), v = 12, tau0 = K v / R = 0.6, w0 = v / K = 120,
  // tau_max = 0.3 = K * 3 A, t_e = L / R = 0.001 / 2, thermal R_T = 4, C = 5, t_T = 20
  const char* kforms[] = {"motorconst='0.1'", "motorconst='0 0.1'", "motorconst='0.05 0.2'",
                          "nominal='12 0 120'"};
  const char* rforms[] = {"resistance='2'", "nominal='12 0.6'"};
  const char* sforms[] = {"saturation='0.3'", "saturation='0 3'", "forcerange='-0.3 0.3'"};
  const char* iforms[] = {"inductance='0.001'", "inductance='0 0.0005'"};
  const char* tforms[] = {"thermal='4 5'", "thermal='4 0 20'", "thermal='0 5 20'",
                          "thermal='4 5 20'"};
  int count = 0;
  for (int a = 0; a < 4; a++) {
    for (int b = 0; b < 2; b++) {
      for (int c = 0; c < 3; c++) {
        for (int e = 0; e < 2; e++) {
          for (int t = 0; t < 4; t++) {
            char attr[512], err[512] = "";
            // two nominal forms merge into one attribute
            if (a == 3 && b == 1) {
              snprintf(attr, sizeof(attr), "nominal='12 0.6 120' %s %s %s", sforms[c],
                       iforms[e], tforms[t]);
            } else {
              snprintf(attr, sizeof(attr), "%s %s %s %s %s", kforms[a], rforms[b], sforms[c],
                       iforms[e], tforms[t]);
            }
            mcModel* m = motorModel(attr, err, sizeof(err));
            cr_assert(m, "%s: %s", attr, err);
            const mcNum* g = m->actuator_gainprm;
            const mcNum* dp = m->actuator_dynprm;
            cr_expect(fabs(g[0] - 2) < 1e-14 && fabs(g[1] - 0.1) < 1e-15, "%s: R %.17g K %.17g",
                      attr, g[0], g[1]);
            cr_expect(fabs(m->actuator_forcerange[0] + 0.3) < 1e-15 &&
                      fabs(m->actuator_forcerange[1] - 0.3) < 1e-15, "%s: forcerange", attr);
            cr_expect(fabs(dp[0] - 0.0005) < 1e-17, "%s: t_e %.17g", attr, dp[0]);
            cr_expect(fabs(dp[2] - 4) < 1e-14 && fabs(dp[3] - 5) < 1e-14, "%s: R_T C", attr);
            cr_expect(fabs(g[3] - 25) < 1e-15 && fabs(dp[4] - 25) < 1e-15, "%s: T0 Ta", attr);
            cr_expect_eq(m->na, 2, "%s: states", attr);
            mc_deleteModel(m);
            count++;
          }
        }
      }
    }
  }
  cr_expect_eq(count, 192);
}


// more conflicting or incomplete combinations, each naming the attribute, with file:line
Test(dcmotor, conflicts_name_the_attribute) {
  const char* cases[][2] = {
    {"motorconst='0.1' resistance='1' nominal='12 0.6'", "resistance"},
    {"nominal='12 0 100'", "resistance"},
    {"nominal='0 1 100' resistance='1'", "nominal"},
    {"nominal='0 0.5' motorconst='0.1'", "nominal"},
    {"resistance='1' motorconst='0.1' saturation='0.3' forcerange='-0.3 0.3'", "forcerange"},
    {"resistance='1' motorconst='0.1' forcerange='-0.1 0.3'", "forcerange"},
    {"resistance='1' motorconst='0.1' thermal='0 0 5'", "thermal"},
    {"resistance='1' motorconst='0.1' thermal='2 3 7'", "thermal"},
    {"resistance='1' motorconst='0.1' thermal='2 3 6 0 25 25 1'", "thermal"},
    {"resistance='1' motorconst='0.1' lugre='1e5 0 0 0 0'", "lugre"},
    {"resistance='1' motorconst='0.1' lugre='1e5 0 0.1 0.2 0'", "lugre"},
    {"resistance='1' motorconst='0.1' lugre='-1'", "lugre"},
    {"resistance='1' motorconst='0.1' cogging='0.1 -2'", "cogging"},
    {"resistance='1' motorconst='0.1' damping='-0.1'", "damping"},
    {"resistance='1' motorconst='0.1' damping='0.1 0 0 0'", "damping"},
    {"resistance='1' motorconst='0.1' armature='-1'", "armature"},
    {"resistance='1' motorconst='0.1' armature='1 2'", "armature"},
    {"resistance='1' motorconst='0.1' input='velocity'", "kp"},
    {"resistance='1' motorconst='0.1' input='velocity' controller='1 0 0.5'", "kd"},
    {"resistance='1' motorconst='0.1' input='position' controller='1 0 0 0 1'", "Imax"},
    {"resistance='1' motorconst='0.1' controller='0 0 0 0 0 -5'", "controller"},
    {"resistance='1' motorconst='0.1' inductance='1e-3 x'", "inductance"},
    {"resistance='1' motorconst='0.1' saturation=''", "saturation"},
    {"resistance='1' motorconst='0.1' bogus='1'", "bogus"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char err[512] = "";
    mcModel* m = motorModel(cases[i][0], err, sizeof(err));
    cr_expect(!m, "accepted: %s", cases[i][0]);
    cr_expect(strstr(err, cases[i][1]) != NULL, "'%s': message '%s' lacks '%s'", cases[i][0],
              err, cases[i][1]);
    cr_expect(strstr(err, ":1:") != NULL || strstr(err, "line") != NULL, "no line: %s", err);
    mc_deleteModel(m);
  }
}
