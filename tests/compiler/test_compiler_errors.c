// Tests of compiler error messages: every message is `file:line: message` and names the problem.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

// load xml, expect failure with the given line and every key word in the message
static void expectError(const char* xml, int line, const char* k1, const char* k2) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  if (m) {
    mc_deleteModel(m);
  }
  cr_assert_null(m, "expected an error (%s) for:\n%s", k1, xml);
  char prefix[32];
  snprintf(prefix, sizeof(prefix), "string:%d: ", line);
  cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "expected prefix '%s', got '%s'", prefix,
            err);
  cr_assert(strstr(err, k1), "expected '%s' in '%s'", k1, err);
  if (k2) {
    cr_assert(strstr(err, k2), "expected '%s' in '%s'", k2, err);
  }
}

// a minimal model with one moving body, with extra text in the body and after the worldbody
#define BODY(inner, after)                                                                         \
  "<mujoco>\n<worldbody>\n<body name=\"b\">\n<joint name=\"j\"/>\n<geom size=\"0.1\"/>\n" inner  \
  "</body>\n</worldbody>\n" after "</mujoco>\n"

Test(compiler_errors, unknown_element_and_attribute) {
  expectError(BODY("<gem/>\n", ""), 6, "unknown element", "<gem>");
  expectError(BODY("<geom size=\"1\" colour=\"red\"/>\n", ""), 6, "unknown attribute", "colour");
  expectError("<mujoco>\n<wrldbody/>\n</mujoco>", 2, "unknown element", "wrldbody");
  expectError("<model/>", 1, "root element", "mujoco");
}

Test(compiler_errors, malformed_numbers_and_counts) {
  expectError(BODY("<geom size=\"0.1 abc\"/>\n", ""), 6, "malformed number", "abc");
  expectError(BODY("<site pos=\"1 2\"/>\n", ""), 6, "'pos'", "expects 3 values, got 2");
  expectError(BODY("<geom size=\"1 2 3 4\"/>\n", ""), 6, "'size'", "got 4");
  expectError("<mujoco>\n<option iterations=\"1.5\"/>\n</mujoco>", 2, "malformed integer", NULL);
}

Test(compiler_errors, unknown_enum_values) {
  expectError(BODY("<geom type=\"sphre\" size=\"1\"/>\n", ""), 6, "invalid value 'sphre'", "type");
  expectError("<mujoco>\n<option cone=\"round\"/>\n</mujoco>", 2, "'round'", "cone");
  expectError("<mujoco>\n<compiler angle=\"grad\"/>\n</mujoco>", 2, "'grad'", "angle");
  expectError("<mujoco>\n<option>\n<flag contact=\"off\"/>\n</option>\n</mujoco>", 3, "'off'",
              NULL);
  expectError("<mujoco>\n<option>\n<flag teleport=\"enable\"/>\n</option>\n</mujoco>", 3,
              "unknown attribute", "teleport");
}

Test(compiler_errors, missing_references) {
  expectError(BODY("", "<actuator>\n<motor joint=\"nope\"/>\n</actuator>\n"), 9, "unknown joint",
              "'nope'");
  expectError(BODY("", "<sensor>\n<jointpos joint=\"j\"/>\n<touch site=\"s\"/>\n</sensor>\n"), 10,
              "unknown site", "'s'");
  expectError(BODY("", "<actuator>\n<motor/>\n</actuator>\n"), 9, "no transmission", NULL);
  expectError(BODY("<geom class=\"nope\" size=\"1\"/>\n", ""), 6, "unknown default class",
              "'nope'");
  expectError(BODY("", "<equality>\n<connect body1=\"zz\" anchor=\"0 0 0\"/>\n</equality>\n"), 9,
              "unknown body", "'zz'");
  expectError(BODY("", "<tendon>\n<fixed>\n<joint joint=\"q\"/>\n</fixed>\n</tendon>\n"), 10,
              "unknown joint", "'q'");
}

Test(compiler_errors, duplicate_names) {
  expectError(BODY("<joint name=\"j\"/>\n", ""), 6, "duplicate joint name", "'j'");
  expectError(BODY("<body name=\"b\"/>\n", ""), 6, "duplicate body name", "'b'");
  expectError("<mujoco>\n<default>\n<default class=\"x\"/>\n<default class=\"x\"/>\n</default>\n"
              "</mujoco>", 4, "duplicate default class", "'x'");
}

Test(compiler_errors, mass_and_inertia) {
  expectError("<mujoco>\n<worldbody>\n<body name=\"light\">\n<joint/>\n</body>\n</worldbody>\n"
              "</mujoco>", 3, "mass and inertia", "boundmass");
  expectError("<mujoco>\n<worldbody>\n<body name=\"p\">\n<joint/>\n"
              "<inertial mass=\"1\" diaginertia=\"1 1 0\"/>\n</body>\n</worldbody>\n</mujoco>", 3,
              "mass and inertia", "'p'");
  expectError("<mujoco>\n<worldbody>\n<body name=\"t\">\n<joint/>\n"
              "<inertial mass=\"1\" diaginertia=\"1 1 3\"/>\n</body>\n</worldbody>\n</mujoco>", 3,
              "triangle inequality", "balanceinertia");
  expectError("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<inertial mass=\"1\"/>\n</body>\n"
              "</worldbody>\n</mujoco>", 5, "diaginertia", NULL);

  // the fixes named by the messages work
  char err[512];
  mcModel* m = mc_loadXMLString("<mujoco><compiler boundmass=\"0.1\" boundinertia=\"0.01\"/>"
                                "<worldbody><body><joint/></body></worldbody></mujoco>", NULL, err,
                                sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->body_mass[1], 0.1);
  mc_deleteModel(m);
  m = mc_loadXMLString("<mujoco><compiler balanceinertia=\"true\"/><worldbody><body><joint/>"
                       "<inertial mass=\"1\" diaginertia=\"1 1 3\"/></body></worldbody></mujoco>",
                       NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_float_eq(m->body_inertia[3], 5.0 / 3, 1e-12);
  mc_deleteModel(m);
}

Test(compiler_errors, quaternions_and_axes) {
  expectError(BODY("<geom size=\"1\" quat=\"0 0 0 0\"/>\n", ""), 6, "zero quaternion", NULL);
  expectError(BODY("<joint axis=\"0 0 0\"/>\n", ""), 6, "axis of zero length", NULL);
  expectError(BODY("<site zaxis=\"0 0 0\"/>\n", ""), 6, "axis of zero length", "zaxis");
  expectError(BODY("<site quat=\"1 0 0 0\" euler=\"0 0 0\"/>\n", ""), 6, "multiple orientation",
              NULL);

  // an unnormalized quaternion is normalized
  char err[512];
  mcModel* m = mc_loadXMLString("<mujoco><worldbody><body quat=\"0 3 0 0\"><geom size=\"1\"/>"
                                "</body></worldbody></mujoco>", NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->body_quat[5], 1);
  mc_deleteModel(m);
}

Test(compiler_errors, geometry_and_limits) {
  expectError(BODY("<geom type=\"box\" size=\"1 1\"/>\n", ""), 6, "size 2", "positive");
  expectError(BODY("<joint range=\"1 -1\"/>\n", ""), 6, "invalid joint range", NULL);
  expectError(BODY("<body>\n<freejoint/>\n</body>\n", ""), 7, "free joint", "top-level");
  expectError("<mujoco>\n<worldbody>\n<joint/>\n</worldbody>\n</mujoco>", 3, "not allowed",
              "worldbody");
  expectError(BODY("", "<actuator>\n<motor joint=\"j\" ctrlrange=\"1 -1\"/>\n</actuator>\n"), 9,
              "invalid ctrlrange", NULL);
  expectError("<mujoco>\n<compiler coordinate=\"global\"/>\n</mujoco>", 2, "global", NULL);
}

Test(compiler_errors, keyframe_sizes) {
  expectError(BODY("", "<keyframe>\n<key qpos=\"1 2\"/>\n</keyframe>\n"), 9, "'qpos'",
              "expected 1");
  expectError(BODY("", "<keyframe>\n<key ctrl=\"1\"/>\n</keyframe>\n"), 9, "'ctrl'",
              "expected 0");
}

Test(compiler_errors, plugins_and_unsupported) {
  expectError("<mujoco>\n<option integrator=\"acme.warp\"/>\n</mujoco>", 2,
              "unknown integrator 'acme.warp'", "available:");
  expectError("<mujoco>\n<option solver=\"acme.magic\"/>\n</mujoco>", 2,
              "unknown solver 'acme.magic'", "available:");
  expectError("<mujoco>\n<extension>\n<plugin plugin=\"acme.none\"/>\n</extension>\n</mujoco>", 3,
              "unknown plugin 'acme.none'", NULL);
  expectError(BODY("", "<actuator>\n<warpdrive joint=\"j\"/>\n</actuator>\n"), 9,
              "<warpdrive>", "actuator");
  expectError(BODY("<composite/>\n", ""), 6, "out of Moduco's scope", "composite");

  // built-in solver names load even without a solver plugin
  char err[512];
  mcModel* m = mc_loadXMLString("<mujoco><option solver=\"cg\"/></mujoco>", NULL, err,
                                sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->opt.solver, mcSOL_CG);
  mc_deleteModel(m);
}

Test(compiler_errors, file_names_in_messages) {
  char dir[] = "/tmp/moduco-err-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char main[256], part[256];
  snprintf(main, sizeof(main), "%s/main.xml", dir);
  snprintf(part, sizeof(part), "%s/part.xml", dir);
  FILE* f = fopen(part, "w");
  fputs("<mujoco>\n\n<body>\n<geom size=\"x\"/>\n</body>\n</mujoco>\n", f);
  fclose(f);
  f = fopen(main, "w");
  fputs("<mujoco>\n<worldbody>\n<include file=\"part.xml\"/>\n</worldbody>\n</mujoco>\n", f);
  fclose(f);
  char err[1024], prefix[300];
  cr_assert_null(mc_loadXML(main, err, sizeof(err)));
  snprintf(prefix, sizeof(prefix), "%s:4: ", part);
  cr_assert(strstr(err, prefix) == err, "got '%s'", err);
  cr_assert(strstr(err, "malformed number"), "got '%s'", err);
}
