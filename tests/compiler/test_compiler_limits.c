// Tests of the compiler's and reader's bounds (issue 21): non-finite numbers, physically invalid
// values, nesting depth, model sizes, files that are not regular files. Every refusal is
// `file:line: message` naming the element, the attribute and the value as written.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <moduco/moduco.h>

// load xml, expect failure at line with k1 and k2 (may be NULL) in the message
static void refuse(const char* xml, int line, const char* k1, const char* k2) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  if (m) {
    mc_deleteModel(m);
  }
  cr_assert_null(m, "expected an error (%s) for:\n%s", k1, xml);
  char prefix[32];
  snprintf(prefix, sizeof(prefix), "string:%d: ", line);
  cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "expected '%s', got '%s'", prefix, err);
  cr_assert(strstr(err, k1), "expected '%s' in '%s'", k1, err);
  cr_assert(!k2 || strstr(err, k2), "expected '%s' in '%s'", k2, err);
}

// a body with one geom; attrs go into the element named by where ("body", "geom", ...)
static void refuseIn(const char* elem_with_attr, const char* k1, const char* k2) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco>\n<worldbody>\n<body>\n<freejoint/>\n%s\n<geom size=\"0.1\"/>\n</body>\n"
           "</worldbody>\n</mujoco>\n", elem_with_attr);
  refuse(xml, 5, k1, k2);
}

Test(compiler_limits, non_finite_numbers_named_as_written) {
  static const char* const tokens[] = {"nan", "inf", "-inf", "1e999", "NaN", "-1e400"};
  for (int i = 0; i < 6; i++) {
    char el[256], tok[64];
    snprintf(tok, sizeof(tok), "'%s'", tokens[i]);
    snprintf(el, sizeof(el), "<geom size=\"0.1\" pos=\"0 %s 0\"/>", tokens[i]);
    refuseIn(el, "non-finite number", tok);
    snprintf(el, sizeof(el), "<site quat=\"1 0 %s 0\"/>", tokens[i]);
    refuseIn(el, "attribute 'quat' of <site>", tok);
  }
  refuseIn("<joint axis=\"0 0 nan\"/>", "attribute 'axis' of <joint>", "'nan'");
  refuseIn("<joint damping=\"inf\"/>", "attribute 'damping' of <joint>", "'inf'");
  refuseIn("<geom type=\"capsule\" fromto=\"0 0 0 nan 0 1\" size=\"0.1\"/>",
           "attribute 'fromto' of <geom>", "'nan'");
  refuseIn("<geom size=\"0.1\" mass=\"1e999\"/>", "attribute 'mass' of <geom>", "'1e999'");
  refuseIn("<geom size=\"0.1\" solref=\"0.02 nan\"/>", "attribute 'solref'", "'nan'");
  refuseIn("<geom size=\"0.1\" rgba=\"1e300 1 1 1\"/>", "single-precision", "'rgba'");
  refuse("<mujoco>\n<option timestep=\"nan\"/>\n</mujoco>", 2, "'timestep' of <option>", "nan");
  refuse("<mujoco>\n<option gravity=\"0 0 -1e999\"/>\n</mujoco>", 2, "'gravity'", "-1e999");
  refuse("<mujoco>\n<option wind=\"inf 0 0\"/>\n</mujoco>", 2, "'wind'", "inf");
  refuse("<mujoco>\n<compiler boundmass=\"nan\"/>\n</mujoco>", 2, "'boundmass'", "nan");
  refuse("<mujoco>\n<worldbody>\n<body>\n<freejoint/>\n<geom size=\"1\"/>\n</body>\n"
         "</worldbody>\n<keyframe>\n<key qpos=\"0 0 nan 1 0 0 0\"/>\n</keyframe>\n</mujoco>",
         9, "'qpos' of <key>", "nan");
  refuse("<mujoco>\n<worldbody>\n<body>\n<freejoint/>\n<geom size=\"1\"/>\n</body>\n"
         "</worldbody>\n<keyframe>\n<key time=\"inf\"/>\n</keyframe>\n</mujoco>",
         9, "'time' of <key>", "inf");
}

Test(compiler_limits, physically_invalid_values) {
  refuseIn("<geom size=\"0.1\" mass=\"-1\"/>", "'mass' of <geom> must be nonnegative", "'-1'");
  refuseIn("<geom size=\"0.1\" density=\"-1000\"/>", "'density' of <geom> must be nonnegative",
           "'-1000'");
  refuseIn("<inertial mass=\"-2\" diaginertia=\"1 1 1\"/>", "'mass' of <inertial>", "'-2'");
  refuseIn("<inertial mass=\"2\" diaginertia=\"1 1 -1\"/>", "'diaginertia' of <inertial>",
           "'1 1 -1'");
  refuse("<mujoco>\n<option impratio=\"0\"/>\n</mujoco>", 2, "'impratio' of <option> must be "
         "positive", "'0'");
  refuse("<mujoco>\n<option timestep=\"-0.01\"/>\n</mujoco>", 2, "timestep", "-0.01");
}

Test(compiler_limits, clear_messages) {
  refuse("<mujoco>\n<compiler angle=\"degree\"/>\n<worldbody>\n<body>\n"
         "<joint limited=\"true\" range=\"90 -90\"/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n"
         "</mujoco>", 5, "invalid joint range '90 -90'", NULL);
  char dir[4200] = "<mujoco>\n<compiler meshdir=\"";
  size_t n = strlen(dir);
  memset(dir + n, 'd', 4000);
  snprintf(dir + n + 4000, sizeof(dir) - n - 4000, "\"/>\n</mujoco>");
  refuse(dir, 2, "'meshdir' of <compiler> is 4000 characters long", NULL);
}

// n nested elements (open, then close) inside a <worldbody>
static char* nested(int n, const char* open, const char* close, const char* inner) {
  size_t cap = (size_t)n * (strlen(open) + strlen(close)) + strlen(inner) + 256;
  char* xml = (char*)malloc(cap);
  cr_assert_not_null(xml);
  char* p = xml + sprintf(xml, "<mujoco>\n<worldbody>\n");
  for (int i = 0; i < n; i++) {
    p += sprintf(p, "%s", open);
  }
  p += sprintf(p, "%s", inner);
  for (int i = 0; i < n; i++) {
    p += sprintf(p, "%s", close);
  }
  sprintf(p, "\n</worldbody>\n</mujoco>\n");
  return xml;
}

Test(compiler_limits, nesting_depth) {
  // 997 bodies below <mujoco><worldbody> (999 levels with the geom) compile
  char err[1024] = "";
  char* xml = nested(997, "<body><joint/><geom size=\"0.1\"/>", "</body>", "");
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->nbody, 998);
  mc_deleteModel(m);
  free(xml);

  // deeper: refused with the line, for bodies, frames and unknown elements
  static const char* const open[3] = {"<body>", "<frame>", "<foo>"};
  static const char* const close[3] = {"</body>", "</frame>", "</foo>"};
  for (int k = 0; k < 3; k++) {
    xml = nested(5000, open[k], close[k], "<geom size=\"1\"/>");
    refuse(xml, 3, "nested deeper than 1000", NULL);
    free(xml);
  }
  xml = (char*)malloc(200000);
  char* p = xml + sprintf(xml, "<mujoco>\n<default>\n");
  for (int i = 0; i < 3000; i++) {
    p += sprintf(p, "<default class=\"c%d\">", i);
  }
  for (int i = 0; i < 3000; i++) {
    p += sprintf(p, "</default>");
  }
  sprintf(p, "</default>\n</mujoco>\n");
  refuse(xml, 3, "nested deeper than 1000", NULL);
  free(xml);
}

Test(compiler_limits, sizes_checked_in_64_bits) {
  refuse("<mujoco>\n<sensor>\n<user dim=\"200000000\"/>\n<user dim=\"200000000\"/>\n</sensor>\n"
         "</mujoco>", 4, "total sensor dimension exceeds", NULL);
  refuse("<mujoco>\n<sensor>\n<user dim=\"2147483647\"/>\n<user dim=\"2147483647\"/>\n"
         "</sensor>\n</mujoco>", 3, "total sensor dimension exceeds", NULL);
  refuse("<mujoco>\n<size nuserdata=\"2000000000\"/>\n</mujoco>", 2,
         "'nuserdata' of <size> is 2000000000", NULL);
  refuse("<mujoco>\n<size nuser_body=\"2000000000\"/>\n</mujoco>", 2,
         "'nuser_body' of <size> is 2000000000", NULL);
  refuse("<mujoco>\n<size nuser_geom=\"abc\"/>\n</mujoco>", 2, "malformed integer 'abc'",
         "'nuser_geom'");
  refuse("<mujoco>\n<custom>\n<numeric name=\"a\" size=\"200000000\"/>\n"
         "<numeric name=\"b\" size=\"200000000\"/>\n</custom>\n</mujoco>", 4,
         "total size of the numerics", NULL);
}

// a temporary folder with a file name.xml holding body, or NULL
static void writeFile(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

Test(compiler_limits, files_that_are_not_regular) {
  char dir[] = "/tmp/moduco-limits-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[512], xml[1024], err[1024];

  // a folder named like a mesh, a FIFO as a height field, /dev/zero as an include and a model
  snprintf(path, sizeof(path), "%s/x.stl", dir);
  cr_assert_eq(mkdir(path, 0700), 0);
  snprintf(xml, sizeof(xml), "<mujoco>\n<asset>\n<mesh file=\"%s\"/>\n</asset>\n</mujoco>", path);
  refuse(xml, 3, "mesh file", "is not a regular file");
  snprintf(path, sizeof(path), "%s/h.bin", dir);
  cr_assert_eq(mkfifo(path, 0600), 0);
  snprintf(xml, sizeof(xml), "<mujoco>\n<asset>\n<hfield name=\"h\" file=\"%s\" size=\"1 1 1 1\"/>"
           "\n</asset>\n</mujoco>", path);
  refuse(xml, 3, "height-field file", "is not a regular file");
  refuse("<mujoco>\n<include file=\"/dev/zero\"/>\n</mujoco>", 2, "'/dev/zero'",
         "not a regular file");
  cr_assert_null(mc_loadXML("/dev/zero", err, sizeof(err)));
  cr_assert(strstr(err, "not a regular file"), "got '%s'", err);

  // a missing height field is named as one; a broken PNG height field (found by its signature)
  // as not readable
  snprintf(xml, sizeof(xml), "<mujoco>\n<asset>\n<hfield name=\"h\" file=\"%s/none.bin\" "
           "size=\"1 1 1 1\"/>\n</asset>\n</mujoco>", dir);
  refuse(xml, 3, "could not open height-field file", "none.bin");
  snprintf(path, sizeof(path), "%s/image.bin", dir);
  writeFile(path, "\x89PNG\r\n\x1a\n0123456789abcdef");
  snprintf(xml, sizeof(xml), "<mujoco>\n<asset>\n<hfield name=\"h\" file=\"%s\" size=\"1 1 1 1\"/>"
           "\n</asset>\n</mujoco>", path);
  refuse(xml, 3, "image.bin", "is not a readable PNG image");
}

Test(compiler_limits, include_amplification_bounded) {
  // each level includes the next 64 times: 64^3 includes would be read without the budget
  char dir[] = "/tmp/moduco-amp-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[512];
  static char text[64 * 64];
  for (int level = 0; level < 3; level++) {
    char* p = text + sprintf(text, "<mujoco>");
    for (int i = 0; i < 64; i++) {
      p += sprintf(p, "<include file=\"l%d.xml\"/>", level + 1);
    }
    sprintf(p, "</mujoco>");
    snprintf(path, sizeof(path), "%s/l%d.xml", dir, level);
    writeFile(path, text);
  }
  snprintf(path, sizeof(path), "%s/l3.xml", dir);
  writeFile(path, "<mujoco><worldbody><geom size=\"1\"/></worldbody></mujoco>");
  char err[1024] = "";
  snprintf(path, sizeof(path), "%s/l0.xml", dir);
  cr_assert_null(mc_loadXML(path, err, sizeof(err)));
  cr_assert(strstr(err, "<include> elements"), "got '%s'", err);
}
