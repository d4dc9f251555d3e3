// Materials: the colour of a geom's material reaches the model (geom_matrgba) through the
// material's own rgba, its class and the main class; bad materials are refused with file:line.
// The expected colours are those MuJoCo 3.14 gives the same model (mat_rgba[geom_matid], checked
// with the tests/mjs3 harness when this was written).
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

static const char* kMaterials =
    "<mujoco>\n"
    "<default>\n"
    "  <material rgba=\"0 1 0 1\"/>\n"
    "  <default class=\"blue\">\n"
    "    <material rgba=\"0 0 1 0.5\" specular=\"0.3\"/>\n"
    "    <geom material=\"red\"/>\n"
    "  </default>\n"
    "</default>\n"
    "<asset>\n"
    "  <texture name=\"grid\" type=\"2d\" builtin=\"checker\" width=\"8\" height=\"8\"/>\n"
    "  <material name=\"red\" rgba=\"1 0 0 1\" texture=\"grid\" texrepeat=\"2 2\"/>\n"
    "  <material name=\"classed\" class=\"blue\"/>\n"
    "  <material name=\"classed_own\" class=\"blue\" rgba=\"0.2 0.3 0.4 1\"/>\n"
    "  <material name=\"plain\"/>\n"
    "</asset>\n"
    "<worldbody>\n"
    "  <geom name=\"none\" type=\"plane\" size=\"1 1 1\"/>\n"
    "  <body name=\"b\">\n"
    "    <freejoint/>\n"
    "    <geom name=\"red\" size=\"0.1\" material=\"red\"/>\n"
    "    <geom name=\"classed\" size=\"0.1\" material=\"classed\" rgba=\"1 1 0 1\"/>\n"
    "    <geom name=\"classed_own\" size=\"0.1\" material=\"classed_own\"/>\n"
    "    <geom name=\"plain\" size=\"0.1\" material=\"plain\"/>\n"
    "    <geom name=\"byclass\" class=\"blue\" size=\"0.1\"/>\n"
    "  </body>\n"
    "</worldbody>\n"
    "</mujoco>\n";

static void expectRgba(const mcModel* m, const char* geom, float r, float g, float b, float a) {
  int id = mc_name2id(m, mcOBJ_GEOM, geom);
  cr_assert_geq(id, 0, "geom %s", geom);
  const float* c = m->geom_matrgba + 4 * id;
  cr_expect(c[0] == r && c[1] == g && c[2] == b && c[3] == a,
            "geom %s: material rgba %g %g %g %g, expected %g %g %g %g", geom, c[0], c[1], c[2],
            c[3], r, g, b, a);
}

Test(material, colour_from_material_class_and_main_class) {
  char err[512] = "";
  mcModel* m = mc_loadXMLString(kMaterials, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  expectRgba(m, "none", -1, -1, -1, -1);          // no material
  expectRgba(m, "red", 1, 0, 0, 1);               // the material's rgba
  expectRgba(m, "classed", 0, 0, 1, 0.5f);        // from its class
  expectRgba(m, "classed_own", 0.2f, 0.3f, 0.4f, 1);
  expectRgba(m, "plain", 0, 1, 0, 1);             // from the main class
  expectRgba(m, "byclass", 1, 0, 0, 1);           // material named by the geom's class
  // the geom's own rgba is kept as written (the renderer chooses between the two)
  int id = mc_name2id(m, mcOBJ_GEOM, "classed");
  cr_expect(m->geom_rgba[4 * id] == 1 && m->geom_rgba[4 * id + 2] == 0);
  mc_deleteModel(m);
}

// load xml, expect failure at the given line with the key word in the message
static void expectError(const char* xml, int line, const char* key) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  if (m) {
    mc_deleteModel(m);
  }
  cr_assert_null(m, "expected an error (%s)", key);
  char prefix[32];
  snprintf(prefix, sizeof(prefix), "string:%d: ", line);
  cr_expect(strncmp(err, prefix, strlen(prefix)) == 0, "expected prefix '%s', got '%s'", prefix,
            err);
  cr_expect(strstr(err, key), "expected '%s' in '%s'", key, err);
}

Test(material, bad_materials_refused_with_line) {
  expectError("<mujoco>\n<worldbody>\n<geom size=\"1\" material=\"nope\"/>\n</worldbody>\n"
              "</mujoco>\n", 3, "unknown material 'nope'");
  expectError("<mujoco>\n<asset>\n<material name=\"a\"/>\n<material name=\"a\"/>\n</asset>\n"
              "</mujoco>\n", 4, "duplicate material name 'a'");
  expectError("<mujoco>\n<asset>\n<material rgba=\"1 0 0 1\"/>\n</asset>\n</mujoco>\n", 3,
              "'name'");
  expectError("<mujoco>\n<asset>\n<material name=\"a\" rgba=\"1 0 0\"/>\n</asset>\n</mujoco>\n",
              3, "rgba");
  expectError("<mujoco>\n<asset>\n<material name=\"a\" shininess=\"shiny\"/>\n</asset>\n"
              "</mujoco>\n", 3, "shiny");
  expectError("<mujoco>\n<asset>\n<material name=\"a\" glow=\"1\"/>\n</asset>\n</mujoco>\n", 3,
              "glow");
  expectError("<mujoco>\n<asset>\n<material name=\"a\" class=\"nope\"/>\n</asset>\n</mujoco>\n", 3,
              "nope");
}
