// Tests of the bench library API (moduco/mcbench.h) as an application or binding uses it: make,
// run, read the results, print, status; the defaults; arms that cannot run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <moduco/mcbench.h>

#define FIXTURES MODUCO_SOURCE_DIR "/tests/bench/"


Test(bench_api, defaults) {
  mcbConfig c;
  memset(&c, 0xff, sizeof(c));
  mcb_defaultConfig(&c);
  cr_expect_eq(c.steps, 1000);
  cr_expect_eq(c.repeat, 7);
  cr_expect_lt(c.warmup, 0);
  cr_expect_eq(c.accuracy, 16);
  cr_expect_eq(c.ctrlzero, 0);
  cr_expect_eq(c.seed, 1);
  cr_expect_eq(c.nmodel, 0);
  cr_expect_null(c.model);
}


Test(bench_api, run_and_read_results) {
  const char* models[] = {FIXTURES "boxstack.xml", FIXTURES "missing.xml"};
  const char* solvers[] = {"newton", "pgs"};
  mcbConfig c;
  mcb_defaultConfig(&c);
  c.model = models, c.nmodel = 2, c.solver = solvers, c.nsolver = 2;
  c.steps = 60, c.repeat = 2, c.accuracy = 4;
  mcbBench* b = mcb_create(&c);
  cr_assert_not_null(b);
  cr_assert_eq(mcb_armCount(b), 4);
  cr_expect_null(mcb_result(b, 4));
  cr_expect_null(mcb_result(b, -1));
  cr_expect_eq(mcb_config(b)->warmup, 60, "warmup defaults to steps");
  cr_expect_eq(mcb_run(b), 0);
  cr_expect_eq(mcb_run(b), -1, "a bench runs once");

  // the box stack ran; the missing model's arms carry errors
  for (int i = 0; i < 4; i++) {
    const mcbResult* r = mcb_result(b, i);
    cr_expect_eq(r->model, i / 2);
    cr_expect_eq(r->error != NULL, i >= 2, "arm %d", i);
  }
  const mcbResult* n = mcb_result(b, 0);
  const mcbResult* p = mcb_result(b, 1);
  cr_expect_str_eq(n->solver, "newton");
  cr_expect_eq(n->baseline, 0);
  cr_expect_eq(p->baseline, 0);
  cr_expect_eq(n->ratio, 1.0);
  cr_expect(p->median > 0 && p->min <= p->median && p->median <= p->max);
  cr_expect_eq(n->acc_samples, 4);
  cr_expect(n->acc_median < p->acc_median, "newton %g pgs %g", n->acc_median, p->acc_median);
  cr_expect(!n->diverged && !p->diverged);
  cr_expect(n->ncon_mean > 0, "the boxes touch");
  cr_expect_eq(mcb_status(b, 0), mcbSTATUS_FAILED);

  // the table names every arm and the failure
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  mcb_printTable(b, f);
  fclose(f);
  cr_expect(strstr(text, "boxstack.xml") && strstr(text, "FAILED") && strstr(text, "missing.xml"),
            "%s", text);
  free(text);
  mcb_delete(b);
}


Test(bench_api, divergence_status) {
  const char* models[] = {FIXTURES "stiff.xml"};
  mcbConfig c;
  mcb_defaultConfig(&c);
  c.model = models, c.nmodel = 1, c.steps = 100, c.repeat = 1, c.accuracy = 0;
  mcbBench* b = mcb_create(&c);
  cr_assert_not_null(b);
  mcb_run(b);
  const mcbResult* r = mcb_result(b, 0);
  cr_expect(r->diverged);
  cr_expect_gt(r->resets, 0);
  cr_expect_eq(r->resets, r->warning[mcWARN_BADQPOS] + r->warning[mcWARN_BADQVEL] +
               r->warning[mcWARN_BADQACC]);
  cr_expect_eq(r->acc_samples, 0);
  cr_expect_eq(mcb_status(b, 0), mcbSTATUS_DIVERGED);
  cr_expect_eq(mcb_status(b, 1), mcbSTATUS_OK);
  mcb_delete(b);
}


// one arm of a model: its trajectory hash and final energy under the given control settings
static void runControls(const char* model, int zero, double noise, unsigned long long seed,
                        unsigned long long* hash, double* energy) {
  const char* models[] = {model};
  mcbConfig c;
  mcb_defaultConfig(&c);
  c.model = models, c.nmodel = 1, c.steps = 200, c.repeat = 1, c.accuracy = 0;
  c.ctrlzero = zero, c.ctrlnoise = noise, c.seed = seed;
  mcbBench* b = mcb_create(&c);
  cr_assert_not_null(b);
  cr_assert_eq(mcb_run(b), 0);
  const mcbResult* r = mcb_result(b, 0);
  cr_assert_null(r->error, "%s", r->error);
  *hash = r->trajectory_hash;
  *energy = r->energy1;
  mcb_delete(b);
}


// --ctrlzero: every control exactly 0, whatever the noise and seed; not the centred controls
Test(bench_api, ctrlzero_controls) {
  unsigned long long z1, z2, centred;
  double e1, e2, ec;
  runControls(FIXTURES "offcentre.xml", 1, 0.1, 1, &z1, &e1);
  runControls(FIXTURES "offcentre.xml", 1, 0.5, 7, &z2, &e2);
  runControls(FIXTURES "offcentre.xml", 0, 0.0, 1, &centred, &ec);
  cr_expect_eq(z1, z2, "zero controls ignore the noise and the seed");
  cr_expect_neq(z1, centred, "centred controls (0.4) move the arm, zero controls do not");
  cr_expect_eq(e1, 0.0, "at rest at its zero target, no gravity: energy stays 0 (%g)", e1);
  cr_expect_gt(ec, 0.0, "the centred target moves the arm");
}


// the report files: every write checked (a full device is an error with the file's name)
Test(bench_api, report_files_checked) {
  const char* models[] = {FIXTURES "boxstack.xml"};
  mcbConfig c;
  mcb_defaultConfig(&c);
  c.model = models, c.nmodel = 1, c.steps = 10, c.repeat = 1, c.accuracy = 0;
  mcbBench* b = mcb_create(&c);
  cr_assert_not_null(b);
  mcb_run(b);
  char error[256] = "";
  cr_expect_eq(mcb_writeJson(b, "/dev/full", "x", error, sizeof(error)), -1);
  cr_expect(strstr(error, "cannot write /dev/full"), "'%s'", error);
  error[0] = 0;
  cr_expect_eq(mcb_writePlot(b, "/dev/full", error, sizeof(error)), -1);
  cr_expect(strstr(error, "cannot write /dev/full"), "'%s'", error);
  cr_expect_eq(mcb_writeJson(b, "/nonexistent-moduco-dir/b.json", "x", error, sizeof(error)),
               -1);
  cr_expect(strstr(error, "/nonexistent-moduco-dir/b.json"), "'%s'", error);
  cr_expect_eq(mcb_writeJson(b, "/dev/null", "x", error, sizeof(error)), 0);
  cr_expect_eq(mcb_writePlot(b, "/dev/null", error, sizeof(error)), 0);

  // the stream forms write the same documents
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  cr_expect_eq(mcb_printJson(b, f, "cmd"), 0);
  mcb_printPlot(b, f);
  fclose(f);
  cr_expect(strstr(text, "\"schema\":\t\"" mcbSCHEMA "\"") && strstr(text, "<svg"), "%s", text);
  free(text);
  mcb_delete(b);
}
