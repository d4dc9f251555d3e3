// Example third-party sensor "example.speedometer", MJCF element <speedometer>: the linear
// velocity of a body or site frame origin, as its magnitude or along the frame's x axis.
//
//   <speedometer objtype="body" objname="pod" mode="speed"/>     |v|        (positive)
//   <speedometer objtype="site" objname="nose" mode="forward"/>  v . x_axis (real)
//
// The mode is kept in the sensor's datatype (positive: speed, real: forward), so the sensor needs
// no storage of its own. Computed at the velocity stage from cvel, transported from the subtree
// center of mass to the frame origin: v = v_com + w x (p - c). compile is called once per
// element, with the model filled up to the sensors; errors are written without a location (the
// core prefixes the file and line).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/mcplugin.h>


static int compile(const mcpHost* host, const mcModel* m, const mcpAttributes* attr,
                   mcpSensorSpec* spec, char* error, int error_sz) {
  (void)host;
  (void)m;
  const char* mode = "speed";
  for (int i = 0; i < attr->n; i++) {
    if (!strcmp(attr->key[i], "mode")) {
      mode = attr->value[i];
    }
  }
  if (strcmp(mode, "speed") && strcmp(mode, "forward")) {
    snprintf(error, (size_t)error_sz, "attribute 'mode': '%s' is not speed or forward", mode);
    return 1;
  }
  if (spec->objtype != mcOBJ_BODY && spec->objtype != mcOBJ_XBODY &&
      spec->objtype != mcOBJ_SITE) {
    snprintf(error, (size_t)error_sz, "attribute 'objtype' must be body, xbody or site");
    return 1;
  }
  spec->dim = 1;
  spec->needstage = mcSTAGE_VEL;
  spec->datatype = strcmp(mode, "speed") ? mcDATATYPE_REAL : mcDATATYPE_POSITIVE;
  return 0;
}


static void compute(const mcpHost* host, const mcModel* m, mcData* d, int id, mcNum* out) {
  (void)host;
  int oid = m->sensor_objid[id], site = m->sensor_objtype[id] == mcOBJ_SITE;
  int body = site ? m->site_bodyid[oid] : oid;
  const mcNum* p = site ? d->site_xpos + 3 * oid : d->xpos + 3 * oid;
  const mcNum* R = site ? d->site_xmat + 9 * oid : d->xmat + 9 * oid;
  const mcNum* c = d->subtree_com + 3 * m->body_rootid[body];
  const mcNum* w = d->cvel + 6 * body;
  mcNum r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  mcNum v[3] = {w[3] + w[1] * r[2] - w[2] * r[1], w[4] + w[2] * r[0] - w[0] * r[2],
                w[5] + w[0] * r[1] - w[1] * r[0]};
  if (m->sensor_datatype[id] == mcDATATYPE_POSITIVE) {
    out[0] = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  } else {
    out[0] = v[0] * R[0] + v[1] * R[3] + v[2] * R[6];
  }
}


static const char* const g_attributes[] = {"mode", NULL};

static const mcpSensor g_speedometer = {
  .hdr = MCP_HEADER(mcpKIND_SENSOR, mcpSensor, "example.speedometer", "1.0.0",
                    "example: speed of a body or site frame", -1),
  .element = "speedometer",
  .attributes = g_attributes,
  .compile = compile,
  .compute = compute,
};

static const mcpHeader* const g_plugins[] = {&g_speedometer.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("example-speedometer", 1, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  if (host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
