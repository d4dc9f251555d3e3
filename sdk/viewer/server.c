// Moduco viewer: the civetweb server and the real-time simulation loop of `moduco view`.
//
// Threads: civetweb's workers run the HTTP and WebSocket handlers; the caller's thread runs the
// simulation (the only one touching mcData). They share the control block (ctl_lock) and the
// client list (send_lock). Lock order: ctl_lock, then send_lock. Messages to a client go through
// its outbox (outbox.c): a bounded queue written by the client's own thread, so a client that
// stops reading loses frames but stalls neither the simulation nor the other clients.
// The simulation holds ctl_lock for each whole iteration (requests, steps, frame) and releases it
// only to sleep, so a request is applied and acknowledged between iterations: once a client has
// read the acknowledgement of "pause", no pose frame follows until a step or reset, and the last
// frame it received shows the state it is paused in.
#include "viewer.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <civetweb.h>

#include "assets.h"
#include "outbox.h"
#include "protocol.h"
#include "swap.h"

#define MAXCLIENT 8               // WebSocket clients served at once
#define MINSLEEP 1e-4             // seconds the simulation sleeps at least between iterations

typedef struct {
  const mcModel* m;
  mcModel* mw;                    // the same model, changed only by a solver/integrator swap
  mcData* d;                      // the data (replaced by a swap; both under ctl_lock)
  const mcvOptions* opt;
  mcvAsset* assets;
  char* description;              // GET /model.json
  size_t description_len;

  pthread_mutex_t ctl_lock;       // the requests below
  int paused;
  double speed;
  int reset;                      // reset requested
  int reset_key;                  // keyframe to reset to; -1: the default state
  int nstep;                      // steps requested (while paused)
  int need_frame;                 // send one frame even if paused (new client)
  double* ctrl;                   // controls asked for (nu), applied where ctrl_set
  unsigned char* ctrl_set;
  long seek;                      // replay: frame asked for (-1: none)
  int loop;                       // replay: loop at the end
  int contacts;                   // send the contacts after each pose frame
  mcvPerturb perturb;             // the mouse's spring (body 0: none)
  int perturbed;                  // the body whose xfrc_applied the spring set last
  uint8_t* conbuf;                // their message (mcv_contactsCapacity bytes)

  mcModel* mb;                    // A/B mode: copy B of the model (its own solver and
  mcData* db;                     // integrator) and its data; NULL when off (under ctl_lock)
  int perturbed_b;                // as perturbed, for copy B
  uint8_t* frame_b;               // copy B's pose frame

  pthread_mutex_t send_lock;      // the client list
  mcvOutbox* clients[MAXCLIENT];
  int nclient;

  int warn_seen[mcNWARNING];      // warning counts already reported (simulation thread only)
} Viewer;


// monotonic wall clock in seconds
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


// sleep until the monotonic time t (returns early on a signal)
static void sleepUntil(double t) {
  double dt = t - now();
  if (dt > 0) {
    struct timespec s = {(time_t)dt, (long)((dt - floor(dt)) * 1e9)};
    nanosleep(&s, NULL);
  }
}


// queue a text message to one client (send_lock taken here)
static void sendText(Viewer* v, const struct mg_connection* conn, const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n <= 0) {
    return;
  }
  pthread_mutex_lock(&v->send_lock);
  for (int i = 0; i < v->nclient; i++) {
    if (mcv_outboxConnection(v->clients[i]) == conn) {
      mcv_outboxPush(v->clients[i], MG_WEBSOCKET_OPCODE_TEXT, buf,
                     (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
    }
  }
  pthread_mutex_unlock(&v->send_lock);
}


// ---------------------------------------------------------------------------------------------
// HTTP: the fixed assets and the model description, nothing else

static int onRequest(struct mg_connection* conn, void* cbdata) {
  Viewer* v = cbdata;
  const struct mg_request_info* ri = mg_get_request_info(conn);
  int head = !strcmp(ri->request_method, "HEAD");
  if (!head && strcmp(ri->request_method, "GET")) {
    mg_send_http_error(conn, 405, "only GET and HEAD are served\n");
    return 405;
  }
  const char* body = NULL;
  size_t len = 0;
  const char* mime = NULL;
  if (!strcmp(ri->local_uri, "/model.json")) {
    body = v->description;
    len = v->description_len;
    mime = "application/json";
  } else {
    const mcvAsset* a = mcv_findAsset(v->assets, ri->local_uri);
    if (!a) {
      mg_send_http_error(conn, 404, "not found: the viewer serves only its own page\n");
      return 404;
    }
    body = a->data;
    len = a->size;
    mime = a->mime;
  }
  mg_send_http_ok(conn, mime, (long long)len);
  if (!head) {
    mg_write(conn, body, len);
  }
  return 200;
}


// ---------------------------------------------------------------------------------------------
// WebSocket: clients, control messages

static int onConnect(const struct mg_connection* conn, void* cbdata) {
  Viewer* v = cbdata;
  pthread_mutex_lock(&v->send_lock);
  int full = v->nclient >= MAXCLIENT;
  pthread_mutex_unlock(&v->send_lock);
  if (full) {
    fprintf(stderr, "moduco view: refused a client: %d already connected\n", MAXCLIENT);
  }
  return full;
}


static void onReady(struct mg_connection* conn, void* cbdata) {
  Viewer* v = cbdata;
  char name[512];
  mcv_jsonEscape(v->opt->model_name, name, sizeof(name));
  mcvOutbox* box = mcv_outboxOpen(conn);
  if (!box) {
    return;
  }
  pthread_mutex_lock(&v->ctl_lock);
  pthread_mutex_lock(&v->send_lock);
  int added = v->nclient < MAXCLIENT;
  if (added) {
    v->clients[v->nclient++] = box;
  }
  pthread_mutex_unlock(&v->send_lock);
  if (added) {
    char solvers[400], integrators[400];
    mcv_pluginList("solver", solvers, sizeof(solvers));
    mcv_pluginList("integrator", integrators, sizeof(integrators));
    const mcModel* mb = v->mb ? v->mb : v->m;
    sendText(v, conn, "{\"type\":\"hello\",\"model\":\"%s\",\"paused\":%s,\"speed\":%.17g,"
             "\"fps\":%g,\"replay\":%s,\"frames\":%ld,\"loop\":%s,\"solver\":\"%s\","
             "\"integrator\":\"%s\",\"solvers\":%s,\"integrators\":%s,\"ab\":%s,"
             "\"solver_b\":\"%s\",\"integrator_b\":\"%s\"}", name,
             v->paused ? "true" : "false", v->speed, v->opt->fps,
             v->opt->replay ? "true" : "false", v->opt->nreplay, v->loop ? "true" : "false",
             mcv_solverName(v->m), mcv_integratorName(v->m), solvers, integrators,
             v->mb ? "true" : "false", mcv_solverName(mb), mcv_integratorName(mb));
    v->need_frame = 1;
  }
  pthread_mutex_unlock(&v->ctl_lock);
  if (!added) {
    mcv_outboxClose(box);
  }
}


static void onClose(const struct mg_connection* conn, void* cbdata) {
  Viewer* v = cbdata;
  mcvOutbox* box = NULL;
  pthread_mutex_lock(&v->send_lock);
  for (int i = 0; i < v->nclient; i++) {
    if (mcv_outboxConnection(v->clients[i]) == conn) {
      box = v->clients[i];
      v->clients[i] = v->clients[--v->nclient];
      break;
    }
  }
  pthread_mutex_unlock(&v->send_lock);
  mcv_outboxClose(box);             // waits for a write in progress, outside the list's lock
}


// reject a message: error reply to the client and a line on stderr
static void reject(Viewer* v, struct mg_connection* conn, const char* why) {
  char esc[600];
  mcv_jsonEscape(why, esc, sizeof(esc));
  fprintf(stderr, "moduco view: rejected a control message: %s\n", why);
  sendText(v, conn, "{\"type\":\"error\",\"error\":\"%s\"}", esc);
}


// apply a parsed command to the control block and acknowledge it (ctl_lock held)
static void apply(Viewer* v, struct mg_connection* conn, const mcvCommand* c) {
  switch (c->type) {
    case MCV_CMD_PAUSE:
      v->paused = 1;
      break;
    case MCV_CMD_PLAY:
      v->paused = 0;
      break;
    case MCV_CMD_STEP:
      v->paused = 1;
      v->nstep += c->nstep;
      if (v->nstep > MCV_MAXSTEPS) {
        v->nstep = MCV_MAXSTEPS;
      }
      break;
    case MCV_CMD_RESET:
      memset(v->ctrl_set, 0, (size_t)v->m->nu);   // controls asked before are reset too
      v->perturb.body = 0;                         // and the mouse lets go
      v->reset = 1;
      v->reset_key = c->key;
      v->nstep = 0;
      break;
    case MCV_CMD_SPEED:
      v->speed = c->speed;
      break;
    case MCV_CMD_CTRL:
      v->ctrl[c->index] = c->value;
      v->ctrl_set[c->index] = 1;
      break;
    case MCV_CMD_SEEK:
      v->paused = 1;
      v->seek = c->frame;
      v->nstep = 0;
      break;
    case MCV_CMD_LOOP:
      v->loop = c->loop;
      v->need_frame = 1;                  // the next position message reports it
      break;
    case MCV_CMD_PERTURB:
      v->perturb = c->perturb;
      break;
    case MCV_CMD_SOLVER:
    case MCV_CMD_INTEGRATOR: {
      // the simulation waits for ctl_lock, so the model and data can be swapped here
      char err[512];
      if (c->copy && !v->mb) {
        reject(v, conn, "copy \"b\" needs the A/B mode ({\"cmd\":\"ab\",\"value\":true})");
        return;
      }
      if (mcv_swapPlugin(c->copy ? v->mb : v->mw, c->copy ? &v->db : &v->d,
                         c->type == MCV_CMD_INTEGRATOR, c->name, err, sizeof(err))) {
        reject(v, conn, err);
        return;
      }
      *(c->copy ? &v->perturbed_b : &v->perturbed) = 0;
      v->need_frame = 1;
      break;
    }
    case MCV_CMD_AB: {
      // on: copy B starts from A's state now (same plugins until changed); off: B is dropped
      char err[512];
      if (c->loop && !v->mb && mcv_startCopy(v->m, v->d, &v->mb, &v->db, err, sizeof(err))) {
        reject(v, conn, err);
        return;
      }
      if (!c->loop) {
        mc_deleteData(v->db);
        mc_deleteModel(v->mb);
        v->db = NULL;
        v->mb = NULL;
      }
      v->perturbed_b = 0;
      v->need_frame = 1;
      break;
    }
    case MCV_CMD_CONTACTS:
      v->contacts = c->loop;
      v->need_frame = 1;                  // the contacts of the state shown now
      break;
  }
  sendText(v, conn, "{\"type\":\"ack\",\"cmd\":\"%s\",\"paused\":%s,\"speed\":%.17g,"
           "\"ab\":%s}", mcv_cmdName(c->type), v->paused ? "true" : "false", v->speed,
           v->mb ? "true" : "false");
}


// a command that does not fit the mode (live or replay): the reason, else NULL
static const char* replayConflict(const Viewer* v, const mcvCommand* c) {
  int replay = v->opt->replay != NULL;
  if (replay && c->type == MCV_CMD_CONTACTS) {
    return "contacts: a recording holds no contacts";
  }
  if (replay && (c->type == MCV_CMD_SOLVER || c->type == MCV_CMD_INTEGRATOR ||
                 c->type == MCV_CMD_AB)) {
    return "a recording is played: there is no solver or integrator to choose";
  }
  if (replay && c->type == MCV_CMD_PERTURB) {
    return "perturb: a recording is played, forces cannot change it";
  }
  if (!replay && (c->type == MCV_CMD_SEEK || c->type == MCV_CMD_LOOP)) {
    return "seek and loop need a recording (moduco view --replay FILE)";
  }
  if (replay && c->type == MCV_CMD_CTRL) {
    return "ctrl: a recording is played, controls cannot change it";
  }
  if (replay && c->type == MCV_CMD_RESET && c->key >= 0) {
    return "reset: a recording is played, keyframes cannot be loaded";
  }
  if (replay && c->type == MCV_CMD_SEEK && c->frame >= v->opt->nreplay) {
    return "seek: \"frame\" is past the last recorded frame";
  }
  return NULL;
}


static int onData(struct mg_connection* conn, int bits, char* data, size_t len, void* cbdata) {
  Viewer* v = cbdata;
  int opcode = bits & 0xf;
  if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) {
    return 0;
  }
  if (opcode == MG_WEBSOCKET_OPCODE_PING || opcode == MG_WEBSOCKET_OPCODE_PONG) {
    return 1;
  }
  if (opcode != MG_WEBSOCKET_OPCODE_TEXT) {
    reject(v, conn, opcode == MG_WEBSOCKET_OPCODE_BINARY
                        ? "binary messages are not accepted (send JSON text)"
                        : "fragmented or unknown WebSocket frames are not accepted");
    return 1;
  }
  // parsed under ctl_lock too: the model is read, and a solver swap in another handler may be
  // rewriting it
  mcvCommand c;
  char err[512];
  pthread_mutex_lock(&v->ctl_lock);
  const char* why = NULL;
  if (mcv_parseCommand(data, len, v->m, &c, err, sizeof(err))) {
    why = err;
  } else {
    why = replayConflict(v, &c);
  }
  if (why) {
    reject(v, conn, why);
  } else {
    apply(v, conn, &c);
  }
  pthread_mutex_unlock(&v->ctl_lock);
  return 1;
}


// ---------------------------------------------------------------------------------------------
// start, simulate, stop

// start civetweb on opt->bind:opt->port; print the URL
static struct mg_context* startServer(Viewer* v) {
  char ports[300];
  snprintf(ports, sizeof(ports), "%s:%d", v->opt->bind, v->opt->port);
  const char* options[] = {"listening_ports", ports, "num_threads", "16",
                           "enable_websocket_ping_pong", "yes", "websocket_timeout_ms", "30000",
                           NULL};
  struct mg_callbacks cb;
  memset(&cb, 0, sizeof(cb));
  struct mg_init_data init = {&cb, v, options};
  char text[512] = "";
  unsigned code = 0;
  struct mg_error_data error = {&code, text, sizeof(text)};
  struct mg_context* ctx = mg_start2(&init, &error);
  if (!ctx) {
    fprintf(stderr, "moduco view: cannot listen on %s: %s\n", ports,
            text[0] ? text : "civetweb could not start");
    return NULL;
  }
  mg_set_request_handler(ctx, "/", onRequest, v);
  mg_set_websocket_handler(ctx, "/ws", onConnect, onReady, onData, onClose, v);
  struct mg_server_port port[4];
  int n = mg_get_server_ports(ctx, 4, port);
  printf("moduco view: serving %s on http://%s:%d/  (Ctrl-C to stop)\n", v->opt->model_name,
         v->opt->bind, n > 0 ? port[0].port : v->opt->port);
  fflush(stdout);
  return ctx;
}


// queue one message to every client (send_lock taken here)
static void sendAll(Viewer* v, int opcode, const char* data, size_t len) {
  pthread_mutex_lock(&v->send_lock);
  for (int i = 0; i < v->nclient; i++) {
    mcv_outboxPush(v->clients[i], opcode, data, len);
  }
  pthread_mutex_unlock(&v->send_lock);
}


// one message of a frame group
typedef struct {
  int opcode;
  const void* data;
  size_t len;
} Message;

// queue a frame group (poses and what goes with them) to every client whose queue has room;
// the others lose the whole group, so a client never gets a pose without its statistics
static void sendGroup(Viewer* v, const Message* msg, int n) {
  pthread_mutex_lock(&v->send_lock);
  for (int i = 0; i < v->nclient; i++) {
    if (mcv_outboxAccepts(v->clients[i])) {
      for (int k = 0; k < n; k++) {
        mcv_outboxPush(v->clients[i], msg[k].opcode, msg[k].data, msg[k].len);
      }
    }
  }
  pthread_mutex_unlock(&v->send_lock);
}


// copy the controls asked for into d (ctl_lock held; after a reset, so a reset never undoes a
// later control); the caller clears ctrl_set once every copy has them
static void applyControls(Viewer* v, mcData* d) {
  for (int i = 0; i < v->m->nu; i++) {
    if (v->ctrl_set[i]) {
      d->ctrl[i] = v->ctrl[i];
    }
  }
}


// send the warnings raised since the last call to every client (counts that went down, after a
// reset, are just noted)
static void reportWarnings(Viewer* v, const mcData* d) {
  for (int i = 0; i < mcNWARNING; i++) {
    int n = d->warning[i].number;
    if (n > v->warn_seen[i]) {
      char msg[700];
      int len = mcv_warningMessage(i, n, d->warning[i].lastinfo, msg, sizeof(msg));
      sendAll(v, MG_WEBSOCKET_OPCODE_TEXT, msg, (size_t)len);
    }
    v->warn_seen[i] = n;
  }
}


// the solver's residual after the last step: the last iteration's gradient norm (primal
// solvers), or its cost improvement when the solver records no gradient (PGS); 0 if no iteration
static double residual(const mcData* d) {
  int n = d->solver_iter < mcNSOLVER ? d->solver_iter : mcNSOLVER;
  if (n <= 0) {
    return 0;
  }
  const mcSolverStat* s = &d->solver[n - 1];
  double r = s->gradient > 0 ? s->gradient : fabs(s->improvement);
  return isfinite(r) ? r : 0;
}


// the statistics of the last step for the plots into buf: energy, solver iterations and
// residual, contacts, wall time per step (0 when no step was taken since the last frame); copy
// "a", or "b" in the A/B mode. Returns the length (0 if it did not fit).
static size_t formatStats(const mcModel* m, const mcData* d, double steptime, const char* copy,
                          char* buf, size_t bufsz) {
  double e = d->energy[0] + d->energy[1];
  int n = snprintf(buf, bufsz, "{\"type\":\"stats\",\"copy\":\"%s\",\"time\":%.17g,"
                   "\"energy\":%.9g,\"iter\":%d,\"residual\":%.6g,\"ncon\":%d,"
                   "\"steptime\":%.6g,\"solver\":\"%s\",\"integrator\":\"%s\"}", copy, d->time,
                   isfinite(e) ? e : 0.0, d->solver_iter, residual(d), d->ncon, steptime,
                   mcv_solverName(m), mcv_integratorName(m));
  return n > 0 && (size_t)n < bufsz ? (size_t)n : 0;
}


// one step of copy A, and of copy B in the A/B mode, each with the mouse's spring; their wall
// times are added to busy[0], busy[1]
static void stepCopies(Viewer* v, double busy[2]) {
  double t0 = now();
  mcv_applyPerturb(v->m, v->d, &v->perturb, &v->perturbed);
  mc_step(v->m, v->d);
  double t1 = now();
  busy[0] += t1 - t0;
  if (v->mb) {
    mcv_applyPerturb(v->mb, v->db, &v->perturb, &v->perturbed_b);
    mc_step(v->mb, v->db);
    busy[1] += now() - t1;
  }
}


// reset one copy (to keyframe key, or the default state with key -1)
static void resetCopy(const mcModel* m, mcData* d, int key) {
  if (key >= 0) {
    mc_resetDataKeyframe(m, d, key);
  } else {
    mc_resetData(m, d);
  }
  mc_forward(m, d);
}


// send the frame group of the current state: pose frame and stats of A, then of B in the A/B
// mode, then the contacts of A when asked (kinematics already run)
static void sendFrames(Viewer* v, uint8_t* frame, size_t framesize, double rtf, int paused,
                       const double busy[2], long steps) {
  char stats[2][512];
  Message msg[5];
  int n = 0;
  mcv_encodeFrame(v->m, v->d, rtf, paused, frame);
  msg[n++] = (Message){MG_WEBSOCKET_OPCODE_BINARY, frame, framesize};
  msg[n++] = (Message){MG_WEBSOCKET_OPCODE_TEXT, stats[0],
                       formatStats(v->m, v->d, steps ? busy[0] / (double)steps : 0.0, "a",
                                   stats[0], sizeof(stats[0]))};
  if (v->mb) {
    mcv_encodeFrameB(v->mb, v->db, rtf, paused, v->frame_b);
    msg[n++] = (Message){MG_WEBSOCKET_OPCODE_BINARY, v->frame_b, framesize};
    msg[n++] = (Message){MG_WEBSOCKET_OPCODE_TEXT, stats[1],
                         formatStats(v->mb, v->db, steps ? busy[1] / (double)steps : 0.0, "b",
                                     stats[1], sizeof(stats[1]))};
  }
  if (v->contacts) {
    msg[n++] = (Message){MG_WEBSOCKET_OPCODE_BINARY, v->conbuf,
                         mcv_encodeContacts(v->m, v->d, v->conbuf)};
  }
  sendGroup(v, msg, n);
}


// the simulation loop: one iteration per display frame
static void simulate(Viewer* v, uint8_t* frame, size_t framesize, volatile sig_atomic_t* stop) {
  const mcModel* m = v->m;
  double period = 1.0 / v->opt->fps;
  double dt = m->opt.timestep;
  double simclock = 0, anchor_wall = now(), anchor_sim = 0, speed = -1;
  double rtf = 0, rtf_wall = anchor_wall, rtf_sim = 0;
  int was_paused = 1;
  while (!*stop) {
    double t0 = now();

    // the whole iteration but the sleep holds ctl_lock: a request lands between two
    // iterations, after the frame of the last steps was sent
    pthread_mutex_lock(&v->ctl_lock);
    int reset = v->reset, key = v->reset_key, nstep = v->nstep, paused = v->paused;
    double want = v->speed;
    v->reset = 0;
    v->nstep = 0;
    int changed = reset || nstep > 0;
    if (reset) {
      resetCopy(v->m, v->d, key);
      if (v->mb) {
        resetCopy(v->mb, v->db, key);
      }
    }
    applyControls(v, v->d);
    if (v->mb) {
      applyControls(v, v->db);
    }
    memset(v->ctrl_set, 0, (size_t)m->nu);
    double busy[2] = {0, 0};
    long steps_done = nstep;
    for (int i = 0; i < nstep; i++) {
      stepCopies(v, busy);
      simclock += dt;
    }

    // real time: step up to the wall clock times the speed, within one frame's budget
    if (paused || was_paused || want != speed || reset) {
      anchor_wall = t0;
      anchor_sim = simclock;
      speed = want;
    }
    was_paused = paused;
    if (!paused && dt > 0) {
      double target = anchor_sim + (t0 - anchor_wall) * speed;
      while (simclock + 0.5 * dt < target && !*stop && now() - t0 < period) {
        stepCopies(v, busy);
        simclock += dt;
        steps_done++;
      }
      // slower than asked: keep at most one frame of debt, so it runs as fast as it can
      // without sleeping and without a burst when it could catch up
      if (target - simclock > speed * period) {
        anchor_wall = t0;
        anchor_sim = simclock + speed * period;
      }
    }

    reportWarnings(v, v->d);

    // real-time factor over half-second windows
    if (t0 - rtf_wall >= 0.5) {
      rtf = (simclock - rtf_sim) / (t0 - rtf_wall);
      rtf_wall = t0;
      rtf_sim = simclock;
    }

    // poses of the current qpos, sent unless paused (then only after a change)
    mc_kinematics(m, v->d);
    if (v->mb) {
      mc_kinematics(v->mb, v->db);
    }
    if (!paused || changed || v->need_frame) {
      sendFrames(v, frame, framesize, paused ? 0.0 : rtf, paused, busy, steps_done);
      v->need_frame = 0;
    }
    pthread_mutex_unlock(&v->ctl_lock);

    // sleep to the next frame, and always a little: a handler waiting for ctl_lock gets it
    // even when the model steps slower than asked
    double wake = t0 + period;
    sleepUntil(wake > now() + MINSLEEP ? wake : now() + MINSLEEP);
  }
}


// put recorded frame k into d (time, qpos) and run kinematics
static void showRecorded(Viewer* v, mcData* d, long k) {
  const double* f = v->opt->replay + k * (1 + (long)v->m->nq);
  d->time = f[0];
  memcpy(d->qpos, f + 1, sizeof(double) * (size_t)v->m->nq);
  mc_kinematics(v->m, d);
}


// the replay loop: a play head in recorded frames (one per timestep of the recording) moves at
// the speed asked for; pause, step (frames), reset (to frame 0), seek and loop act on it
static void playback(Viewer* v, uint8_t* frame, size_t framesize, volatile sig_atomic_t* stop) {
  mcData* d = v->d;
  double period = 1.0 / v->opt->fps;
  long last = v->opt->nreplay - 1;
  double head = 0, wall = now();
  long shown = -1;
  while (!*stop) {
    double t0 = now();
    pthread_mutex_lock(&v->ctl_lock);
    int changed = v->reset || v->seek >= 0 || v->nstep > 0;
    if (v->reset) {
      head = 0;
    }
    if (v->seek >= 0) {
      head = (double)v->seek;
    }
    head += v->nstep;
    v->reset = 0;
    v->seek = -1;
    v->nstep = 0;
    if (!v->paused) {
      head += (t0 - wall) * v->speed / v->m->opt.timestep;
    }
    wall = t0;
    if (head > last) {
      if (v->loop && last > 0 && !v->paused) {
        head = fmod(head, (double)(last + 1));
      } else {
        head = (double)last;
        v->paused = 1;                     // the end of the recording: stop there
        changed = changed || shown != last;
      }
    }
    long k = (long)head;
    if (!v->paused || changed || v->need_frame) {
      showRecorded(v, d, k);
      char pos[160];
      int n = snprintf(pos, sizeof(pos), "{\"type\":\"replay\",\"frame\":%ld,\"frames\":%ld,"
                       "\"loop\":%s}", k, last + 1, v->loop ? "true" : "false");
      mcv_encodeFrame(v->m, d, v->paused ? 0.0 : v->speed, v->paused, frame);
      Message msg[2] = {{MG_WEBSOCKET_OPCODE_TEXT, pos, (size_t)n},
                        {MG_WEBSOCKET_OPCODE_BINARY, frame, framesize}};
      sendGroup(v, msg, 2);
      v->need_frame = 0;
      shown = k;
    }
    pthread_mutex_unlock(&v->ctl_lock);
    double wake = t0 + period;
    sleepUntil(wake > now() + MINSLEEP ? wake : now() + MINSLEEP);
  }
}


int mcv_serve(mcModel* m, mcData** dp, const mcvOptions* opt, volatile sig_atomic_t* stop) {
  if (!(opt->fps > 0 && opt->fps <= 1000)) {
    fprintf(stderr, "moduco view: frame rate %g out of range (0, 1000]\n", opt->fps);
    return -1;
  }
  Viewer* v = calloc(1, sizeof(Viewer));
  size_t framesize = mcv_frameSize(m->nbody);
  uint8_t* frame = malloc(framesize);
  double* ctrl = calloc((size_t)m->nu + 1, sizeof(double));
  unsigned char* ctrl_set = calloc((size_t)m->nu + 1, 1);
  uint8_t* conbuf = malloc(mcv_contactsCapacity());
  uint8_t* frame_b = malloc(framesize);
  if (!v || !frame || !ctrl || !ctrl_set || !conbuf || !frame_b) {
    fprintf(stderr, "moduco view: out of memory\n");
    free(v);
    free(frame);
    free(ctrl);
    free(ctrl_set);
    free(conbuf);
    free(frame_b);
    return -1;
  }
  v->conbuf = conbuf;
  v->frame_b = frame_b;
  v->ctrl = ctrl;
  v->ctrl_set = ctrl_set;
  v->m = m;
  v->mw = m;
  v->d = *dp;
  v->opt = opt;
  v->paused = opt->paused;
  v->speed = 1.0;
  v->seek = -1;
  v->loop = 1;
  pthread_mutex_init(&v->ctl_lock, NULL);
  pthread_mutex_init(&v->send_lock, NULL);

  int rc = -1;
  struct mg_context* ctx = NULL;
  v->assets = mcv_loadAssets(opt->asset_dir);
  v->description = v->assets ? mcv_describeModel(m, opt->model_name) : NULL;
  if (v->assets && !v->description) {
    fprintf(stderr, "moduco view: out of memory describing the model\n");
  }
  if (v->description) {
    v->description_len = strlen(v->description);
    mg_init_library(0);
    ctx = startServer(v);
    if (ctx) {
      if (opt->replay) {
        playback(v, frame, framesize, stop);
      } else {
        mc_forward(m, v->d);
        simulate(v, frame, framesize, stop);
      }
      mg_stop(ctx);
      rc = 0;
    }
    mg_exit_library();
  }
  *dp = v->d;
  mc_deleteData(v->db);
  mc_deleteModel(v->mb);
  pthread_mutex_destroy(&v->ctl_lock);
  pthread_mutex_destroy(&v->send_lock);
  free(v->description);
  mcv_freeAssets(v->assets);
  free(frame);
  free(ctrl);
  free(ctrl_set);
  free(conbuf);
  free(frame_b);
  free(v);
  return rc;
}
