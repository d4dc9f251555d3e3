// The MuJoCo 3.x contact sensor (<contact>) against MuJoCo 3.14 (tests/sensor/contact_ref.mjs):
// every matching mode, data field and reduction, on the pyramidal and the elliptic cone, at a
// keyframe and after 50 steps; and the compiler's refusals with file and line.
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "contact_ref.h"

#define DIR MODUCO_SOURCE_DIR "/tests/sensor/models/contact"

// every sensor's block of sensordata, named in the failure message
static void compareSensors(const mrCase* k, const char* group, double tol) {
  const mcModel* m = k->m;
  cr_assert_eq(m->nsensordata, (int)cJSON_GetObjectItemCaseSensitive(k->ref,
               "nsensordata")->valuedouble, "nsensordata differs");
  cr_compareContacts(k, group, tol);
  const cJSON* all = mr_field(k, group, "sensordata");
  for (int i = 0; i < m->nsensor; i++) {
    char what[160];
    snprintf(what, sizeof(what), "%s sensor '%s'", group, mc_id2name(m, mcOBJ_SENSOR, i));
    int adr = m->sensor_adr[i], dim = m->sensor_dim[i];
    for (int j = 0; j < dim; j++) {
      double b = cJSON_GetArrayItem(all, adr + j)->valuedouble;
      double a = k->d->sensordata[adr + j];
      double e = (a - b) / (b > 1 || b < -1 ? (b < 0 ? -b : b) : 1);
      cr_assert(e <= tol && e >= -tol, "%s [%d]: Moduco %.12g, MuJoCo 3.14 %.12g", what, j, a, b);
    }
  }
}

static void checkModel(const char* file) {
  mrCase k;
  cr_open(&k, DIR, file, 50);
  int nsens = cJSON_GetArraySize(mr_field(&k, NULL, "sensor_dim"));
  cr_assert_eq(k.m->nsensor, nsens);
  for (int i = 0; i < nsens; i++) {
    cr_assert_eq(k.m->sensor_dim[i],
                 (int)cJSON_GetArrayItem(mr_field(&k, NULL, "sensor_dim"), i)->valuedouble,
                 "sensor %d dimension", i);
  }
  compareSensors(&k, "forward", 1e-6);
  mr_step(&k, 50);
  compareSensors(&k, "stepped", 1e-5);
  mr_close(&k);
}

Test(contact_sensor, matching_data_and_reductions_pyramidal) {
  checkModel("match.xml");
}

Test(contact_sensor, elliptic_cone_gap_and_margin_contacts) {
  checkModel("elliptic.xml");
}

Test(contact_sensor, contact_without_force) {
  checkModel("zeroforce.xml");
}

// a refused sensor: the error names the file, line 11 (the <contact> element) and the cause
static void refused(const char* file, const char* cause) {
  char err[1024], where[256];
  cr_loadError(DIR, file, err, sizeof(err));
  snprintf(where, sizeof(where), "%s:11", file);
  cr_assert(strstr(err, where), "error of %s does not name %s: %s", file, where, err);
  cr_assert(strstr(err, cause), "error of %s does not say '%s': %s", file, cause, err);
}

Test(contact_sensor, refusals_name_file_line_and_cause) {
  refused("bad_order.xml", "data field 'found' is out of order");
  refused("bad_repeat.xml", "data field 'found' is repeated");
  refused("bad_field.xml", "unknown data field 'speed'");
  refused("bad_two.xml", "attributes 'geom1' and 'body1' are both given");
  refused("bad_sitegeom.xml", "attributes 'subtree1' and 'site' are both given");
  refused("bad_num.xml", "'num' must be positive");
  refused("bad_reduce.xml", "closest");
  refused("bad_unknown.xml", "nosuch");
  refused("bad_attr.xml", "geom");
}
