// Recordings: `moduco run MODEL --record FILE` writes the documented format (docs/viewer.md,
// "Recordings") with exactly the states of the simulation, refuses paths it cannot write, and
// `moduco view --replay FILE` plays it back: its pose frames are the recorded poses, bit for bit
// (as float32), with seek, step, loop and the end of the recording.
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <civetweb.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "viewer_client.h"

#define HUMANOID MODUCO_SOURCE_DIR "/models/humanoid.xml"
#define PENDULUM MODUCO_SOURCE_DIR "/models/pendulum.xml"
#define NSTEP 100

// run `moduco ARGS`, stderr into err (NUL-terminated); return the exit status
static int runMoDuco(const char* args, char* err, size_t errsz) {
  char tmp[] = "/tmp/moduco_replay_errXXXXXX";
  int fd = mkstemp(tmp);
  cr_assert_geq(fd, 0);
  close(fd);
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "timeout 60 '%s' %s >/dev/null 2>'%s'", MODUCO_CLI, args, tmp);
  int status = system(cmd);
  FILE* f = fopen(tmp, "r");
  size_t n = f ? fread(err, 1, errsz - 1, f) : 0;
  err[n] = 0;
  if (f) {
    fclose(f);
  }
  unlink(tmp);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// record NSTEP steps of model into a new temporary file (its name in path)
static void record(const char* model, char* path) {
  strcpy(path, "/tmp/moduco_replay_XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  char args[2048], err[4096];
  snprintf(args, sizeof(args), "run '%s' --steps %d --record '%s'", model, NSTEP, path);
  cr_assert_eq(runMoDuco(args, err, sizeof(err)), 0, "moduco %s failed: %s", args, err);
}

// read a whole file
static unsigned char* slurp(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  cr_assert_not_null(f, "open %s", path);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* b = malloc(*size + 1);
  cr_assert_eq(fread(b, 1, *size, f), *size);
  fclose(f);
  return b;
}

// the simulation of model in this process: NSTEP + 1 states (time, qpos), as recorded
static double* simulate(const char* model, mcModel** mout) {
  char err[512];
  mcModel* m = mc_loadXML(model, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  m->opt.enableflags |= mcENBL_ENERGY;   // as moduco run
  mcData* d = mc_makeData(m);
  size_t w = 1 + (size_t)m->nq;
  double* s = malloc(sizeof(double) * w * (NSTEP + 1));
  for (int k = 0; k <= NSTEP; k++) {
    if (k) {
      mc_step(m, d);
    }
    s[w * k] = d->time;
    memcpy(s + w * k + 1, d->qpos, sizeof(double) * (size_t)m->nq);
  }
  mc_deleteData(d);
  *mout = m;
  return s;
}


Test(record, format_holds_the_simulated_states) {
  char path[64];
  record(HUMANOID, path);
  mcModel* m;
  double* want = simulate(HUMANOID, &m);
  size_t size;
  unsigned char* b = slurp(path, &size);
  cr_assert_geq(size, 24u);
  cr_expect(!memcmp(b, "MCREC001", 8), "magic");
  uint32_t nq, len;
  double dt;
  memcpy(&nq, b + 8, 4);             // the test machine is little-endian, as the format
  memcpy(&dt, b + 12, 8);
  memcpy(&len, b + 20, 4);
  cr_expect_eq((int)nq, m->nq);
  cr_expect_eq(dt, m->opt.timestep);
  char full[PATH_MAX];
  cr_assert_not_null(realpath(HUMANOID, full));
  cr_expect(len == strlen(full) && !memcmp(b + 24, full, len), "the model's absolute path");
  size_t w = 8 * (1 + (size_t)nq);
  cr_assert_eq(size, 24 + len + w * (NSTEP + 1), "one frame per step and the initial state");
  cr_expect(!memcmp(b + 24 + len, want, w * (NSTEP + 1)),
            "recorded times and qpos equal the simulation's, bit for bit");
  free(b);
  free(want);
  mc_deleteModel(m);
  unlink(path);
}

Test(record, bad_paths_are_refused) {
  char err[4096];
  cr_expect_eq(runMoDuco("run " PENDULUM " --steps 5 --record /nonexistent/dir/x.rec", err,
                         sizeof(err)), 1);
  cr_expect(strstr(err, "/nonexistent/dir/x.rec") && strstr(err, "No such file"), "%s", err);
  cr_expect_eq(runMoDuco("run " PENDULUM " --steps 5 --record /tmp", err, sizeof(err)), 1);
  cr_expect(strstr(err, "directory"), "%s", err);
  // a full device: the write error is found and reported, the run fails
  cr_expect_eq(runMoDuco("run " PENDULUM " --steps 2000 --record /dev/full", err, sizeof(err)),
               1);
  cr_expect(strstr(err, "/dev/full") && strstr(err, "No space"), "%s", err);
  cr_expect_eq(runMoDuco("run " PENDULUM " --record", err, sizeof(err)), 2, "no file name");
}

Test(record, bad_recordings_are_refused) {
  char path[64], err[4096], args[2048];
  record(PENDULUM, path);
  // a recording of another model (nq differs)
  snprintf(args, sizeof(args), "view " HUMANOID " --port 0 --replay '%s'", path);
  cr_expect_eq(runMoDuco(args, err, sizeof(err)), 1);
  cr_expect(strstr(err, "nq="), "%s", err);
  // cut in the middle of a frame
  cr_assert_eq(truncate(path, 24 + 5), 0);
  snprintf(args, sizeof(args), "view --port 0 --replay '%s'", path);
  cr_expect_eq(runMoDuco(args, err, sizeof(err)), 1);
  cr_expect(strstr(err, path), "%s", err);
  // not a recording
  snprintf(args, sizeof(args), "view --port 0 --replay " PENDULUM);
  cr_expect_eq(runMoDuco(args, err, sizeof(err)), 1);
  cr_expect(strstr(err, "not a moduco recording"), "%s", err);
  cr_expect_eq(runMoDuco("view --port 0 --replay /nonexistent.rec", err, sizeof(err)), 1);
  unlink(path);
}


// ---------------------------------------------------------------------------------------------
// replay over the WebSocket

// the next text message of type type, parsed
static cJSON* nextOfType(WsClient* c, const char* type) {
  cJSON* j = ws_nextOfType(c, type, NULL, 5);
  cr_assert_not_null(j, "no %s message within 5 s", type);
  return j;
}

static int intOf(const cJSON* j, const char* key) {
  return cJSON_GetObjectItem(j, key)->valueint;
}

static void sendText(WsClient* c, const char* text) {
  cr_assert_gt(ws_send(c, 1, text, strlen(text)), 0);
}

// the next replay position and its pose frame; check the poses against frame k of want
static int nextShown(WsClient* c, const mcModel* m, mcData* d, const double* want) {
  cJSON* pos = nextOfType(c, "replay");
  int k = intOf(pos, "frame");
  cJSON_Delete(pos);
  WsMessage f;
  cr_assert(ws_nextBinary(c, &f, 5), "a pose frame after the position");
  cr_assert(k >= 0 && k <= NSTEP);
  cr_assert_eq(f.len, 32u + 28u * (unsigned)m->nbody);
  const double* s = want + k * (1 + m->nq);
  d->time = s[0];
  memcpy(d->qpos, s + 1, sizeof(double) * (size_t)m->nq);
  mc_kinematics(m, d);
  double t;
  memcpy(&t, f.data + 8, 8);
  cr_expect_eq(t, s[0], "frame %d: time", k);
  for (int b = 0; b < m->nbody; b++) {
    float p[7];
    memcpy(p, f.data + 32 + 28 * b, 28);
    for (int i = 0; i < 7; i++) {
      float e = (float)(i < 3 ? d->xpos[3 * b + i] : d->xquat[4 * b + i - 3]);
      cr_expect(!memcmp(&p[i], &e, 4), "frame %d body %d value %d: %g, recorded pose %g", k, b, i,
                (double)p[i], (double)e);
    }
  }
  free(f.data);
  return k;
}

// send text and wait for its reply of type type ("ack" or "error"; the other kind is skipped,
// so a wrong reply fails by timeout)
static void expectReply(WsClient* c, const char* text, const char* type) {
  sendText(c, text);
  cJSON_Delete(nextOfType(c, type));
}

Test(replay, reproduces_the_recorded_poses, .timeout = 120) {
  char path[64];
  record(HUMANOID, path);
  mcModel* m;
  double* want = simulate(HUMANOID, &m);
  mcData* d = mc_makeData(m);
  mg_init_library(0);
  ViewServer s;
  char extra[256];
  snprintf(extra, sizeof(extra), "--replay '%s'", path);
  // no MODEL on the command line: the recording names it ("--paused" stands in its place)
  cr_assert_eq(vs_start(&s, "--paused", extra, 20), 0, "moduco view --replay did not start");
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  cJSON* hello = nextOfType(c, "hello");
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(hello, "replay")), "hello says replay");
  cr_expect_eq(intOf(hello, "frames"), NSTEP + 1);
  cJSON_Delete(hello);
  cr_expect_eq(nextShown(c, m, d, want), 0, "the first frame shown when connecting");

  // seek and step show exactly the recorded frames
  const int at[] = {37, 0, 100, 64};
  for (int i = 0; i < 4; i++) {
    char msg[64];
    snprintf(msg, sizeof(msg), "{\"cmd\":\"seek\",\"frame\":%d}", at[i]);
    sendText(c, msg);
    cr_expect_eq(nextShown(c, m, d, want), at[i], "seek to %d", at[i]);
  }
  sendText(c, "{\"cmd\":\"step\",\"n\":3}");
  cr_expect_eq(nextShown(c, m, d, want), 67, "step 3 frames");
  sendText(c, "{\"cmd\":\"reset\"}");
  cr_expect_eq(nextShown(c, m, d, want), 0, "reset to the first frame");

  // what a replay cannot do, and what does not exist
  ws_drain(c);
  expectReply(c, "{\"cmd\":\"seek\",\"frame\":101}", "error");
  expectReply(c, "{\"cmd\":\"seek\",\"frame\":-1}", "error");
  expectReply(c, "{\"cmd\":\"seek\",\"frame\":1.5}", "error");
  expectReply(c, "{\"cmd\":\"ctrl\",\"index\":0,\"value\":1}", "error");
  expectReply(c, "{\"cmd\":\"reset\",\"key\":0}", "error");
  expectReply(c, "{\"cmd\":\"loop\",\"value\":1}", "error");
  expectReply(c, "{\"cmd\":\"contacts\",\"value\":true}", "error");

  // play with loop: from near the end, the play head comes back to the start
  expectReply(c, "{\"cmd\":\"seek\",\"frame\":90}", "ack");
  expectReply(c, "{\"cmd\":\"play\"}", "ack");
  int wrapped = 0, prev = 90;
  for (int i = 0; i < 200 && !wrapped; i++) {
    int k = nextShown(c, m, d, want);
    wrapped = k < prev;
    prev = k;
  }
  cr_expect(wrapped, "looping: back to the start after the last frame");

  // without loop: stops paused on the last frame
  expectReply(c, "{\"cmd\":\"loop\",\"value\":false}", "ack");
  expectReply(c, "{\"cmd\":\"seek\",\"frame\":95}", "ack");
  expectReply(c, "{\"cmd\":\"play\"}", "ack");
  int k = 0;
  for (int i = 0; i < 200 && k != NSTEP; i++) {
    k = nextShown(c, m, d, want);
  }
  cr_expect_eq(k, NSTEP, "played to the last frame");
  usleep(300000);
  ws_drain(c);
  WsMessage msg;
  cr_expect(!ws_nextBinary(c, &msg, 0.5), "no frames once stopped at the end");
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
  mc_deleteData(d);
  mc_deleteModel(m);
  free(want);
  unlink(path);
}

Test(replay, seek_needs_a_recording) {
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, PENDULUM, "--paused", 20), 0);
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  cJSON* hello = nextOfType(c, "hello");
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(hello, "replay")));
  cJSON_Delete(hello);
  expectReply(c, "{\"cmd\":\"seek\",\"frame\":0}", "error");
  expectReply(c, "{\"cmd\":\"loop\",\"value\":true}", "error");
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}
