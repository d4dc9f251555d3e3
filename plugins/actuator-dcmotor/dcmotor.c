// Moduco plugin "dcmotor": the DC motor actuator of the seed mujoco-dcmotor.txt as MJCF element
// <dcmotor>: stateless motor (clip(K/R (v - K w), +-tau_max)), optional winding current with
// rate limit, lumped thermal state with R(T), LuGre bristle state integrated with the exact
// zero-order hold (11), cogging torque, post-clamp polynomial drag, armature, and the controller
// layer (voltage/position/velocity input, kp ki kd, slew limit, anti-windup, voltage clamp).
// Second dialect, MuJoCo 3.12's input signatures pos, vel, ff (mode DCM_POS.. in gainprm[8]):
// torque-space gains turned into a back-EMF compensated voltage, and the current, temperature and
// derivative as MuJoCo 3.14 steps them (docs/dcmotor.md); the seed's modes are unchanged.
//
// Storage (Table 17): gainprm = R K alpha T0 kp ki kd vmax mode; dynprm = te didtmax RT C Ta
// sigma0 sigma1 slew Imax; biasprm = A Np phi tauc taus ws; forcerange = +-tau_max;
// actuator_damping = B1 B2 B3 (applied after the clamp, each scaled by gear^2 at the joint; on a
// hinge or slide joint the compiler moves B1 into the joint damping as gear^2 B1 and stores 0
// here, so MuJoCo's integrators treat it implicitly: docs/dcmotor.md); actuator_armature = J_r (the compiler adds J_r gear^2 to the joint's armature).
// Activation states in Table 18's order: u_prev, x_I, T, z, i.
//
// Integration of the states over a step h (integrate_act): u_prev jumps to the slew-limited
// setpoint; x_I by Euler, then clipped to +-Imax; z by the exact ZOH (11); T and i, both linear
// first-order ODEs with their drive (power, voltage) held over the step, by the exact exponential
// update (time constants t_T and L/R(T), L = t_e R0), stable for any h; the increment of i is
// then limited to (di/dt)_max h. Copper losses use the current after the saturation limit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "dcmotor.h"


//---------------------------------- state layout --------------------------------------------------

// activation addresses of the optional states (-1: absent), in Table 18's order
void dcm_layout(const mcNum* gp, const mcNum* dp, int adr, dcmLayout* L) {
  int k = adr;
  L->uprev = dp[7] > 0 ? k++ : -1;
  L->xi = gp[5] > 0 ? k++ : -1;
  L->temp = (dp[2] > 0 && dp[3] > 0) ? k++ : -1;
  L->z = dp[5] > 0 ? k++ : -1;
  L->cur = dp[0] > 0 ? k++ : -1;
  L->n = k - adr;
}


//---------------------------------- model equations -----------------------------------------------

// Stribeck function g(w) with exponent 2
static mcNum stribeck(const mcNum* bp, mcNum w) {
  mcNum ws = bp[5] > 0 ? bp[5] : mcMINVAL;
  mcNum r = w / ws;
  return bp[3] + (bp[4] - bp[3]) * exp(-r * r);
}


// temperature-dependent resistance
mcNum dcm_resistance(const mcNum* gp, const mcNum* dp, const mcNum* act, const dcmLayout* L) {
  if (L->temp < 0) {
    return gp[0];
  }
  return gp[0] * (1 + gp[2] * (act[L->temp] + dp[4] - gp[3]));
}


// effective setpoint after the slew limit
mcNum dcm_setpoint(const mcNum* dp, mcNum u, const mcNum* act, const dcmLayout* L, mcNum h) {
  if (L->uprev < 0) {
    return u;
  }
  mcNum p = act[L->uprev], s = dp[7] * h;
  return fmin(fmax(u, p - s), p + s);
}


// drive voltage from the controller
mcNum dcm_voltage(const mcNum* gp, mcNum u, mcNum th, mcNum w, const mcNum* act,
                  const dcmLayout* L) {
  mcNum xi = L->xi >= 0 ? act[L->xi] : 0, v;
  int mode = (int)gp[8];
  if (mode >= DCM_POS) {
    // MuJoCo 3.12's signature: the torque kp (p* - th) + ki xi + kd (v* - w) + ff, the input one
    // of p*, v*, ff (the others 0), turned into the voltage that gives it at the nominal
    // resistance: (R0 / K) torque + K w (back-EMF compensation)
    mcNum K = fmax(gp[1], mcMINVAL);
    mcNum tq = gp[4] * ((mode == DCM_POS ? u : 0) - th) + gp[5] * xi +
               gp[6] * ((mode == DCM_VEL ? u : 0) - w) + (mode == DCM_FF ? u : 0);
    v = gp[0] / K * tq + K * w;
  } else if (mode == 1) {
    v = gp[4] * (u - th) + gp[5] * xi - gp[6] * w;
  } else if (mode == 2) {
    v = gp[4] * (u - w) + (L->xi >= 0 ? gp[5] * (xi - th) : 0);
  } else {
    v = u;
  }
  if (gp[7] > 0) {
    v = fmin(fmax(v, -gp[7]), gp[7]);
  }
  return v;
}


// bristle rate dz/dt at velocity w
static mcNum bristleRate(const mcNum* dp, const mcNum* bp, mcNum z, mcNum w) {
  mcNum g = fmax(stribeck(bp, w), mcMINVAL);
  return w - dp[5] * fabs(w) / g * z;
}


mcNum dcm_zoh(const mcNum* dp, const mcNum* bp, mcNum z, mcNum w, mcNum h) {
  mcNum g = fmax(stribeck(bp, w), mcMINVAL);
  mcNum a = -dp[5] * fabs(w) / g;
  if (fabs(a * h) < 1e-12) {
    return z + w * h;
  }
  mcNum em1 = expm1(a * h);
  return z + em1 * z + em1 / a * w;
}


//---------------------------------- callbacks -----------------------------------------------------

// The drag b, in actuation space (w = N qdot, N = gear[0]), such that the joint sees
// N^2 (B1 qdot + B2 qdot|qdot| + B3 qdot^3), every coefficient scaled by N^2 as the seed says and
// MuJoCo 3.14 does: B1 w + B2 w|w| / |N| + B3 w^3 / N^2 (B1 is zero here on a hinge or slide
// joint: the compiler moved it into the joint damping). Its derivative in *deriv.
static mcNum drag(const mcModel* m, int i, mcNum w, mcNum* deriv) {
  const mcNum* b = m->actuator_damping + 3 * i;
  mcNum n = fabs(m->actuator_gear[6 * i]);
  if (!(n > mcMINVAL)) {
    n = 1;
  }
  *deriv = b[0] + 2 * b[1] * fabs(w) / n + 3 * b[2] * w * w / (n * n);
  return b[0] * w + b[1] * w * fabs(w) / n + b[2] * w * w * w / (n * n);
}


// control of actuator i, clamped to ctrlrange
static mcNum control(const mcModel* m, const mcData* d, int i) {
  mcNum u = d->ctrl[i];
  if (m->actuator_ctrllimited[i] && !(m->opt.disableflags & mcDSBL_CLAMPCTRL)) {
    u = fmin(fmax(u, m->actuator_ctrlrange[2 * i]), m->actuator_ctrlrange[2 * i + 1]);
  }
  return u;
}


// the increment of the winding current over h: an exponential step toward (v - K w)/R(T), then
// the rate limit; in *decay (nullable) the fraction 1 - exp(-h / ts) of the gap it closes
static mcNum currentStep(const mcModel* m, const mcData* d, int i, const dcmLayout* L, mcNum h,
                         mcNum* decay) {
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* dp = m->actuator_dynprm + mcNDYN * i;
  mcNum R = fmax(dcm_resistance(gp, dp, d->act, L), mcMINVAL), w = d->actuator_velocity[i];
  mcNum u = dcm_setpoint(dp, control(m, d, i), d->act, L, m->opt.timestep);
  mcNum v = dcm_voltage(gp, u, d->actuator_length[i], w, d->act, L);
  // time constant L / R(T) (the seed's modes) or t_e = L / R0 (MuJoCo 3.12's signatures, as MuJoCo
  // 3.14 steps them, measured with the thermal state)
  int sig = (int)gp[8] >= DCM_POS;
  mcNum ts = sig ? dp[0] : dp[0] * gp[0] / R, gap = (v - gp[1] * w) / R - d->act[L->cur];
  mcNum f = h < 1e-9 * ts ? h / ts : -expm1(-h / ts);
  if (decay) {
    *decay = f;
  }
  if (dp[1] > 0 && sig) {
    // MuJoCo 3.12's signatures, as MuJoCo 3.14 steps them (measured): the rate clipped first,
    // then carried through the same exponential step
    return fmin(fmax(gap / ts, -dp[1]), dp[1]) * ts * f;
  }
  mcNum dcur = gap * f;
  if (dp[1] > 0) {
    dcur = fmin(fmax(dcur, -dp[1] * h), dp[1] * h);
  }
  return dcur;
}


// the electrical torque before the clamp; with the current state, from the current at the start
// of the step (the seed's modes) or after it (MuJoCo 3.12's signatures, as MuJoCo 3.14 computes
// them)
static mcNum dcmElectrical(const mcModel* m, const mcData* d, int i, const dcmLayout* L) {
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* dp = m->actuator_dynprm + mcNDYN * i;
  const mcNum* act = d->act;
  mcNum K = gp[1];
  if (L->cur >= 0) {
    mcNum i1 = act[L->cur];
    if ((int)gp[8] >= DCM_POS) {
      i1 += currentStep(m, d, i, L, m->opt.timestep, NULL);
    }
    return K * i1;
  }
  mcNum th = d->actuator_length[i], w = d->actuator_velocity[i];
  mcNum u = dcm_setpoint(dp, control(m, d, i), act, L, m->opt.timestep);
  mcNum v = dcm_voltage(gp, u, th, w, act, L);
  return K / fmax(dcm_resistance(gp, dp, act, L), mcMINVAL) * (v - K * w);
}


static void actDot(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  (void)host;
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* dp = m->actuator_dynprm + mcNDYN * i;
  const mcNum* bp = m->actuator_biasprm + mcNBIAS * i;
  dcmLayout L;
  dcm_layout(gp, dp, m->actuator_actadr[i], &L);
  const mcNum* act = d->act;
  mcNum h = m->opt.timestep, th = d->actuator_length[i], w = d->actuator_velocity[i];
  mcNum u = dcm_setpoint(dp, control(m, d, i), act, &L, h);
  mcNum R = dcm_resistance(gp, dp, act, &L), K = gp[1];

  // slew state: reach the effective setpoint in one step
  if (L.uprev >= 0) {
    d->act_dot[L.uprev] = (u - act[L.uprev]) / h;
  }

  // integral of the error
  if (L.xi >= 0) {
    d->act_dot[L.xi] = (int)gp[8] == 1 || (int)gp[8] == DCM_POS ? u - th : u;
  }

  // current: the electrical ODE, rate limited
  mcNum v = dcm_voltage(gp, u, th, w, act, &L);
  mcNum cur = L.cur >= 0 ? act[L.cur] : (v - K * w) / fmax(R, mcMINVAL);
  mcNum imax = m->actuator_forcerange[2 * i + 1] / fmax(K, mcMINVAL);
  mcNum flow = imax > 0 ? fmin(fmax(cur, -imax), imax) : cur;
  if (L.cur >= 0) {
    mcNum di = (v - R * cur - K * w) / fmax(dp[0] * gp[0], mcMINVAL);
    if (dp[1] > 0) {
      di = fmin(fmax(di, -dp[1]), dp[1]);
    }
    d->act_dot[L.cur] = di;
  }

  // temperature rise: copper losses against the thermal resistance
  if (L.temp >= 0) {
    mcNum T = act[L.temp];
    d->act_dot[L.temp] = flow * flow * R / dp[3] - T / (dp[2] * dp[3]);
  }

  // bristles
  if (L.z >= 0) {
    d->act_dot[L.z] = bristleRate(dp, bp, act[L.z], w);
  }
}


static mcNum force(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  (void)host;
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* dp = m->actuator_dynprm + mcNDYN * i;
  const mcNum* bp = m->actuator_biasprm + mcNBIAS * i;
  dcmLayout L;
  dcm_layout(gp, dp, m->actuator_actadr[i], &L);
  const mcNum* act = d->act;
  mcNum th = d->actuator_length[i], w = d->actuator_velocity[i];

  // electrical torque, clipped at the current/torque limit
  mcNum tau = dcmElectrical(m, d, i, &L);
  const mcNum* fr = m->actuator_forcerange + 2 * i;
  if (fr[0] < fr[1]) {
    tau = fmin(fmax(tau, fr[0]), fr[1]);
  }

  // cogging, LuGre bristle friction, polynomial drag (all outside the clamp)
  tau += bp[0] * sin(bp[1] * th + bp[2]);
  if (L.z >= 0) {
    mcNum z = act[L.z];
    tau -= dp[5] * z + dp[6] * bristleRate(dp, bp, z, w);
  }
  mcNum slope;
  return tau - drag(m, i, w, &slope);
}


// exponential-integrator step of a first-order linear state with time constant tc
static mcNum expStep(mcNum xdot, mcNum tc, mcNum h) {
  if (!(tc > 0) || h < 1e-9 * tc) {
    return h * xdot;
  }
  return tc * xdot * -expm1(-h / tc);
}


// exact schemes: slew state to the setpoint, ZOH bristles, exponential thermal and current,
// clamped integral
static void integrateAct(const mcpHost* host, const mcModel* m, mcData* d, int i,
                         const mcNum* act_dot, mcNum h) {
  (void)host;
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* dp = m->actuator_dynprm + mcNDYN * i;
  const mcNum* bp = m->actuator_biasprm + mcNBIAS * i;
  dcmLayout L;
  int adr = m->actuator_actadr[i];
  dcm_layout(gp, dp, adr, &L);
  mcNum znew = L.z >= 0 ? dcm_zoh(dp, bp, d->act[L.z], d->actuator_velocity[i], h) : 0;

  mcNum dcur = L.cur >= 0 ? currentStep(m, d, i, &L, h, NULL) : 0;
  for (int k = adr; k < adr + m->actuator_actnum[i]; k++) {
    if (k == L.temp && (int)gp[8] < DCM_POS) {
      d->act[k] += expStep(act_dot[k], dp[2] * dp[3], h);
    } else if (k == L.cur) {
      d->act[k] += dcur;
    } else {
      d->act[k] += h * act_dot[k];
    }
  }
  if (L.z >= 0) {
    d->act[L.z] = znew;
  }
  if (L.xi >= 0 && dp[8] > 0) {
    d->act[L.xi] = fmin(fmax(d->act[L.xi], -dp[8]), dp[8]);
  }
}


// d force / d velocity of the stateless part (back-EMF, controller damping, drag)
static mcNum dforceDvel(const mcpHost* host, const mcModel* m, const mcData* d, int i) {
  (void)host;
  const mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
  const mcNum* dp = m->actuator_dynprm + mcNDYN * i;
  dcmLayout L;
  dcm_layout(gp, dp, m->actuator_actadr[i], &L);
  mcNum w = d->actuator_velocity[i], K = gp[1];
  mcNum R = fmax(dcm_resistance(gp, dp, d->act, &L), mcMINVAL), df = 0;
  int mode = (int)gp[8];
  if (mode >= DCM_POS) {
    // MuJoCo 3.12's signatures, as MuJoCo 3.14 differentiates them (measured): the compensated
    // torque's -kd R0 / R(T), through the current step's decay with the current state, also under
    // the voltage clamp, and 0 while the force range clamps the torque
    mcNum decay = 1;
    if (L.cur >= 0) {
      currentStep(m, d, i, &L, m->opt.timestep, &decay);
    }
    df = -gp[6] * gp[0] / R * decay;
    const mcNum* fr = m->actuator_forcerange + 2 * i;
    if (fr[0] < fr[1]) {
      mcNum tq = dcmElectrical(m, d, i, &L);
      if (tq <= fr[0] || tq >= fr[1]) {
        df = 0;
      }
    }
  } else if (L.cur < 0) {
    mcNum dv = mode == 1 ? -gp[6] : mode == 2 ? -gp[4] : 0;
    df = K / R * (dv - K);
  }
  mcNum slope;
  drag(m, i, w, &slope);
  return df - slope - (L.z >= 0 ? dp[6] : 0);
}


//---------------------------------- descriptor ----------------------------------------------------

static const char* const g_attributes[] = {
  "resistance", "motorconst", "nominal", "inductance", "thermal", "saturation", "cogging",
  "lugre", "damping", "armature", "input", "controller", NULL
};

static const mcpActuator g_dcmotor = {
  .hdr = MCP_HEADER(mcpKIND_ACTUATOR, mcpActuator, "dcmotor", "1.0.0",
                    "DC motor: current, thermal, LuGre, cogging and PID controller layers", -1),
  .element = "dcmotor",
  .attributes = g_attributes,
  .compile = dcm_compile,
  .act_dot = actDot,
  .force = force,
  .integrate_act = integrateAct,
  .dforce_dvel = dforceDvel,
};

static const mcpHeader* const g_plugins[] = {&g_dcmotor.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("actuator-dcmotor", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
