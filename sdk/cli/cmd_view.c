// Moduco command-line tool: 'view' serves a live simulation to a browser page (docs/viewer.md).
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record.h"

#define VIEW_USAGE "usage: moduco view MODEL [--port P] [--bind ADDR] [--fps F] [--paused], " \
                   "or moduco view --replay FILE [MODEL] [--port P] ..."

#ifdef MODUCO_HAVE_VIEWER
#include "viewer.h"

static volatile sig_atomic_t g_stop = 0;

static void onSignal(int sig) {
  g_stop = 1;
}


// the page's folder: $MODUCO_VIEWER_DIR, else <dir of this executable>/../share/moduco/viewer
static int assetDir(char* out, size_t size) {
  const char* env = getenv("MODUCO_VIEWER_DIR");
  if (env && env[0]) {
    return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) {
    return -1;
  }
  exe[n] = 0;
  return snprintf(out, size, "%s/../share/moduco/viewer", dirname(exe)) < (int)size ? 0 : -1;
}


// is addr a loopback address (127.x.x.x)?
static int isLoopback(const char* addr) {
  return !strncmp(addr, "127.", 4);
}


// load the model to view: MODEL, else the one named by the recording; with a recording, check
// that the model has its nq (and warn when the timestep differs)
static mcModel* loadViewed(const char* file, const Recording* rec, const char* recfile) {
  mcModel* m = cli_loadModel(file);
  if (m && rec && m->nq != rec->nq) {
    cli_error("recording %s has nq=%d but the model %s has nq=%d: not a recording of it",
              recfile, rec->nq, file, m->nq);
    mc_deleteModel(m);
    return NULL;
  }
  if (m && rec && m->opt.timestep != rec->timestep) {
    fprintf(stderr, "moduco view: note: recording %s was made with timestep %g, the model has "
            "%g (played at the recording's)\n", recfile, rec->timestep, m->opt.timestep);
    m->opt.timestep = rec->timestep;
  }
  return m;
}


int cmd_view(int argc, char** argv) {
  const char* file = NULL;
  const char* replay = NULL;
  mcvOptions opt = {NULL, NULL, "127.0.0.1", 8080, 60.0, 0, NULL, 0};
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    long port = 0;
    if (!strcmp(a, "--port") && has) {
      if (cli_parseCount(argv[++i], &port) || port > 65535) {
        cli_error("--port needs a TCP port 0..65535 (0: any free port), got '%s'", argv[i]);
        return CLI_USAGE;
      }
      opt.port = (int)port;
    } else if (!strcmp(a, "--bind") && has) {
      opt.bind = argv[++i];
    } else if (!strcmp(a, "--fps") && has) {
      if (cli_parseDouble(argv[++i], &opt.fps) || !(opt.fps > 0 && opt.fps <= 1000)) {
        cli_error("--fps needs a frame rate in (0, 1000], got '%s'", argv[i]);
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--paused")) {
      opt.paused = 1;
    } else if (!strcmp(a, "--replay") && has) {
      replay = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      cli_error("unknown or incomplete option '%s' (" VIEW_USAGE ")", a);
      return CLI_USAGE;
    } else if (!file) {
      file = a;
    } else {
      cli_error("unexpected argument '%s'", a);
      return CLI_USAGE;
    }
  }
  if (!file && !replay) {
    cli_error(VIEW_USAGE);
    return CLI_USAGE;
  }
  if (strspn(opt.bind, "0123456789.") != strlen(opt.bind) || !opt.bind[0]) {
    cli_error("--bind needs an IPv4 address like 127.0.0.1, got '%s'", opt.bind);
    return CLI_USAGE;
  }
  if (!isLoopback(opt.bind)) {
    fprintf(stderr, "moduco view: WARNING: listening on %s, not loopback: anyone who can reach "
            "this address can watch and control the simulation\n", opt.bind);
  }
  char dir[PATH_MAX + 64];
  if (assetDir(dir, sizeof(dir))) {
    cli_error("cannot locate the viewer's page (set MODUCO_VIEWER_DIR)");
    return CLI_FAIL;
  }
  opt.asset_dir = dir;

  Recording rec;
  memset(&rec, 0, sizeof(rec));
  if (replay && rec_read(replay, &rec)) {
    return CLI_FAIL;
  }
  if (!file) {
    file = rec.model;
  }
  mcModel* m = loadViewed(file, replay ? &rec : NULL, replay);
  if (m) {
    m->opt.enableflags |= mcENBL_ENERGY;   // for the energy plot
  }
  mcData* d = m ? mc_makeData(m) : NULL;
  if (!d) {
    if (m) {
      cli_error("could not allocate data for %s", file);
    }
    mc_deleteModel(m);
    rec_free(&rec);
    return CLI_FAIL;
  }
  opt.replay = rec.frames;
  opt.nreplay = rec.nframe;
  char namebuf[PATH_MAX];
  snprintf(namebuf, sizeof(namebuf), "%s", file);
  opt.model_name = basename(namebuf);

  // Ctrl-C / SIGTERM stop the loop; a client vanishing mid-write must not kill the process
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  int rc = mcv_serve(m, &d, &opt, &g_stop) ? CLI_FAIL : CLI_OK;
  if (rc == CLI_OK) {
    fprintf(stderr, "moduco view: stopped\n");
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  rec_free(&rec);
  return rc;
}

#else

int cmd_view(int argc, char** argv) {
  cli_error("this moduco was built without the viewer (civetweb or three.js were missing at "
            "configure time: run scripts/setup-debian.sh and configure again)");
  return CLI_FAIL;
}

#endif
