// Moduco command-line tool: shared helpers.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <moduco/mcbench.h>
#include <moduco/mcplugin.h>

#include "cli.h"

// the plugin overrides are new API: tolerate a libmoduco that does not export them yet


void cli_error(const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);

  // keep the message on one line
  for (char* c = buf; *c; c++) {
    if (*c == '\n' || *c == '\r') {
      *c = ' ';
    }
  }
  size_t n = strlen(buf);
  while (n > 0 && buf[n - 1] == ' ') {
    buf[--n] = 0;
  }
  fprintf(stderr, "moduco: %s\n", buf);
}


void cli_onMessage(void* user, const char* message) {
  (void)user;
  cli_error("%s", message);
}


int cli_closeOutput(FILE* f, const char* name) {
  // a write failed earlier (its errno is gone), or the last buffer cannot be written
  int failed = ferror(f) != 0;
  errno = 0;
  if (fflush(f)) {
    failed = 1;
  }
  int err = errno;
  if (fclose(f) && !failed) {
    failed = 1;
    err = errno;
  }
  if (failed) {
    cli_error("cannot write %s: %s", name, err ? strerror(err) : "write error");
    return -1;
  }
  return 0;
}


int cli_parseDouble(const char* s, double* out) {
  char* end = NULL;
  errno = 0;
  if (!*s || isspace((unsigned char)*s)) {
    return -1;
  }
  double v = strtod(s, &end);
  if (*end || errno || !isfinite(v)) {
    return -1;
  }
  *out = v;
  return 0;
}


int cli_parseCount(const char* s, long* out) {
  char* end = NULL;
  errno = 0;
  if (!isdigit((unsigned char)*s)) {
    return -1;
  }
  long v = strtol(s, &end, 10);
  if (*end || errno || v < 0) {
    return -1;
  }
  *out = v;
  return 0;
}


int cli_parseSteps(const char* opt, const char* s, long* out) {
  long v;
  if (cli_parseCount(s, &v) || v > CLI_MAXSTEPS) {
    cli_error("%s needs an integer from 0 to %ld, got '%s'", opt, CLI_MAXSTEPS, s);
    return -1;
  }
  *out = v;
  return 0;
}


int cli_durationSteps(const char* file, double duration, double timestep, long* out) {
  if (!(timestep > 0) || !isfinite(timestep)) {
    cli_error("%s: timestep %g cannot turn a duration into steps (use --steps N)", file,
              timestep);
    return -1;
  }

  // in double, range-checked before the conversion (1e300 s must not wrap to a negative count)
  double n = ceil(duration / timestep - 1e-9);
  if (n < 0) {
    n = 0;
  }
  if (!(n <= (double)CLI_MAXDURATIONSTEPS)) {
    cli_error("%s: %g s of model time at timestep %g is %.3g steps, more than the %ld a "
              "duration may ask for; pass --steps N to run that many steps explicitly, or a "
              "shorter --duration", file, duration, timestep, n, CLI_MAXDURATIONSTEPS);
    return -1;
  }
  *out = (long)n;
  return 0;
}


int cli_splitList(const char* opt, char* s, char** out, int max) {
  int n = 0;
  for (char* item = s;; n++) {
    char* comma = strchr(item, ',');
    if (comma) {
      *comma = 0;
    }
    if (!item[0]) {
      cli_error("%s needs a comma-separated list of names without empty items", opt);
      return -1;
    }
    if (n == max) {
      cli_error("%s takes at most %d items", opt, max);
      return -1;
    }
    out[n] = item;
    if (!comma) {
      return n + 1;
    }
    item = comma + 1;
  }
}


mcModel* cli_loadModel(const char* file) {
  char error[1024] = "";
  mcModel* m = mc_loadXML(file, error, sizeof(error));
  if (!m) {
    cli_error("%s", error[0] ? error : "could not load model");
  }
  return m;
}


// does a plugin name match what the user typed (built-ins case-insensitive)
static int nameMatches(const char* plugin, const char* typed) {
  if (strchr(plugin, '.')) {
    return !strcmp(plugin, typed);
  }
  return !strcasecmp(plugin, typed);
}


// check name against the registered plugins of a kind, listing the available ones if absent
static int checkPluginName(const char* kind, const char* name) {
  char avail[1024] = "";
  int found = 0;
  int n = mc_pluginCount();
  for (int i = 0; i < n; i++) {
    mcPluginInfo info;
    if (mc_pluginInfo(i, &info) || !info.kind || strcmp(info.kind, kind)) {
      continue;
    }
    if (nameMatches(info.name, name)) {
      found = 1;
    }
    size_t len = strlen(avail);
    snprintf(avail + len, sizeof(avail) - len, "%s%s", len ? ", " : "", info.name);
  }
  if (!found) {
    cli_error("unknown %s '%s' (available: %s)", kind, name, avail[0] ? avail : "none");
    return -1;
  }
  return 0;
}


// shared body of the two overrides
static int setPlugin(mcModel* m, const char* kind, const char* name,
                     int (*setter)(mcModel*, const char*, char*, int)) {
  if (checkPluginName(kind, name)) {
    return -1;
  }
  char error[1024] = "";
  if (setter(m, name, error, sizeof(error))) {
    cli_error("%s", error[0] ? error : "could not set plugin");
    return -1;
  }
  return 0;
}


int cli_setIntegrator(mcModel* m, const char* name) {
  return setPlugin(m, "integrator", name, mc_setIntegrator);
}


int cli_setSolver(mcModel* m, const char* name) {
  return setPlugin(m, "solver", name, mc_setSolver);
}


const char* cli_integratorName(const mcModel* m) {
  return mcb_integratorName(m);
}


const char* cli_solverName(const mcModel* m) {
  return mcb_solverName(m);
}


double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


//---------------------------------- profiler output -----------------------------------------------

void cli_printProfile(const mcModel* m, const mcData* d, long steps) {
  double n = steps > 0 ? (double)steps : 1;
  printf("profile (microseconds and calls per step)\n%-16s %12s %12s\n", "stage", "us/step",
         "calls/step");
  for (int k = 0; k < mcNTIMER; k++) {
    printf("%-16s %12.2f %12.2f\n", mcb_timerName(k), 1e6 * d->timer[k].duration / n,
           d->timer[k].number / n);
  }
  printf("%-5s %-11s %-24s %12s %12s %14s\n", "slot", "kind", "plugin", "us/step",
         "calls/step", "stage");
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    const char* name = mc_timerPluginName(m, k);
    if (d->timer_plugin[k].number == 0 && (!name || k >= mcTIMERPLUGIN_COLLISION)) {
      continue;
    }
    const char *kind, *stage;
    mcb_pluginSlotKind(m, k, &kind, &stage);
    printf("%-5d %-11s %-24s %12.2f %12.2f %14s\n", k, kind, name ? name : "?",
           1e6 * d->timer_plugin[k].duration / n, d->timer_plugin[k].number / n, stage);
  }
}
