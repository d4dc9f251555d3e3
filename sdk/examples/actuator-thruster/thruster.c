// Example third-party actuator "example.thruster", MJCF element <thruster>: a propeller whose
// thrust follows the control through a first-order spin-up lag.
//
//   <thruster joint="..." thrust="20" spinup="0.05" ctrlrange="0 1"/>
//
//   force = thrust * s,   s' = (u - s) / spinup   (s = u when spinup = 0, no state)
//
// Storage: gainprm[0] = thrust, dynprm[0] = spinup. It shows an actuator plugin's own attributes
// (parsed and checked in compile, errors as file:line: naming the attribute), its activation
// state, and the host ABI check; the transmission attributes are the core's.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>


// one nonnegative number of attribute key into out (unchanged when absent); 0 on success
static int readNonneg(const mcpAttributes* a, const char* key, mcNum* out, char* error,
                      int error_sz) {
  for (int i = 0; i < a->n; i++) {
    if (strcmp(a->key[i], key)) {
      continue;
    }
    char* end;
    double v = strtod(a->value[i], &end);
    while (*end == ' ') {
      end++;
    }
    if (end == a->value[i] || *end || !isfinite(v) || v < 0) {
      snprintf(error, (size_t)error_sz, "%s:%d: attribute '%s': '%s' is not a nonnegative number",
               a->file, a->line, key, a->value[i]);
      return 1;
    }
    *out = v;
  }
  return 0;
}


static int compile(const mcpHost* host, const mcpAttributes* attr, mcpActuatorSpec* spec,
                   char* error, int error_sz) {
  (void)host;
  mcNum thrust = -1, spinup = 0;
  if (readNonneg(attr, "thrust", &thrust, error, error_sz) ||
      readNonneg(attr, "spinup", &spinup, error, error_sz)) {
    return 1;
  }
  if (!(thrust > 0)) {
    snprintf(error, (size_t)error_sz, "%s:%d: attribute 'thrust' is required and must be positive",
             attr->file, attr->line);
    return 1;
  }
  memset(spec->gainprm, 0, sizeof(spec->gainprm));
  memset(spec->dynprm, 0, sizeof(spec->dynprm));
  memset(spec->biasprm, 0, sizeof(spec->biasprm));
  spec->gainprm[0] = thrust;
  spec->dynprm[0] = spinup;
  spec->gaintype = mcGAIN_USER;
  spec->dyntype = spinup > 0 ? mcDYN_USER : mcDYN_NONE;
  spec->biastype = mcBIAS_NONE;
  spec->actnum = spinup > 0 ? 1 : 0;
  return 0;
}


// the control, clamped to ctrlrange
static mcNum control(const mcModel* m, const mcData* d, int i) {
  mcNum u = d->ctrl[i];
  if (m->actuator_ctrllimited[i]) {
    u = fmin(fmax(u, m->actuator_ctrlrange[2 * i]), m->actuator_ctrlrange[2 * i + 1]);
  }
  return u;
}


static void actDot(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  (void)host;
  int adr = m->actuator_actadr[i];
  mcNum tau = m->actuator_dynprm[mcNDYN * i];
  d->act_dot[adr] = (control(m, d, i) - d->act[adr]) / tau;
}


static mcNum force(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  (void)host;
  int adr = m->actuator_actadr[i];
  mcNum s = adr >= 0 && m->actuator_actnum[i] ? d->act[adr] : control(m, d, i);
  return m->actuator_gainprm[mcNGAIN * i] * s;
}


// spin-up integrated exactly over h (stable for any spinup)
static void integrateAct(const mcpHost* host, const mcModel* m, mcData* d, int i,
                         const mcNum* act_dot, mcNum h) {
  (void)host;
  int adr = m->actuator_actadr[i];
  mcNum tau = m->actuator_dynprm[mcNDYN * i];
  d->act[adr] += act_dot[adr] * tau * -expm1(-h / tau);
}


static const char* const g_attributes[] = {"thrust", "spinup", NULL};

static const mcpActuator g_thruster = {
  .hdr = MCP_HEADER(mcpKIND_ACTUATOR, mcpActuator, "example.thruster", "1.0.0",
                    "example: propeller thrust with a first-order spin-up", -1),
  .element = "thruster",
  .attributes = g_attributes,
  .compile = compile,
  .act_dot = actDot,
  .force = force,
  .integrate_act = integrateAct,
  .dforce_dvel = NULL,
};

static const mcpHeader* const g_plugins[] = {&g_thruster.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("example-thruster", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
