// moduco run --threads N --profile: the in-step thread pool's jobs, step by step from the pool's
// trace (mc_threadPoolTrace), summed per job (the core's task function). The caller's time in a
// step outside every job is the step's serial part: the other threads idle through it.
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_poolTraceBegin(CliPoolTrace* t) {
  mc_threadPoolTrace(t->pool, t->rec, CLI_POOLCAP);
}


void cli_poolTraceEnd(CliPoolTrace* t, double seconds) {
  long n = mc_threadPoolTraced(t->pool);
  mc_threadPoolTrace(t->pool, NULL, 0);
  if (n > CLI_POOLCAP) {
    t->lost += n - CLI_POOLCAP;
    n = CLI_POOLCAP;
  }
  t->step += seconds;
  for (long j = 0; j < n; j++) {
    const mcPoolJob* r = t->rec + j;
    int k = 0;
    while (k < t->nkind && strcmp(t->kind[k].name, r->name)) {
      k++;
    }
    if (k == CLI_POOLKINDS) {     // (more kinds than the core has jobs: counted as lost)
      t->lost++;
      continue;
    }
    if (k == t->nkind) {
      memset(t->kind + k, 0, sizeof(t->kind[k]));
      t->kind[k].name = r->name;
      t->nkind++;
    }
    CliPoolKind* q = t->kind + k;
    double time = 1e-9 * (double)(r->end - r->post);
    q->jobs++;
    q->time += time;
    q->busy += 1e-9 * (double)r->busy;
    q->wait += 1e-9 * (double)(r->end - r->drained);
    t->jobs += time;
  }
}


void cli_poolTracePrint(const CliPoolTrace* t, long nstep) {
  double n = nstep > 0 ? (double)nstep : 1, us = 1e6 / n, nh = t->nthread - 1;
  printf("pool jobs        %d threads (us per step: the caller in the job, the other threads "
         "busy in it, the caller waiting for them at its end)\n", t->nthread);
  printf("  %-22s %9s %10s %12s %12s\n", "job", "jobs/step", "caller", "others busy",
         "caller wait");
  double busy = 0;
  for (int k = 0; k < t->nkind; k++) {
    const CliPoolKind* q = t->kind + k;
    printf("  %-22s %9.2f %10.2f %12.2f %12.2f\n", q->name, (double)q->jobs / n, q->time * us,
           q->busy * us, q->wait * us);
    busy += q->busy;
  }
  double serial = t->step > t->jobs ? t->step - t->jobs : 0;
  printf("  %-22s %9s %10.2f  (%.1f %% of the step)\n", "serial (caller alone)", "", serial * us,
         t->step > 0 ? 100 * serial / t->step : 0);
  printf("  the other threads idle %.1f %% of their time\n",
         t->step > 0 ? 100 * (1 - busy / (t->step * nh)) : 0);
  if (t->lost > 0) {
    printf("  (%ld jobs past %d a step not timed)\n", t->lost, CLI_POOLCAP);
  }
}
