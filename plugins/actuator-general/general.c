// Moduco plugin "general": MuJoCo's general actuator with every gain, bias and dynamics type
// (fixed/affine/muscle gain, none/affine/muscle bias, none/integrator/filter/filterexact/muscle
// dynamics), actrange and actearly.
//
// The core compiler parses <general> and the shortcuts (motor, position, velocity, intvelocity,
// damper, cylinder, muscle, adhesion) because they take part in <default> classes. Actuators whose
// types are all affine run on the core's inlined fast path in mc_fwdActuation (no indirect call);
// the compiler binds the others (muscle) to this plugin. This plugin implements the full model, so
// binding any general actuator to it gives the same numbers as the fast path.
#include <math.h>

#include <moduco/mcplugin.h>


//---------------------------------- guards --------------------------------------------------------

// max(x, mcMINVAL), mcMINVAL for a NaN x: fmax's result, inlined (fmax is a libm call)
static inline mcNum guard(mcNum x) {
  return x > mcMINVAL ? x : mcMINVAL;
}


// x clamped to [lo, hi], lo for a NaN x: fmin(fmax(x, lo), hi)'s result, inlined
static inline mcNum clamp(mcNum x, mcNum lo, mcNum hi) {
  mcNum y = x > lo ? x : lo;
  return y < hi ? y : hi;
}


//---------------------------------- muscle model --------------------------------------------------

// quintic sigmoid on [0, 1]
static mcNum sigmoid(mcNum x) {
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  return x * x * x * (3 * x * (2 * x - 5) + 10);
}


// peak force F0 (scale / acc0 when force is negative), optimal length L0 and normalized length L
typedef struct {
  mcNum F0, L0, L;
} MuscleScale;


// the scale of actuator i from its parameters prm (gainprm or biasprm: their first four, range
// force and scale, are the inputs)
static void muscleScale(const mcModel* m, const mcData* d, int i, const mcNum* prm,
                        MuscleScale* s) {
  const mcNum* lr = m->actuator_lengthrange + 2 * i;
  s->F0 = prm[2] < 0 ? prm[3] / guard(m->actuator_acc0[i]) : prm[2];
  s->L0 = (lr[1] - lr[0]) / guard(prm[1] - prm[0]);
  s->L = prm[0] + (d->actuator_length[i] - lr[0]) / guard(s->L0);
}


// the scale of prm, or the given one (nullable) computed from the same four parameters
static MuscleScale scaleOf(const mcModel* m, const mcData* d, int i, const mcNum* prm,
                           const MuscleScale* given) {
  MuscleScale s;
  if (given) {
    return *given;
  }
  muscleScale(m, d, i, prm, &s);
  return s;
}


// active force-length curve: two quadratic pieces each side of the optimum L = 1
static mcNum muscleFL(mcNum L, mcNum lmin, mcNum lmax) {
  if (L < lmin || L > lmax) {
    return 0;
  }
  mcNum a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax), x;
  if (L <= a) {
    x = (L - lmin) / guard(a - lmin);
    return 0.5 * x * x;
  } else if (L <= 1) {
    x = (1 - L) / guard(1 - a);
    return 1 - 0.5 * x * x;
  } else if (L <= b) {
    x = (L - 1) / guard(b - 1);
    return 1 - 0.5 * x * x;
  }
  x = (lmax - L) / guard(lmax - b);
  return 0.5 * x * x;
}


// force-velocity curve and its derivative in V
static mcNum muscleFV(mcNum V, mcNum fvmax, mcNum* dFV) {
  mcNum c = fvmax - 1;
  if (V <= -1) {
    *dFV = 0;
    return 0;
  } else if (V <= 0) {
    *dFV = 2 * (V + 1);
    return (V + 1) * (V + 1);
  } else if (V <= c) {
    *dFV = 2 * (c - V) / c;
    return fvmax - (c - V) * (c - V) / c;
  }
  *dFV = 0;
  return fvmax;
}


// muscle gain and its derivative in the actuator velocity (scale: nullable, as scaleOf)
static mcNum muscleGain(const mcModel* m, const mcData* d, int i, const MuscleScale* scale,
                        mcNum* dgain) {
  const mcNum* prm = m->actuator_gainprm + mcNGAIN * i;
  MuscleScale s = scaleOf(m, d, i, prm, scale);
  mcNum dFV;
  mcNum vscale = guard(s.L0 * prm[6]);
  mcNum FL = muscleFL(s.L, prm[4], prm[5]);
  mcNum FV = muscleFV(d->actuator_velocity[i] / vscale, prm[8], &dFV);
  if (dgain) {
    *dgain = -s.F0 * FL * dFV / vscale;
  }
  return -s.F0 * FL * FV;
}


// passive muscle force: zero below the optimum, quadratic then linear above it (scale as in
// muscleGain)
static mcNum muscleBias(const mcModel* m, const mcData* d, int i, const MuscleScale* scale) {
  const mcNum* prm = m->actuator_biasprm + mcNBIAS * i;
  MuscleScale s = scaleOf(m, d, i, prm, scale);
  mcNum b = 0.5 * (1 + prm[5]), fpmax = prm[7];
  if (s.L <= 1) {
    return 0;
  }
  if (s.L <= b) {
    mcNum x = (s.L - 1) / guard(b - 1);
    return -s.F0 * fpmax * 0.5 * x * x;
  }
  mcNum x = (s.L - b) / guard(b - 1);
  return -s.F0 * fpmax * (0.5 + x);
}


// muscle activation dynamics: faster activation at high activation, slower deactivation
static mcNum muscleActDot(mcNum u, mcNum act, const mcNum* prm) {
  mcNum uc = clamp(u, 0, 1), ac = clamp(act, 0, 1);
  mcNum tact = prm[0] * (0.5 + 1.5 * ac);
  mcNum tdeact = prm[1] / (0.5 + 1.5 * ac);
  mcNum du = uc - act, tau;
  if (prm[2] > 0) {
    tau = tdeact + (tact - tdeact) * sigmoid(du / prm[2] + 0.5);
  } else {
    tau = du > 0 ? tact : tdeact;
  }
  return du / guard(tau);
}


//---------------------------------- callbacks -----------------------------------------------------

// control, clamped to ctrlrange unless disabled
static mcNum control(const mcModel* m, const mcData* d, int i) {
  mcNum u = d->ctrl[i];
  if (m->actuator_ctrllimited[i] && !(m->opt.disableflags & mcDSBL_CLAMPCTRL)) {
    u = clamp(u, m->actuator_ctrlrange[2 * i], m->actuator_ctrlrange[2 * i + 1]);
  }
  return u;
}


static void actDot(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  (void)host;
  int adr = m->actuator_actadr[i], last = adr + m->actuator_actnum[i] - 1;
  const mcNum* prm = m->actuator_dynprm + mcNDYN * i;
  mcNum u = control(m, d, i), a = d->act[last];
  switch (m->actuator_dyntype[i]) {
  case mcDYN_INTEGRATOR:
    d->act_dot[last] = u;
    break;
  case mcDYN_FILTER:
  case mcDYN_FILTEREXACT:
    d->act_dot[last] = (u - a) / guard(prm[0]);
    break;
  case mcDYN_MUSCLE:
    d->act_dot[last] = muscleActDot(u, a, prm);
    break;
  default:
    d->act_dot[last] = 0;
    break;
  }
}


// input of the gain: control, activation, or the next activation (actearly)
static mcNum input(const mcModel* m, const mcData* d, int i) {
  int adr = m->actuator_actadr[i];
  if (adr < 0 || m->actuator_actnum[i] == 0) {
    return control(m, d, i);
  }
  int last = adr + m->actuator_actnum[i] - 1;
  mcNum a = d->act[last];
  if (!m->actuator_actearly[i]) {
    return a;
  }
  mcNum h = m->opt.timestep, ad = d->act_dot[last];
  if (m->actuator_dyntype[i] == mcDYN_FILTEREXACT) {
    mcNum tau = guard(m->actuator_dynprm[mcNDYN * i]);
    a += ad * tau * (1 - exp(-h / tau));
  } else {
    a += ad * h;
  }
  if (m->actuator_actlimited[i]) {
    a = clamp(a, m->actuator_actrange[2 * i], m->actuator_actrange[2 * i + 1]);
  }
  return a;
}


static mcNum force(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  (void)host;
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* bp = m->actuator_biasprm + mcNBIAS * i;
  mcNum len = d->actuator_length[i], vel = d->actuator_velocity[i];

  // a muscle whose gain and bias share their scale parameters (the compiler's muscle copies
  // them) computes the scale once
  MuscleScale shared;
  const MuscleScale* scale = NULL;
  if (m->actuator_gaintype[i] == mcGAIN_MUSCLE && m->actuator_biastype[i] == mcBIAS_MUSCLE &&
      gp[0] == bp[0] && gp[1] == bp[1] && gp[2] == bp[2] && gp[3] == bp[3]) {
    muscleScale(m, d, i, gp, &shared);
    scale = &shared;
  }

  // gain
  mcNum gain = 0;
  switch (m->actuator_gaintype[i]) {
  case mcGAIN_FIXED:
    gain = gp[0];
    break;
  case mcGAIN_AFFINE:
    gain = gp[0] + gp[1] * len + gp[2] * vel;
    break;
  case mcGAIN_MUSCLE:
    gain = muscleGain(m, d, i, scale, NULL);
    break;
  default:
    break;
  }

  // bias
  mcNum bias = 0;
  switch (m->actuator_biastype[i]) {
  case mcBIAS_AFFINE:
    bias = bp[0] + bp[1] * len + bp[2] * vel;
    break;
  case mcBIAS_MUSCLE:
    bias = muscleBias(m, d, i, scale);
    break;
  default:
    break;
  }
  return gain * input(m, d, i) + bias;
}


static mcNum dforceDvel(const mcpHost* host, const mcModel* m, const mcData* d, int i) {
  (void)host;
  mcNum dg = 0, db = 0;
  if (m->actuator_gaintype[i] == mcGAIN_AFFINE) {
    dg = m->actuator_gainprm[mcNGAIN * i + 2];
  } else if (m->actuator_gaintype[i] == mcGAIN_MUSCLE) {
    muscleGain(m, d, i, NULL, &dg);
  }
  if (m->actuator_biastype[i] == mcBIAS_AFFINE) {
    db = m->actuator_biasprm[mcNBIAS * i + 2];
  }
  return dg * input(m, d, i) + db;
}


// filterexact in closed form, explicit Euler otherwise (the core clamps to actrange afterwards)
static void integrateAct(const mcpHost* host, const mcModel* m, mcData* d, int i,
                         const mcNum* act_dot, mcNum h) {
  (void)host;
  int adr = m->actuator_actadr[i], num = m->actuator_actnum[i];
  mcNum s = h;
  if (m->actuator_dyntype[i] == mcDYN_FILTEREXACT) {
    mcNum tau = guard(m->actuator_dynprm[mcNDYN * i]);
    s = tau * (1 - exp(-h / tau));
  }
  for (int k = adr; k < adr + num; k++) {
    d->act[k] += act_dot[k] * s;
  }
}


//---------------------------------- descriptor ----------------------------------------------------

static const mcpActuator g_general = {
  .hdr = MCP_HEADER(mcpKIND_ACTUATOR, mcpActuator, "general", "1.0.0",
                    "MuJoCo general actuator: affine and muscle gain/bias, filter/muscle dynamics",
                    -1),
  .element = "general",
  .attributes = NULL,
  .compile = NULL,
  .act_dot = actDot,
  .force = force,
  .integrate_act = integrateAct,
  .dforce_dvel = dforceDvel,
};

static const mcpHeader* const g_plugins[] = {&g_general.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("actuator-general", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
