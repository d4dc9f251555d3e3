// Moduco command-line tool: 'bench', a thin layer over the bench library (moduco/mcbench.h):
// parse the command line, run, print the table, write JSON and SVG, and turn the outcome into
// the exit status (docs/bench.md).
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <moduco/mcbench.h>

#include "cli.h"

#define MAXLIST 32                // most names in one list, most models

static const char* const kUsage =
  "usage: moduco bench MODEL... [--solver A,B,...] [--integrator A,B,...] [--steps N] "
  "[--repeat R] [--warmup N] [--threads T1,T2,...] [--ctrlnoise S] [--ctrlzero] [--seed S] "
  "[--accuracy N] [--allow-divergence] [--json FILE] [--plot FILE.svg] [--reference mujoco] "
  "[--profile]";

typedef struct {                  // command line
  const char* model[MAXLIST];
  const char* solver[MAXLIST];
  const char* integrator[MAXLIST];
  int threads[MAXLIST];
  mcbConfig c;
  const char* json;
  const char* plot;
  int allow_divergence;
} Options;


// a comma-separated list of names (cli_splitList refuses empty items); return CLI_OK or CLI_USAGE
static int parseNames(const char* opt, char* arg, const char** out, int* n) {
  char* items[MAXLIST];
  int k = cli_splitList(opt, arg, items, MAXLIST);
  if (k < 0) {
    return CLI_USAGE;
  }
  for (int i = 0; i < k; i++) {
    out[i] = items[i];
  }
  *n = k;
  return CLI_OK;
}


// --steps, --repeat, --warmup, --seed, --accuracy (the first two must be positive)
static int parseCount(const char* opt, const char* arg, mcbConfig* c) {
  long v;
  int positive = !strcmp(opt, "--steps") || !strcmp(opt, "--repeat");
  if (cli_parseCount(arg, &v) || (positive && v == 0) ||
      (!strcmp(opt, "--accuracy") && v > 100000)) {
    cli_error("%s needs a %s integer, got '%s'", opt, positive ? "positive" : "non-negative",
              arg);
    return CLI_USAGE;
  }
  if (!strcmp(opt, "--steps")) {
    c->steps = v;
  } else if (!strcmp(opt, "--repeat")) {
    c->repeat = v;
  } else if (!strcmp(opt, "--warmup")) {
    c->warmup = v;
  } else if (!strcmp(opt, "--accuracy")) {
    c->accuracy = (int)v;
  } else {
    c->seed = (unsigned long long)v;
  }
  return CLI_OK;
}


static int parseThreads(char* arg, Options* o) {
  const char* list[MAXLIST];
  int n;
  if (parseNames("--threads", arg, list, &n)) {
    return CLI_USAGE;
  }
  for (int k = 0; k < n; k++) {
    long v;
    if (cli_parseCount(list[k], &v) || v < 1 || v > 256) {
      cli_error("--threads needs counts 1..256, got '%s'", list[k]);
      return CLI_USAGE;
    }
    o->threads[o->c.nthreads++] = (int)v;
  }
  return CLI_OK;
}


// parse the command line; return CLI_OK or CLI_USAGE
static int parseOptions(int argc, char** argv, Options* o) {
  memset(o, 0, sizeof(*o));
  mcbConfig* c = &o->c;
  mcb_defaultConfig(c);
  c->model = o->model;
  c->solver = o->solver;
  c->integrator = o->integrator;
  c->threads = o->threads;
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    int rc = CLI_OK;
    if (!strcmp(a, "--solver") && has) {
      rc = parseNames(a, argv[++i], o->solver, &c->nsolver);
    } else if (!strcmp(a, "--integrator") && has) {
      rc = parseNames(a, argv[++i], o->integrator, &c->nintegrator);
    } else if ((!strcmp(a, "--steps") || !strcmp(a, "--repeat") || !strcmp(a, "--warmup") ||
                !strcmp(a, "--seed") || !strcmp(a, "--accuracy")) && has) {
      rc = parseCount(a, argv[++i], c);
    } else if (!strcmp(a, "--threads") && has) {
      rc = parseThreads(argv[++i], o);
    } else if (!strcmp(a, "--ctrlnoise") && has) {
      if (cli_parseDouble(argv[++i], &c->ctrlnoise) || c->ctrlnoise < 0) {
        cli_error("--ctrlnoise needs a non-negative number, got '%s'", argv[i]);
        rc = CLI_USAGE;
      }
    } else if (!strcmp(a, "--ctrlzero")) {
      c->ctrlzero = 1;
    } else if (!strcmp(a, "--json") && has) {
      o->json = argv[++i];
    } else if (!strcmp(a, "--plot") && has) {
      o->plot = argv[++i];
    } else if (!strcmp(a, "--reference") && has) {
      if (strcasecmp(argv[++i], "mujoco")) {
        cli_error("--reference knows only 'mujoco', got '%s'", argv[i]);
        rc = CLI_USAGE;
      }
      c->reference = 1;
    } else if (!strcmp(a, "--profile")) {
      c->profile = 1;
    } else if (!strcmp(a, "--allow-divergence")) {
      o->allow_divergence = 1;
    } else if (a[0] == '-' && a[1]) {
      cli_error("unknown or incomplete option '%s' (%s)", a, kUsage);
      rc = CLI_USAGE;
    } else if (c->nmodel < MAXLIST) {
      o->model[c->nmodel++] = a;
    } else {
      cli_error("at most %d models", MAXLIST);
      rc = CLI_USAGE;
    }
    if (rc != CLI_OK) {
      return rc;
    }
  }
  if (!c->nmodel) {
    cli_error("%s", kUsage);
    return CLI_USAGE;
  }
  return CLI_OK;
}


// messages of the library during the run go to stderr, once each: every reset of an arm clears
// the warnings, so the core prints a warning's first occurrence again on every repeat (the
// first MAXSEEN distinct messages are remembered; later ones are printed every time)
#define MAXSEEN 256

typedef struct {
  pthread_mutex_t lock;           // the scaling runs step on several threads
  unsigned long long hash[MAXSEEN];
  int n;
} Seen;


static void onMessage(void* user, const char* message) {
  Seen* seen = user;
  unsigned long long h = 0xcbf29ce484222325ULL;
  for (const char* c = message; *c; c++) {
    h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
  }
  pthread_mutex_lock(&seen->lock);
  int found = 0;
  for (int i = 0; i < seen->n && !found; i++) {
    found = seen->hash[i] == h;
  }
  if (!found && seen->n < MAXSEEN) {
    seen->hash[seen->n++] = h;
  }
  pthread_mutex_unlock(&seen->lock);
  if (!found) {
    cli_onMessage(NULL, message);
  }
}


// arms that cannot run, and arms that diverged, on stderr
static void reportArms(const mcbBench* b, int after_run) {
  for (int i = 0; i < mcb_armCount(b); i++) {
    const mcbResult* r = mcb_result(b, i);
    const char* s = r->solver[0] ? r->solver : "-";
    const char* n = r->integrator[0] ? r->integrator : "-";
    if (!after_run && r->error) {
      cli_error("arm %d (%s %s %s/%s) skipped: %s", i, mcb_engineName(r->engine), r->file, s, n,
                r->error);
    } else if (after_run && r->diverged) {
      cli_error("arm %d (%s %s %s/%s) diverged: %d auto-resets (bad qpos/qvel/qacc)%s", i,
                mcb_engineName(r->engine), r->file, s, n, r->resets,
                r->nonfinite ? ", non-finite final state" : "");
    }
  }
}


// open the report files before the run (a bad path fails at once, not after it); return 0 or -1
static int openOutputs(const Options* o, FILE** json, FILE** plot) {
  const char* file[2] = {o->json, o->plot};
  FILE** f[2] = {json, plot};
  for (int k = 0; k < 2; k++) {
    *f[k] = NULL;
    if (!file[k]) {
      continue;
    }
    *f[k] = k == 0 && !strcmp(file[k], "-") ? stdout : fopen(file[k], "w");
    if (!*f[k]) {
      cli_error("cannot write %s: %s", file[k], strerror(errno));
      if (k == 1 && *json && *json != stdout) {
        fclose(*json);
      }
      return -1;
    }
  }
  return 0;
}


// write the reports and close their files, each checked (stdout is closed by main)
static int writeOutputs(const mcbBench* b, const Options* o, FILE* json, FILE* plot, int argc,
                        char** argv) {
  int rc = CLI_OK;
  if (json) {
    char cmd[4096] = "moduco bench";
    for (int i = 0; i < argc; i++) {
      size_t len = strlen(cmd);
      snprintf(cmd + len, sizeof(cmd) - len, " %s", argv[i]);
    }
    if (mcb_printJson(b, json, cmd)) {
      cli_error("%s: out of memory", o->json);
      rc = CLI_FAIL;
    }
    if (json != stdout && cli_closeOutput(json, o->json)) {
      rc = CLI_FAIL;
    }
  }
  if (plot) {
    mcb_printPlot(b, plot);
    if (cli_closeOutput(plot, o->plot)) {
      rc = CLI_FAIL;
    }
  }
  return rc;
}


int cmd_bench(int argc, char** argv) {
  Options o;
  FILE *json, *plot;
  int rc = parseOptions(argc, argv, &o);
  if (rc != CLI_OK) {
    return rc;
  }
  if (openOutputs(&o, &json, &plot)) {
    return CLI_FAIL;
  }
  static Seen seen = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
  mc_setMessageHandler(onMessage, &seen);
  mcbBench* b = mcb_create(&o.c);
  if (!b) {
    cli_error("out of memory");
    mc_setMessageHandler(cli_onMessage, NULL);
    if (json && json != stdout) {
      fclose(json);
    }
    if (plot) {
      fclose(plot);
    }
    return CLI_FAIL;
  }
  reportArms(b, 0);
  fprintf(stderr, "moduco bench: %d arms, %ld steps x %ld repeats\n", mcb_armCount(b),
          mcb_config(b)->steps, mcb_config(b)->repeat);
  mcb_run(b);
  mcb_printTable(b, stdout);
  reportArms(b, 1);

  // the status: a failed arm or output (1), else an unallowed divergence (3)
  rc = mcb_status(b, o.allow_divergence);
  if (writeOutputs(b, &o, json, plot, argc, argv) != CLI_OK) {
    rc = CLI_FAIL;
  }
  mcb_delete(b);
  mc_setMessageHandler(cli_onMessage, NULL);
  return rc;
}
