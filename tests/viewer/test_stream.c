// Tests of `moduco view` streaming: a client that stops reading stalls neither the simulation
// nor the other clients (per-client bounded queues), and the A/B mode streams two copies of the
// model that start equal and diverge under different solvers.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <civetweb.h>
#include <criterion/criterion.h>

#include "viewer_client.h"

#define HUMANOID MODUCO_SOURCE_DIR "/models/humanoid.xml"
#define MAGIC_A 0x4656434Du
#define MAGIC_B 0x4256434Du

static double wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t magicOf(const WsMessage* m) {
  uint32_t x = 0;
  if (m->len >= 32) {
    memcpy(&x, m->data, 4);
  }
  return x;
}

static double timeOf(const WsMessage* m) {
  double t;
  memcpy(&t, m->data + 8, 8);
  return t;
}

// the simulated time of the newest pose frame within timeout s (everything older dropped)
static double latestTime(WsClient* c, double timeout) {
  ws_drain(c);
  WsMessage m;
  double t = -1;
  double end = wall() + timeout;
  while (t < 0 && wall() < end && ws_nextBinary(c, &m, end - wall())) {
    if (magicOf(&m) == MAGIC_A) {
      t = timeOf(&m);
    }
    free(m.data);
  }
  return t;
}

// bytes the server has queued to send to the client socket fd but the network has not taken
// (tx_queue of the server's end in /proc/net/tcp); -1 if not found
static long serverSendQueue(int fd, int server_port) {
  struct sockaddr_in a;
  socklen_t alen = sizeof(a);
  if (getsockname(fd, (struct sockaddr*)&a, &alen)) {
    return -1;
  }
  unsigned client_port = ntohs(a.sin_port);
  FILE* f = fopen("/proc/net/tcp", "r");
  if (!f) {
    return -1;
  }
  char line[512];
  long tx = -1;
  while (fgets(line, sizeof(line), f)) {
    unsigned lport, rport;
    unsigned long txq, rxq;
    if (sscanf(line, " %*d: %*x:%x %*x:%x %*x %lx:%lx", &lport, &rport, &txq, &rxq) == 4 &&
        lport == (unsigned)server_port && rport == client_port) {
      tx = (long)txq;
    }
  }
  fclose(f);
  return tx;
}

static int sendText(WsClient* c, const char* text) {
  return ws_send(c, 1, text, strlen(text));
}

Test(view_stream, a_client_that_stops_reading_stalls_nothing, .timeout = 60) {
  // humanoid at 1000 frames/s and speed 64 (as fast as it can): after a client stops reading
  // (its socket buffers full: a blocking write would stop the loop), the simulation goes on and
  // the other client keeps receiving frames at a rate of the same order as before
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, HUMANOID, "--fps 1000", 20), 0);
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  cr_assert_gt(sendText(c, "{\"cmd\":\"speed\",\"value\":64}"), 0);
  double t0 = latestTime(c, 5);
  usleep(1000000);
  double base = latestTime(c, 5) - t0;          // simulated seconds per wall second, alone
  cr_assert_gt(base, 0, "the simulation runs");

  int fd = ws_rawOpen(s.port, 4096);             // a small receive buffer, never read
  cr_assert_geq(fd, 0, "WebSocket handshake of the stalled client");
  // ask it for contacts too, so its buffers fill faster (a masked text frame)
  const char ask[] = "{\"cmd\":\"contacts\",\"value\":true}";
  unsigned char frame[64] = {0x81, 0x80 | (unsigned char)(sizeof(ask) - 1), 0, 0, 0, 0};
  memcpy(frame + 6, ask, sizeof(ask) - 1);
  cr_assert_eq(write(fd, frame, 6 + sizeof(ask) - 1), (ssize_t)(6 + sizeof(ask) - 1));

  // wait until the server's send buffer towards it is full (its size stops growing for 1 s):
  // from then on a blocking write would stop the loop
  long sendq = 0, before = -1;
  for (int i = 0; i < 60 && !(sendq > 0 && sendq == before); i++) {
    before = sendq;
    for (int k = 0; k < 10; k++) {
      latestTime(c, 1);                          // keep the good client's queue short
      usleep(100000);
    }
    sendq = serverSendQueue(fd, s.port);
  }
  int unread = 0;
  ioctl(fd, FIONREAD, &unread);
  cr_expect(sendq > 0 && sendq == before, "the server's send buffer to the stalled client is "
            "full: %ld bytes (and %d unread in the client's)", sendq, unread);
  for (int k = 0; k < 4; k++) {
    double a = latestTime(c, 5);
    usleep(1000000);
    double b = latestTime(c, 5);
    cr_expect_gt(a, 0, "the other client still receives frames");
    cr_expect_gt(b - a, 0.2 * base, "second %d with a stalled client: %g simulated s (alone: %g)",
                 k, b - a, base);
  }
  ws_close(c);
  // Ctrl-C with the stalled client still connected: a clean stop
  cr_expect_eq(vs_stop(&s, 10), 0, "moduco view did not stop cleanly with a stalled client");
  close(fd);
  mg_exit_library();
}


// the next text message of the given type within 5 s, parsed (an error too for "ack")
static cJSON* nextOfType(WsClient* c, const char* type) {
  cJSON* j = ws_nextOfType(c, type, strcmp(type, "ack") ? NULL : "error", 5);
  cr_assert_not_null(j, "no %s message", type);
  return j;
}

static const char* str(const cJSON* j, const char* key) {
  const cJSON* v = cJSON_GetObjectItem(j, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

// send a request and expect an ack (want 1) or an error (want 0)
static void expectReply(WsClient* c, const char* text, int want) {
  cr_assert_gt(sendText(c, text), 0);
  cJSON* j = nextOfType(c, "ack");
  cr_expect_str_eq(str(j, "type"), want ? "ack" : "error", "reply to %s", text);
  cJSON_Delete(j);
}

// after a step request: the pose frames of copies A and B (B NULL if none comes within 0.5 s
// of A) and the stats of each copy's copy name
typedef struct {
  WsMessage a, b;
  int has_b;
  char solver[2][64];
} Pair;

static Pair stepPair(WsClient* c, const char* step) {
  ws_drain(c);
  expectReply(c, step, 1);
  Pair p;
  memset(&p, 0, sizeof(p));
  int got_a = 0;
  WsMessage m;
  double end = wall() + 5;
  while (wall() < end && ws_next(c, &m, got_a ? 0.5 : end - wall())) {
    cJSON* j = m.opcode == 1 ? cJSON_Parse(m.data) : NULL;
    if (m.opcode == 2 && magicOf(&m) == MAGIC_A && !got_a) {
      p.a = m;
      got_a = 1;
      continue;
    }
    if (m.opcode == 2 && magicOf(&m) == MAGIC_B && !p.has_b) {
      p.b = m;
      p.has_b = 1;
      continue;
    }
    if (j && !strcmp(str(j, "type"), "stats")) {
      int k = !strcmp(str(j, "copy"), "b");
      snprintf(p.solver[k], sizeof(p.solver[k]), "%s", str(j, "solver"));
    }
    cJSON_Delete(j);
    free(m.data);
    if (got_a && p.has_b && p.solver[0][0] && p.solver[1][0]) {
      break;
    }
  }
  cr_assert(got_a, "a pose frame of copy A after %s", step);
  return p;
}

static void freePair(Pair* p) {
  free(p->a.data);
  free(p->b.data);
}

// largest difference of the body positions (float32) of two pose frames
static double poseGap(const WsMessage* a, const WsMessage* b) {
  cr_assert_eq(a->len, b->len);
  double gap = 0;
  for (size_t o = 32; o + 28 <= a->len; o += 28) {
    for (int k = 0; k < 3; k++) {
      float x, y;
      memcpy(&x, a->data + o + 4 * k, 4);
      memcpy(&y, b->data + o + 4 * k, 4);
      gap = fmax(gap, fabs((double)x - (double)y));
    }
  }
  return gap;
}

Test(view_stream, ab_copies_start_equal_and_diverge, .timeout = 60) {
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, HUMANOID, "--paused", 20), 0);
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  cJSON* hello = nextOfType(c, "hello");
  cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(hello, "ab")), "A/B off at start");
  char solver_a[64];
  snprintf(solver_a, sizeof(solver_a), "%s", str(hello, "solver"));
  cJSON_Delete(hello);

  // errors: copy B before the A/B mode, a bad copy name, a non-boolean value
  expectReply(c, "{\"cmd\":\"solver\",\"name\":\"pgs\",\"copy\":\"b\"}", 0);
  expectReply(c, "{\"cmd\":\"solver\",\"name\":\"pgs\",\"copy\":\"c\"}", 0);
  expectReply(c, "{\"cmd\":\"solver\",\"name\":\"pgs\",\"copy\":1}", 0);
  expectReply(c, "{\"cmd\":\"ab\",\"value\":1}", 0);
  expectReply(c, "{\"cmd\":\"ab\"}", 0);
  Pair p = stepPair(c, "{\"cmd\":\"step\",\"n\":30}");
  cr_expect(!p.has_b, "no copy B frame while A/B is off");
  freePair(&p);

  // on: B starts from A's state; with the same solver both copies stay equal bit for bit
  expectReply(c, "{\"cmd\":\"ab\",\"value\":true}", 1);
  p = stepPair(c, "{\"cmd\":\"step\",\"n\":50}");
  cr_assert(p.has_b, "copy B streams");
  cr_expect_eq(timeOf(&p.a), timeOf(&p.b));
  cr_expect_eq(memcmp(p.a.data + 8, p.b.data + 8, p.a.len - 8), 0,
               "same solver: copy B's poses equal A's bit for bit");
  cr_expect_str_eq(p.solver[1], solver_a);
  freePair(&p);

  // B gets another solver (and A keeps its own); after a reset both start equal, then diverge
  const char* other = strcmp(solver_a, "pgs") ? "pgs" : "newton";
  char msg[128];
  snprintf(msg, sizeof(msg), "{\"cmd\":\"solver\",\"name\":\"%s\",\"copy\":\"b\"}", other);
  expectReply(c, msg, 1);
  expectReply(c, "{\"cmd\":\"integrator\",\"name\":\"rk4\",\"copy\":\"b\"}", 1);
  p = stepPair(c, "{\"cmd\":\"reset\"}");
  cr_assert(p.has_b);
  cr_expect_eq(timeOf(&p.a), 0.0);
  cr_expect_eq(poseGap(&p.a, &p.b), 0.0, "after a reset both copies start equal");
  freePair(&p);
  p = stepPair(c, "{\"cmd\":\"step\",\"n\":300}");
  cr_assert(p.has_b);
  cr_expect_eq(timeOf(&p.a), timeOf(&p.b), "both copies step together");
  double gap = poseGap(&p.a, &p.b);
  cr_expect_gt(gap, 1e-4, "different solvers: the poses diverge (%g m)", gap);
  cr_expect_str_eq(p.solver[0], solver_a, "copy A keeps its solver");
  cr_expect_str_eq(p.solver[1], other, "copy B's stats name its solver");
  freePair(&p);

  // off: only copy A again
  expectReply(c, "{\"cmd\":\"ab\",\"value\":false}", 1);
  p = stepPair(c, "{\"cmd\":\"step\"}");
  cr_expect(!p.has_b, "no copy B frame once A/B is off");
  freePair(&p);
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}
