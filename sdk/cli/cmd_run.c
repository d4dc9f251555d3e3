// Moduco command-line tool: 'run' simulates a model and prints a summary.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record.h"

#define BAR_WIDTH 32

// progress display state, shared with the message handler
typedef struct {
  int tty;                        // stderr is a terminal: redraw one line in place
  int drawn;                      // a progress line is currently on screen (tty only)
  long total;                     // steps to run
} Progress;

static Progress g_progress;


// clear the progress line so a message prints on a clean line
static void progressClear(void) {
  if (g_progress.tty && g_progress.drawn) {
    fprintf(stderr, "\r%*s\r", BAR_WIDTH + 60, "");
    g_progress.drawn = 0;
  }
}


// draw the progress bar (tty) or a plain line
static void progressShow(long step, double simtime, double wall) {
  double frac = g_progress.total > 0 ? (double)step / (double)g_progress.total : 1.0;
  double rate = wall > 0 ? (double)step / wall : 0.0;
  if (g_progress.tty) {
    char bar[BAR_WIDTH + 1];
    int fill = (int)(frac * BAR_WIDTH + 0.5);
    for (int i = 0; i < BAR_WIDTH; i++) {
      bar[i] = i < fill ? '#' : '.';
    }
    bar[BAR_WIDTH] = 0;
    fprintf(stderr, "\r[%s] %3.0f%%  t=%.3f s  %.0f steps/s ", bar, 100 * frac, simtime, rate);
    g_progress.drawn = 1;
  } else {
    fprintf(stderr, "progress: %3.0f%%  step %ld/%ld  t=%.6g s  %.0f steps/s\n", 100 * frac,
            step, g_progress.total, simtime, rate);
  }
  fflush(stderr);
}


// warnings and plugin messages: print without breaking the progress bar
static void onMessage(void* user, const char* message) {
  progressClear();
  cli_onMessage(user, message);
}


int cmd_run(int argc, char** argv) {
  const char* file = NULL;
  const char* integrator = NULL;
  const char* solver = NULL;
  double duration = -1;
  long nstep = -1;
  int profile = 0;
  int check = 0;
  int island = -1;                // --island on|off; -1: the model's flag
  int multiccd = -1;              // --multiccd on|off; -1: the model's flag
  long nthread = 0;               // --threads N: in-step thread pool of N threads; 0: none
  const char* record = NULL;

  // parse arguments
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(a, "--duration") && has) {
      if (cli_parseDouble(argv[++i], &duration) || duration < 0) {
        cli_error("--duration needs a non-negative number of seconds, got '%s'", argv[i]);
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--steps") && has) {
      if (cli_parseSteps("--steps", argv[++i], &nstep)) {
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--integrator") && has) {
      integrator = argv[++i];
    } else if (!strcmp(a, "--solver") && has) {
      solver = argv[++i];
    } else if (!strcmp(a, "--profile")) {
      profile = 1;
    } else if (!strcmp(a, "--check")) {
      check = 1;
    } else if ((!strcmp(a, "--island") || !strcmp(a, "--multiccd")) && has) {
      const char* v = argv[++i];
      int on = !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -2;
      if (on < -1) {
        cli_error("%s needs 'on' or 'off', got '%s'", a, v);
        return CLI_USAGE;
      }
      *(!strcmp(a, "--island") ? &island : &multiccd) = on;
    } else if (!strcmp(a, "--threads") && has) {
      char* end = NULL;
      nthread = strtol(argv[++i], &end, 10);
      if (!end || *end || nthread < 1 || nthread > 256) {
        cli_error("--threads needs a count 1..256, got '%s'", argv[i]);
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--record") && has) {
      record = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      cli_error("unknown or incomplete option '%s' (usage: moduco run MODEL [--duration T | "
                "--steps N] [--integrator NAME] [--solver NAME] [--island on|off] "
                "[--multiccd on|off] [--threads N] [--profile] [--check] [--record FILE])", a);
      return CLI_USAGE;
    } else if (!file) {
      file = a;
    } else {
      cli_error("unexpected argument '%s'", a);
      return CLI_USAGE;
    }
  }
  if (!file) {
    cli_error("usage: moduco run MODEL [--duration T | --steps N] [--integrator NAME] "
              "[--solver NAME] [--island on|off] [--multiccd on|off] [--threads N] [--profile] "
              "[--check] [--record FILE]");
    return CLI_USAGE;
  }
  if (duration >= 0 && nstep >= 0) {
    cli_error("--duration and --steps are exclusive");
    return CLI_USAGE;
  }

  // load, override plugins, enable energy
  mcModel* m = cli_loadModel(file);
  if (!m) {
    return CLI_FAIL;
  }
  if ((integrator && cli_setIntegrator(m, integrator)) || (solver && cli_setSolver(m, solver))) {
    mc_deleteModel(m);
    return CLI_FAIL;
  }
  m->opt.enableflags |= mcENBL_ENERGY;
  if (island >= 0) {
    m->opt.enableflags = island ? m->opt.enableflags | mcENBL_ISLAND
                                : m->opt.enableflags & ~mcENBL_ISLAND;
  }
  if (multiccd >= 0) {
    m->opt.enableflags = multiccd ? m->opt.enableflags | mcENBL_MULTICCD
                                  : m->opt.enableflags & ~mcENBL_MULTICCD;
  }
  mcData* d = mc_makeData(m);
  if (!d) {
    cli_error("could not allocate data for %s", file);
    mc_deleteModel(m);
    return CLI_FAIL;
  }
  mcThreadPool* pool = nthread > 0 ? mc_threadPoolCreate((int)nthread) : NULL;
  if (nthread > 0 && (!pool || mc_bindThreadPool(d, pool) != 0)) {
    cli_error("could not make a thread pool of %ld threads", nthread);
    mc_threadPoolDelete(pool);
    mc_deleteData(d);
    mc_deleteModel(m);
    return CLI_FAIL;
  }

  // --profile on a pool: its jobs timed step by step (the trace's records are on the heap, made
  // here, not in the step)
  CliPoolTrace* jobs = NULL;
  if (profile && pool && nthread > 1) {
    jobs = (CliPoolTrace*)calloc(1, sizeof(CliPoolTrace));
    if (!jobs) {
      cli_error("out of memory for the pool's job trace");
      mc_bindThreadPool(d, NULL);
      mc_threadPoolDelete(pool);
      mc_deleteData(d);
      mc_deleteModel(m);
      return CLI_FAIL;
    }
    jobs->pool = pool;
    jobs->nthread = (int)nthread;
  }

  // number of steps: --steps, else --duration (default 5 s of simulated time), range-checked
  if (nstep < 0 &&
      cli_durationSteps(file, duration >= 0 ? duration : 5.0, m->opt.timestep, &nstep)) {
    free(jobs);
    mc_deleteData(d);
    mc_deleteModel(m);
    return CLI_FAIL;
  }
  fprintf(stderr, "moduco: %s  nq=%d nv=%d nu=%d  integrator %s  solver %s  timestep %g  "
          "%ld steps\n", file, m->nq, m->nv, m->nu, cli_integratorName(m), cli_solverName(m),
          m->opt.timestep, nstep);

  // --record: the initial state, then one frame per step (docs/viewer.md, "Recordings")
  RecWriter rec;
  if (record && rec_open(&rec, record, file, m)) {
    free(jobs);
    mc_deleteData(d);
    mc_deleteModel(m);
    return CLI_FAIL;
  }
  int recfail = record ? rec_frame(&rec, d) : 0;

  // step with progress
  memset(&g_progress, 0, sizeof(g_progress));
  g_progress.tty = isatty(STDERR_FILENO);
  g_progress.total = nstep;
  mc_setMessageHandler(onMessage, NULL);
  double simtime = 0;
  d->profile = profile;
  if (check) {
    mc_setPluginCheck(d, 1);
  }
  long nisland_sum = 0, island_solves = 0;
  int nisland_max = 0;
  double start = cli_now();
  double period = g_progress.tty ? 0.1 : 1e300;
  double nextdraw = start + period;
  long nextmark = nstep / 10;
  for (long i = 0; i < nstep && !recfail; i++) {
    // simulated time survives automatic resets (which set d->time back)
    double before = d->time;
    if (jobs) {
      cli_poolTraceBegin(jobs);
      double t0 = cli_now();
      mc_step(m, d);
      cli_poolTraceEnd(jobs, cli_now() - t0);
    } else {
      mc_step(m, d);
    }
    if (record) {
      recfail = rec_frame(&rec, d);
    }
    simtime += d->time >= before ? d->time - before : m->opt.timestep;
    nisland_sum += d->nisland;
    nisland_max = d->nisland > nisland_max ? d->nisland : nisland_max;
    island_solves += d->island_solved;
    if ((i & 15) == 15 && g_progress.tty) {
      double now = cli_now();
      if (now >= nextdraw) {
        progressShow(i + 1, simtime, now - start);
        nextdraw = now + period;
      }
    } else if (!g_progress.tty && nstep >= 10 && i + 1 == nextmark && i + 1 < nstep) {
      progressShow(i + 1, simtime, cli_now() - start);
      nextmark += nstep / 10;
    }
  }
  double wall = cli_now() - start;
  if (g_progress.tty && nstep > 0) {
    progressShow(nstep, simtime, wall);
    fprintf(stderr, "\n");
  }
  g_progress.drawn = 0;
  if (record && (rec_close(&rec) || recfail)) {
    mc_setMessageHandler(NULL, NULL);
    free(jobs);
    mc_deleteData(d);
    mc_deleteModel(m);
    return CLI_FAIL;
  }

  // final state: forward once so energy matches it (not profiled)
  d->profile = 0;
  mc_forward(m, d);
  mc_setMessageHandler(cli_onMessage, NULL);

  // summary
  printf("steps            %ld\n", nstep);
  if (isfinite(simtime)) {
    printf("sim time         %.6f s\n", simtime);
  } else {
    printf("sim time         unavailable (not finite: timestep %g)\n", m->opt.timestep);
  }
  printf("wall time        %.6f s\n", wall);
  printf("steps/s          %.0f\n", wall > 0 ? (double)nstep / wall : 0.0);
  printf("realtime factor  %.2f\n", wall > 0 && isfinite(simtime / wall) ? simtime / wall : 0.0);
  double energy = d->energy[0] + d->energy[1];
  if (isfinite(energy) && isfinite(d->energy[0]) && isfinite(d->energy[1])) {
    printf("energy           %.9g (potential %.9g, kinetic %.9g)\n", energy, d->energy[0],
           d->energy[1]);
  } else {
    printf("energy           unavailable (not finite at the final state: the simulation "
           "diverged, see the warnings)\n");
  }
  int nwarn = 0;
  for (int i = 0; i < mcNWARNING; i++) {
    nwarn += d->warning[i].number;
  }
  for (int k = 0; k < m->npluginwarn; k++) {
    nwarn += d->plugin_warncount[k];
  }
  printf("warnings         %d\n", nwarn);
  for (int i = 0; i < mcNWARNING; i++) {
    if (d->warning[i].number) {
      printf("  %-14d %s\n", d->warning[i].number, mc_warningText(i, d->warning[i].lastinfo));
    }
  }
  for (int k = 0; k < m->npluginwarn; k++) {
    if (d->plugin_warncount[k]) {
      printf("  %-14d %s (info %d)\n", d->plugin_warncount[k], mc_pluginWarningName(m, k),
             d->plugin_warninfo[k]);
    }
  }

  int nbad = d->warning[mcWARN_BADQPOS].number + d->warning[mcWARN_BADQVEL].number +
             d->warning[mcWARN_BADQACC].number;
  if (nbad) {
    printf("  %s\n", m->opt.disableflags & mcDSBL_AUTORESET
                          ? "autoreset is disabled: the non-finite state was kept"
                          : "each bad qpos/qvel/qacc reset the state to the model's default "
                            "(docs/warnings.md)");
  }

  if (profile) {
    cli_printProfile(m, d, nstep);
    printf("islands          %.2f per step (max %d), solved by island in %ld of %ld steps, "
           "%d thread%s\n", nstep > 0 ? (double)nisland_sum / (double)nstep : 0.0, nisland_max,
           island_solves, nstep, nthread > 0 ? (int)nthread : 1, nthread > 1 ? "s" : "");
    if (jobs) {
      cli_poolTracePrint(jobs, nstep);
    }
  }
  free(jobs);

  // --check: a plugin that failed a check fails the run
  int failed = check && d->warning[mcWARN_PLUGINCHECK].number > 0;
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
  return failed ? CLI_FAIL : CLI_OK;
}
