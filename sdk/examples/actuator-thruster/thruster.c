// Example third-party actuator "example.thruster", MJCF element <thruster>: a propeller whose
// thrust follows the control through a first-order spin-up lag.
//
//   <thruster joint="..." thrust="20" spinup="0.05" ctrlrange="0 1"/>
//
//   force = thrust * s,   s' = (u - s) / spinup   (s = u when spinup = 0, no state)
//
// The two parameters are configuration keys (ABI 1.3): the core parses and range-checks them
// (errors as file:line naming the key), stores them per actuator in mcModel.plugin_config, and
// the callbacks read them with host->config. 'spinup' is also listed in 'attributes' so compile
// sees it and decides whether the actuator has an activation state. A compile error is written
// without a location: the core prefixes the file and line of the element.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>


static const mcpConfigKey g_config[] = {
  {"thrust", mcpCONFIG_REAL, 1, NULL, 0, 1e30, NULL, "thrust at full throttle (N), required"},
  {"spinup", mcpCONFIG_REAL, 1, "0", 0, 1e30, NULL, "spin-up time constant (s); 0: no lag"},
};

static const mcpPluginExt g_ext = {2, g_config, NULL, NULL, NULL};


static int compile(const mcpHost* host, const mcpAttributes* attr, mcpActuatorSpec* spec,
                   char* error, int error_sz) {
  (void)host;
  mcNum spinup = 0;
  for (int i = 0; i < attr->n; i++) {
    if (!strcmp(attr->key[i], "spinup")) {
      spinup = strtod(attr->value[i], NULL);   // already checked by the core (a number >= 0)
    }
  }
  if (!isfinite(spinup)) {
    snprintf(error, (size_t)error_sz, "attribute 'spinup' must be finite");
    return 1;
  }
  spec->gaintype = mcGAIN_USER;
  spec->dyntype = spinup > 0 ? mcDYN_USER : mcDYN_NONE;
  spec->biastype = mcBIAS_NONE;
  spec->actnum = spinup > 0 ? 1 : 0;
  return 0;
}


// a configuration value of actuator i
static mcNum config(const mcpHost* host, const mcModel* m, int i, const char* key) {
  return host->config(m, m->actuator_plugin[i], key, NULL)[0];
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
  int adr = m->actuator_actadr[i];
  d->act_dot[adr] = (control(m, d, i) - d->act[adr]) / config(host, m, i, "spinup");
}


static mcNum force(const mcpHost* host, const mcModel* m, mcData* d, int i) {
  int adr = m->actuator_actadr[i];
  mcNum s = adr >= 0 && m->actuator_actnum[i] ? d->act[adr] : control(m, d, i);
  return config(host, m, i, "thrust") * s;
}


// spin-up integrated exactly over h (stable for any spinup)
static void integrateAct(const mcpHost* host, const mcModel* m, mcData* d, int i,
                         const mcNum* act_dot, mcNum h) {
  int adr = m->actuator_actadr[i];
  mcNum tau = config(host, m, i, "spinup");
  d->act[adr] += act_dot[adr] * tau * -expm1(-h / tau);
}


static const char* const g_attributes[] = {"spinup", NULL};

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
  .ext = &g_ext,
};

static const mcpHeader* const g_plugins[] = {&g_thruster.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("example-thruster", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // host->config needs a host of ABI 1.3 or newer
  if (host->abi_major != MCP_ABI_MAJOR || host->abi_minor < 3 ||
      host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
