// Issue 21's non-finite family as a sweep: every real-valued MJCF attribute the issue lists, each
// given every spelling of a non-finite or out-of-range number in its first component, must be
// refused at its line with the attribute and the value as written (no attribute is missed when a
// new one is parsed some other way).
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

// one attribute in context: the model is head + element + tail, the element holding "%s" where
// the value goes (line 3 of the model)
typedef struct {
  const char* attr;
  const char* elem;
} Site;

static const Site kSites[] = {
  {"timestep", "<option timestep=\"%s\"/>"},
  {"gravity", "<option gravity=\"%s 0 -9.81\"/>"},
  {"wind", "<option wind=\"%s 0 0\"/>"},
  {"magnetic", "<option magnetic=\"%s 0 0\"/>"},
  {"tolerance", "<option tolerance=\"%s\"/>"},
  {"impratio", "<option impratio=\"%s\"/>"},
  {"settotalmass", "<compiler settotalmass=\"%s\"/>"},
  {"boundmass", "<compiler boundmass=\"%s\"/>"},
  {"pos", "<worldbody><body pos=\"%s 0 0\"><freejoint/><geom size=\"1\"/></body></worldbody>"},
  {"quat", "<worldbody><body quat=\"%s 0 0 0\"><freejoint/><geom size=\"1\"/></body></worldbody>"},
  {"euler", "<worldbody><body euler=\"%s 0 0\"><freejoint/><geom size=\"1\"/></body></worldbody>"},
  {"axisangle", "<worldbody><body axisangle=\"%s 0 1 0\"><geom size=\"1\"/></body></worldbody>"},
  {"zaxis", "<worldbody><body zaxis=\"%s 0 1\"><geom size=\"1\"/></body></worldbody>"},
  {"axis", "<worldbody><body><joint axis=\"%s 1 0\"/><geom size=\"1\"/></body></worldbody>"},
  {"damping", "<worldbody><body><joint damping=\"%s\"/><geom size=\"1\"/></body></worldbody>"},
  {"stiffness", "<worldbody><body><joint stiffness=\"%s\"/><geom size=\"1\"/></body></worldbody>"},
  {"armature", "<worldbody><body><joint armature=\"%s\"/><geom size=\"1\"/></body></worldbody>"},
  {"ref", "<worldbody><body><joint ref=\"%s\"/><geom size=\"1\"/></body></worldbody>"},
  {"frictionloss", "<worldbody><body><joint frictionloss=\"%s\"/><geom size=\"1\"/></body>"
                   "</worldbody>"},
  {"size", "<worldbody><body><freejoint/><geom size=\"%s\"/></body></worldbody>"},
  {"fromto", "<worldbody><body><freejoint/><geom type=\"capsule\" size=\"0.1\" "
             "fromto=\"%s 0 0 1 0 0\"/></body></worldbody>"},
  {"mass", "<worldbody><body><freejoint/><geom size=\"1\" mass=\"%s\"/></body></worldbody>"},
  {"density", "<worldbody><body><freejoint/><geom size=\"1\" density=\"%s\"/></body></worldbody>"},
  {"solref", "<worldbody><body><freejoint/><geom size=\"1\" solref=\"%s 1\"/></body></worldbody>"},
  {"margin", "<worldbody><body><freejoint/><geom size=\"1\" margin=\"%s\"/></body></worldbody>"},
  {"friction", "<worldbody><body><freejoint/><geom size=\"1\" friction=\"%s\"/></body>"
               "</worldbody>"},
  {"diaginertia", "<worldbody><body><freejoint/><inertial pos=\"0 0 0\" mass=\"1\" "
                  "diaginertia=\"%s 1 1\"/></body></worldbody>"},
  {"size", "<worldbody><body><freejoint/><geom size=\"1\"/><site size=\"%s\"/></body>"
           "</worldbody>"},
  {"offset", "<worldbody><replicate count=\"2\" offset=\"%s 0 0\"><body><freejoint/>"
             "<geom size=\"1\"/></body></replicate></worldbody>"},
  {"euler", "<worldbody><replicate count=\"2\" offset=\"1 0 0\" euler=\"%s 0 0\"><body>"
            "<freejoint/><geom size=\"1\"/></body></replicate></worldbody>"},
  {"gear", "<worldbody><body><joint name=\"j\"/><geom size=\"1\"/></body></worldbody>"
           "<actuator><motor joint=\"j\" gear=\"%s\"/></actuator>"},
  {"kp", "<worldbody><body><joint name=\"j\"/><geom size=\"1\"/></body></worldbody>"
         "<actuator><position joint=\"j\" kp=\"%s\"/></actuator>"},
  {"noise", "<worldbody><body><joint name=\"j\"/><geom size=\"1\"/></body></worldbody>"
            "<sensor><jointpos joint=\"j\" noise=\"%s\"/></sensor>"},
  {"time", "<worldbody><body><joint/><geom size=\"1\"/></body></worldbody>"
           "<keyframe><key time=\"%s\"/></keyframe>"},
  {"qpos", "<worldbody><body><joint/><geom size=\"1\"/></body></worldbody>"
           "<keyframe><key qpos=\"%s\"/></keyframe>"},
};

// spellings strtod turns into NaN or infinity, or that overflow, or are not numbers at all
static const char* const kTokens[] = {"nan", "NaN", "-nan", "nan(0x1)", "inf", "-Infinity",
                                      "1e999", "-1e400", "0x1p99999", "1e-999x"};

Test(nonfinite_sweep, every_attribute_every_spelling_refused_at_its_line) {
  int n = 0;
  for (size_t s = 0; s < sizeof(kSites) / sizeof(kSites[0]); s++) {
    for (size_t t = 0; t < sizeof(kTokens) / sizeof(kTokens[0]); t++) {
      char elem[512], xml[1024], err[1024] = "";
      snprintf(elem, sizeof(elem), kSites[s].elem, kTokens[t]);
      snprintf(xml, sizeof(xml), "<mujoco>\n\n%s\n</mujoco>\n", elem);
      mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
      if (m) {
        mc_deleteModel(m);
      }
      cr_expect_null(m, "accepted %s=\"%s\":\n%s", kSites[s].attr, kTokens[t], xml);
      char attr[64];
      snprintf(attr, sizeof(attr), "'%s'", kSites[s].attr);
      cr_expect(!strncmp(err, "string:3: ", 10) && strstr(err, attr) && strstr(err, kTokens[t]),
                "%s=\"%s\": message does not name line 3, the attribute and the value: %s",
                kSites[s].attr, kTokens[t], err);
      n++;
    }
  }
  cr_assert_eq(n, 350);
}


// fuzz find (session 5): a muscle arm whose length-range simulation diverges. Each bad qpos reset
// the state, time included, so the compiler's loop "simulate until t = 10 s" never ended; now
// the divergence is a load error at the actuator
Test(nonfinite_sweep, lengthrange_divergence_refused_not_hung, .timeout = 120) {
  char err[1024] = "";
  mcModel* m = mc_loadXML(MODUCO_HARDENING_INPUTS "/mjcf/lengthrange-diverges-autoreset.xml", err,
                          sizeof(err));
  if (m) {
    mc_deleteModel(m);
  }
  cr_assert_null(m);
  cr_expect(strstr(err, "lengthrange-diverges-autoreset.xml:113: actuator length range: the "
                        "simulation that measures it diverged"), "%s", err);
}
