// Tests of core/xml: element tree, attributes, line numbers, include expansion and errors.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xml/xml_reader.h"

// write a file into a fresh temporary folder; return its path in out
static void writeFile(const char* dir, const char* name, const char* text, char* out, int sz) {
  snprintf(out, (size_t)sz, "%s/%s", dir, name);
  FILE* f = fopen(out, "w");
  cr_assert_not_null(f, "cannot write %s", out);
  fputs(text, f);
  fclose(f);
}

// a fresh temporary folder
static void tempDir(char* dir, int sz) {
  snprintf(dir, (size_t)sz, "/tmp/moduco-xml-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

Test(xml, tree_attributes_lines) {
  char err[256];
  const char* xml = "<mujoco model=\"m\">\n"
                    "  <worldbody>\n"
                    "    <geom name=\"g\" size=\"1 2\"/>\n"
                    "    <body name=\"b\"><joint/></body>\n"
                    "  </worldbody>\n"
                    "</mujoco>\n";
  mcxTree* t = mcx_readString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(t, "%s", err);
  cr_assert_str_eq(t->root->name, "mujoco");
  cr_assert_str_eq(mcx_attr(t->root, "model"), "m");
  cr_assert_eq(t->root->line, 1);
  mcxElem* wb = t->root->child[0];
  cr_assert_eq(wb->nchild, 2);
  cr_assert_str_eq(wb->child[0]->name, "geom");
  cr_assert_eq(wb->child[0]->line, 3);
  cr_assert_str_eq(mcx_attr(wb->child[0], "size"), "1 2");
  cr_assert_null(mcx_attr(wb->child[0], "pos"));
  cr_assert_eq(wb->child[1]->child[0]->line, 4);
  cr_assert_eq(wb->child[1]->child[0]->parent, wb->child[1]);
  cr_assert_str_eq(wb->child[0]->file, "string");
  mcx_freeTree(t);
}

Test(xml, malformed_reports_line) {
  char err[256];
  mcxTree* t = mcx_readString("<mujoco>\n<worldbody>\n</mujoco>\n", NULL, err, sizeof(err));
  cr_assert_null(t);
  cr_assert(strstr(err, "string:3: ") == err, "got '%s'", err);
  cr_assert(strstr(err, "XML parse error"), "got '%s'", err);
}

Test(xml, empty_and_missing_file) {
  char err[256];
  cr_assert_null(mcx_readString("", NULL, err, sizeof(err)));
  cr_assert(strstr(err, "string:") == err, "got '%s'", err);
  cr_assert_null(mcx_readFile("/nonexistent/model.xml", err, sizeof(err)));
  cr_assert(strstr(err, "/nonexistent/model.xml: could not open file"), "got '%s'", err);
}

Test(xml, include_expands_in_place) {
  char dir[64], sub[128], path[256], inc[256];
  tempDir(dir, sizeof(dir));
  snprintf(sub, sizeof(sub), "%s/parts", dir);
  cr_assert_eq(mkdir(sub, 0700), 0);
  writeFile(sub, "inner.xml", "<mujoco>\n  <geom name=\"inner\"/>\n</mujoco>\n", inc, sizeof(inc));
  writeFile(sub, "body.xml",
            "<mujoco>\n  <geom name=\"a\"/>\n  <include file=\"inner.xml\"/>\n"
            "  <geom name=\"c\"/>\n</mujoco>\n", inc, sizeof(inc));
  writeFile(dir, "main.xml",
            "<mujoco>\n<worldbody>\n  <site name=\"s\"/>\n  <include file=\"parts/body.xml\"/>\n"
            "  <site name=\"t\"/>\n</worldbody>\n</mujoco>\n", path, sizeof(path));
  char err[512];
  mcxTree* t = mcx_readFile(path, err, sizeof(err));
  cr_assert_not_null(t, "%s", err);
  mcxElem* wb = t->root->child[0];
  cr_assert_eq(wb->nchild, 5);
  const char* names[5] = {"s", "a", "inner", "c", "t"};
  for (int i = 0; i < 5; i++) {
    cr_assert_str_eq(mcx_attr(wb->child[i], "name"), names[i]);
    cr_assert_eq(wb->child[i]->parent, wb);
  }
  // file and line of included elements point into the included file
  cr_assert(strstr(wb->child[1]->file, "parts/body.xml"), "%s", wb->child[1]->file);
  cr_assert_eq(wb->child[1]->line, 2);
  cr_assert(strstr(wb->child[2]->file, "parts/inner.xml"), "%s", wb->child[2]->file);
  cr_assert_eq(wb->child[3]->line, 4);
  mcx_freeTree(t);
}

Test(xml, include_missing_file_names_includer) {
  char dir[64], path[256];
  tempDir(dir, sizeof(dir));
  writeFile(dir, "main.xml", "<mujoco>\n\n  <include file=\"nope.xml\"/>\n</mujoco>\n", path,
            sizeof(path));
  char err[512];
  cr_assert_null(mcx_readFile(path, err, sizeof(err)));
  char prefix[300];
  snprintf(prefix, sizeof(prefix), "%s:3: ", path);
  cr_assert(strstr(err, prefix) == err, "got '%s'", err);
  cr_assert(strstr(err, "nope.xml"), "got '%s'", err);
}

Test(xml, include_cycle_is_an_error) {
  char dir[64], a[256], b[256];
  tempDir(dir, sizeof(dir));
  writeFile(dir, "a.xml", "<mujoco>\n  <include file=\"b.xml\"/>\n</mujoco>\n", a, sizeof(a));
  writeFile(dir, "b.xml", "<mujoco>\n\n  <include file=\"a.xml\"/>\n</mujoco>\n", b, sizeof(b));
  char err[512];
  cr_assert_null(mcx_readFile(a, err, sizeof(err)));
  char prefix[300];
  snprintf(prefix, sizeof(prefix), "%s:3: ", b);
  cr_assert(strstr(err, prefix) == err, "got '%s'", err);
  cr_assert(strstr(err, "cycle"), "got '%s'", err);
}

Test(xml, include_error_inside_included_file) {
  char dir[64], main[256], inc[256];
  tempDir(dir, sizeof(dir));
  writeFile(dir, "bad.xml", "<mujoco>\n  <geom>\n</mujoco>\n", inc, sizeof(inc));
  writeFile(dir, "main.xml", "<mujoco>\n  <include file=\"bad.xml\"/>\n</mujoco>\n", main,
            sizeof(main));
  char err[512];
  cr_assert_null(mcx_readFile(main, err, sizeof(err)));
  char prefix[300];
  snprintf(prefix, sizeof(prefix), "%s:3: ", inc);
  cr_assert(strstr(err, prefix) == err, "got '%s'", err);
}

Test(xml, include_needs_file_attribute) {
  char err[256];
  cr_assert_null(mcx_readString("<mujoco>\n<include/>\n</mujoco>", NULL, err, sizeof(err)));
  cr_assert(strstr(err, "string:2: ") == err, "got '%s'", err);
  cr_assert(strstr(err, "'file'"), "got '%s'", err);
}

Test(xml, string_include_uses_dir) {
  char dir[64], inc[256];
  tempDir(dir, sizeof(dir));
  writeFile(dir, "part.xml", "<mujoco><option timestep=\"0.01\"/></mujoco>", inc, sizeof(inc));
  char err[256];
  mcxTree* t = mcx_readString("<mujoco><include file=\"part.xml\"/></mujoco>", dir, err,
                              sizeof(err));
  cr_assert_not_null(t, "%s", err);
  cr_assert_str_eq(t->root->child[0]->name, "option");
  mcx_freeTree(t);
}

Test(xml, paths) {
  char out[256];
  mcx_dirname("a/b/c.xml", out, sizeof(out));
  cr_assert_str_eq(out, "a/b/");
  mcx_dirname("c.xml", out, sizeof(out));
  cr_assert_str_eq(out, "");
  mcx_joinPath("a/b/", "x.xml", out, sizeof(out));
  cr_assert_str_eq(out, "a/b/x.xml");
  mcx_joinPath("a/b", "/abs.xml", out, sizeof(out));
  cr_assert_str_eq(out, "/abs.xml");
}
