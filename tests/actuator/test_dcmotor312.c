// dcmotor's second dialect, MuJoCo 3.12's input signatures (input="pos" | "vel" | "ff": torque-space
// gains, back-EMF compensation), against MuJoCo 3.14.0 (tests/actuator/dcmotor_ref.mjs): joint
// torque at a keyframe state (activations included) and the state after one step, under Euler,
// implicit and implicitfast; and the signatures Moduco refuses (several controls, none).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <moduco/moduco.h>

#include "testutil.h"


// one case: dcmotor attributes, the joint (hinge or slide), the keyframe's qpos qvel ctrl act
typedef struct {
  const char* attrs;
  const char* joint;
  const char* key;
} Case312;

static const Case312 g_cases[] = {
  {"input='pos' controller='5 0 0.1'", "hinge", "qpos='0.3' qvel='0.7' ctrl='1'"},
  {"input='pos' controller='5 2 0.1 0 0.04'", "hinge", "qpos='0.3' qvel='-0.7' ctrl='1' act='0.05'"},
  {"input='vel' controller='5 0 0.1'", "hinge", "qpos='0.3' qvel='0.7' ctrl='2'"},
  {"input='ff' controller='5 0 0.1 40'", "hinge", "qpos='-0.2' qvel='0.7' ctrl='1' act='0.2'"},
  {"input='pos' controller='5 0 0.1 0 0 2'", "hinge", "qpos='0.3' qvel='0.7' ctrl='1'"},
  {"input='pos' controller='5 0 0.1' saturation='1'", "hinge", "qpos='0.3' qvel='0.7' ctrl='1'"},
  {"input='pos' controller='5 0 0.1' saturation='1'", "hinge", "qpos='0.9' qvel='0.7' ctrl='1'"},
  {"input='pos' controller='5 0 0.1' inductance='0 0.02'", "hinge",
   "qpos='0.3' qvel='0.7' ctrl='1' act='3'"},
  {"input='ff' controller='0 0 0.2' inductance='0.01' saturation='0 0 50'", "hinge",
   "qpos='0.3' qvel='0.7' ctrl='1.5' act='-1'"},
  {"input='pos' controller='5 0 0.1' thermal='2 3 0 0.004 20 30'", "hinge",
   "qpos='0.3' qvel='0.7' ctrl='1' act='5'"},
  {"input='vel' controller='3 0 0.4' damping='0.01 0.002 0.0003' gear='3' cogging='0.05 4 0.3'",
   "hinge", "qpos='0.3' qvel='0.7' ctrl='-1'"},
  {"input='pos' controller='8 0 0.3' lugre='1000 2 0.1 0.15 0.05'", "hinge",
   "qpos='0.3' qvel='0.02' ctrl='1' act='0.0001'"},
  {"input='pos' controller='4 1 0.2 2 0.5 30' gear='-2' ctrlrange='-0.5 0.5' armature='0.001'",
   "slide", "qpos='0.1' qvel='0.4' ctrl='0.8' act='0.1 0.3'"},
  {"input='vel' controller='2 0 0.5 0 0 10' inductance='0.004' thermal='2 3 0 0.004 20 30' "
   "saturation='0 4'", "hinge", "qpos='0.3' qvel='0.7' ctrl='1' act='6 2'"},
  {"input='pos' controller='5 3 0.1 1 0.2 20' inductance='0 0.03' saturation='0.5 0 30' "
   "thermal='0 2 4 0.0039'", "hinge", "qpos='0.3' qvel='0.7' ctrl='1' act='0.5 0.1 4 1'"},
  {"input=' voltage '", "hinge", "qpos='0.3' qvel='0.7' ctrl='3'"},
};
#define NCASE ((int)(sizeof(g_cases) / sizeof(g_cases[0])))
#define NINT 3

static const char* const g_integrators[NINT] = {"Euler", "implicit", "implicitfast"};


static char* caseXML(const Case312* c, const char* integrator) {
  char* xml = malloc(2048);
  cr_assert(xml);
  snprintf(xml, 2048,
           "<mujoco><option timestep='0.01' integrator='%s'/><worldbody><body>"
           "<joint name='j' type='%s' axis='0 0 1'/><geom type='sphere' size='.1' mass='1'/>"
           "</body></worldbody><actuator><dcmotor joint='j' resistance='2' motorconst='0.1' %s/>"
           "</actuator><keyframe><key %s/></keyframe></mujoco>",
           integrator, c->joint, c->attrs, c->key);
  return xml;
}


static double item(const cJSON* e, const char* field, int k) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(e, field);
  cr_assert(cJSON_IsArray(a) && k < cJSON_GetArraySize(a), "3.14's %s has no item %d", field, k);
  return cJSON_GetArrayItem(a, k)->valuedouble;
}


static double relErr(double a, double b) {
  return fabs(a - b) / fmax(1, fabs(b));
}


Test(dcmotor312, signatures_against_mujoco314) {
  TU_MJS314_REQUIRE();
  char* xmls[NCASE * NINT];
  for (int k = 0; k < NCASE * NINT; k++) {
    xmls[k] = caseXML(&g_cases[k / NINT], g_integrators[k % NINT]);
  }
  char err[512] = "";
  cJSON* ref = tu_mjs3Models("tests/actuator/dcmotor_ref.mjs", (const char* const*)xmls,
                             NCASE * NINT, err, sizeof(err));
  cr_assert(ref, "MuJoCo 3.14.0 reference: %s", err);
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(ref, "models");
  double worst = 0;
  for (int k = 0; k < NCASE * NINT; k++) {
    const Case312* c = &g_cases[k / NINT];
    const cJSON* e = cJSON_GetArrayItem(models, k);
    cr_assert(!cJSON_GetObjectItemCaseSensitive(e, "error"), "3.14 refused %s: %s", c->attrs,
              cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message")));
    char cerr[512] = "";
    mcModel* m = mc_loadXMLString(xmls[k], NULL, cerr, sizeof(cerr));
    cr_assert(m, "%s: %s", c->attrs, cerr);
    mcData* d = mc_makeData(m);
    mc_resetDataKeyframe(m, d, 0);
    mc_forward(m, d);

    // the joint torque (3.14 keeps B2, B3 in the passive force, Moduco in the actuator's)
    double torque = d->qfrc_actuator[0] + d->qfrc_passive[0];
    double rtorque = item(e, "qfrc_actuator", 0) + item(e, "qfrc_passive", 0);
    double et = relErr(torque, rtorque);
    mc_step(m, d);
    double ev = relErr(d->qvel[0], item(e, "qvel", 0)), ea = 0;
    char acts[256] = "";
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "act")), m->na,
                 "%s: na %d", c->attrs, m->na);
    for (int a = 0; a < m->na; a++) {
      ea = fmax(ea, relErr(d->act[a], item(e, "act", a)));
      size_t len = strlen(acts);
      snprintf(acts + len, sizeof(acts) - len, " %.12g/%.12g", d->act[a], item(e, "act", a));
    }
    cr_expect(et < 1e-12 && ev < 1e-12 && ea < 1e-12,
              "%s (%s): torque %.17g vs 3.14 %.17g, qvel %.3g, act %.3g (act/3.14's:%s)",
              c->attrs, g_integrators[k % NINT], torque, rtorque, ev, ea, acts);
    worst = fmax(worst, fmax(et, fmax(ev, ea)));
    mc_deleteData(d);
    mc_deleteModel(m);
    free(xmls[k]);
  }
  fprintf(stderr, "dcmotor 3.12 signatures: %d cases x %d integrators, worst relative difference "
          "from MuJoCo 3.14 %.3g (torque, qvel, act)\n", NCASE, NINT, worst);
  cJSON_Delete(ref);
}


// ki needs the pos input (as 3.14 says); several controls or none: refused with the line
Test(dcmotor312, refused_signatures_name_the_attribute) {
  static const char* const bad[][2] = {
    {"input='pos vel ff' controller='5 0 0.1'", "one control"},
    {"input='none'", "'none'"},
    {"input='vel' controller='5 2 0.1'", "ki needs the pos input"},
    {"input='ff' controller='0 1'", "ki needs the pos input"},
    {"input='torque'", "not one of"},
  };
  for (int k = 0; k < (int)(sizeof(bad) / sizeof(bad[0])); k++) {
    Case312 c = {bad[k][0], "hinge", "qpos='0'"};
    char* xml = caseXML(&c, "Euler");
    char err[512] = "";
    mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
    cr_expect_null(m, "accepted %s", bad[k][0]);
    cr_expect(strstr(err, ":1:") && (strstr(err, "'input'") || strstr(err, "'controller'")) &&
              strstr(err, bad[k][1]), "%s: unclear error: %s", bad[k][0], err);
    mc_deleteModel(m);
    free(xml);
  }
}
