// Tests of `moduco view`: the server process on a free loopback port, its page and model
// description over HTTP, and the WebSocket protocol (pose frames, pause/step/reset/speed, and
// malformed messages) with civetweb's WebSocket client.
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <civetweb.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "viewer_client.h"

#define HUMANOID MODUCO_SOURCE_DIR "/models/humanoid.xml"

static ViewServer g_server;

static void startHumanoid(void) {
  mg_init_library(0);
  cr_assert_eq(vs_start(&g_server, HUMANOID, NULL, 20), 0, "moduco view did not start");
}

static void stopServer(void) {
  cr_expect_eq(vs_stop(&g_server, 10), 0, "moduco view did not stop cleanly on SIGINT");
  mg_exit_library();
}

// a decoded pose frame header
typedef struct {
  uint32_t magic, nbody, paused, ncon;
  double time, rtf;
} Frame;

static Frame decode(const WsMessage* m) {
  Frame f;
  cr_assert_geq(m->len, 32u);
  memcpy(&f.magic, m->data, 4);
  memcpy(&f.nbody, m->data + 4, 4);
  memcpy(&f.time, m->data + 8, 8);
  memcpy(&f.rtf, m->data + 16, 8);
  memcpy(&f.paused, m->data + 24, 4);
  memcpy(&f.ncon, m->data + 28, 4);
  cr_assert_eq(f.magic, 0x4656434Du, "pose frame magic");
  cr_assert_eq(m->len, 32u + 28u * f.nbody, "pose frame size for %u bodies", f.nbody);
  return f;
}

// next pose frame, decoded
static Frame nextFrame(WsClient* c) {
  WsMessage m;
  cr_assert(ws_nextBinary(c, &m, 5), "no pose frame within 5 s");
  Frame f = decode(&m);
  free(m.data);
  return f;
}

static const char* typeOf(const cJSON* j) {
  const cJSON* t = cJSON_GetObjectItem(j, "type");
  return cJSON_IsString(t) ? t->valuestring : "";
}

// the next reply (ack or error; hello and warnings skipped) within 5 s, parsed
static cJSON* nextReply(WsClient* c, const char* what) {
  for (;;) {
    WsMessage m;
    cr_assert(ws_nextText(c, &m, 5), "no reply to %s", what);
    cJSON* j = cJSON_Parse(m.data);
    cr_assert_not_null(j, "reply is not JSON: %s", m.data);
    free(m.data);
    if (!strcmp(typeOf(j), "ack") || !strcmp(typeOf(j), "error")) {
      return j;
    }
    cJSON_Delete(j);
  }
}

// send a text message and return its parsed reply
static cJSON* request(WsClient* c, const char* text) {
  cr_assert_gt(ws_send(c, 1, text, strlen(text)), 0, "send %s", text);
  return nextReply(c, text);
}

static void expectAck(WsClient* c, const char* text, const char* cmd, int paused) {
  cJSON* j = request(c, text);
  cr_assert_str_eq(typeOf(j), "ack", "reply to %s", text);
  cr_expect_str_eq(cJSON_GetObjectItem(j, "cmd")->valuestring, cmd);
  cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(j, "paused")), paused, "paused after %s", text);
  cJSON_Delete(j);
}

static void expectError(WsClient* c, int opcode, const char* data, size_t len, const char* what) {
  cr_assert_gt(ws_send(c, opcode, data, len), 0);
  cJSON* j = nextReply(c, what);
  cr_expect_str_eq(typeOf(j), "error", "reply to %s", what);
  const cJSON* e = cJSON_GetObjectItem(j, "error");
  cr_expect(cJSON_IsString(e) && strlen(e->valuestring) > 10, "error text for %s", what);
  cJSON_Delete(j);
}


Test(view_http, serves_page_and_model, .init = startHumanoid, .fini = stopServer) {
  char* body;
  size_t len;
  cr_assert_eq(vs_http(g_server.port, "GET", "/", &body, &len), 200);
  cr_expect(strstr(body, "importmap") && strstr(body, "viewer.js"), "index page: %s", body);
  free(body);
  cr_assert_eq(vs_http(g_server.port, "GET", "/three.module.js", &body, &len), 200);
  cr_expect_gt(len, 100000u, "three.js served whole");
  free(body);

  // the model description matches the compiled model
  char err[512];
  mcModel* m = mc_loadXML(HUMANOID, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(vs_http(g_server.port, "GET", "/model.json", &body, &len), 200);
  cJSON* j = cJSON_Parse(body);
  cr_assert_not_null(j, "model.json is JSON");
  cr_expect_eq(cJSON_GetObjectItem(j, "nbody")->valueint, m->nbody);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "bodies")), m->nbody);
  const cJSON* geoms = cJSON_GetObjectItem(j, "geoms");
  cr_assert_eq(cJSON_GetArraySize(geoms), m->ngeom);
  const cJSON* g0 = cJSON_GetArrayItem(geoms, 0);
  cr_expect_str_eq(cJSON_GetObjectItem(g0, "type")->valuestring, "plane");
  const cJSON* rgba = cJSON_GetObjectItem(g0, "rgba");
  cr_expect_float_eq(cJSON_GetArrayItem(rgba, 0)->valuedouble, m->geom_rgba[0], 1e-6);
  for (int g = 0; g < m->ngeom; g++) {
    const cJSON* gj = cJSON_GetArrayItem(geoms, g);
    cr_expect_eq(cJSON_GetObjectItem(gj, "body")->valueint, m->geom_bodyid[g]);
    cr_expect_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(gj, "size"), 0)->valuedouble,
                       m->geom_size[3 * g], 1e-12);
  }
  cJSON_Delete(j);
  free(body);
  mc_deleteModel(m);

  // nothing but its own assets; GET and HEAD only
  const char* bad[] = {"/../../../../etc/passwd", "/CMakeLists.txt", "/%2e%2e/%2e%2e/etc/passwd",
                       "/node_modules/three/package.json", "/index.html/x"};
  for (int i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
    int status = vs_http(g_server.port, "GET", bad[i], &body, &len);
    cr_expect(status == 404 || status == 400, "GET %s gave %d", bad[i], status);
    cr_expect(!body || !strstr(body, "root:"), "GET %s leaked a file", bad[i]);
    free(body);
  }
  cr_expect_eq(vs_http(g_server.port, "POST", "/model.json", NULL, NULL), 405);
}


Test(view_http, every_geom_type) {
  // tests/viewer/shapes.xml: one geom of each drawn type, a mesh given by its vertices
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, MODUCO_SOURCE_DIR "/tests/viewer/shapes.xml", NULL, 20), 0);
  char* body;
  cr_assert_eq(vs_http(s.port, "GET", "/model.json", &body, NULL), 200);
  cJSON* j = cJSON_Parse(body);
  cr_assert_not_null(j);
  const char* want[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box",
                        "mesh", "sphere"};
  const cJSON* geoms = cJSON_GetObjectItem(j, "geoms");
  cr_assert_eq(cJSON_GetArraySize(geoms), 9);
  for (int g = 0; g < 9; g++) {
    const cJSON* gj = cJSON_GetArrayItem(geoms, g);
    cr_expect_str_eq(cJSON_GetObjectItem(gj, "type")->valuestring, want[g], "geom %d", g);
  }
  // colours as MuJoCo's renderer picks them: the box's from its material, the cylinder's own
  // rgba over its material's
  const float box[4] = {0.8f, 0.4f, 0.1f, 1}, can[4] = {0.9f, 0.8f, 0.1f, 1};
  for (int k = 0; k < 4; k++) {
    cr_expect_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(geoms, 6),
                                                              "rgba"), k)->valuedouble,
                       box[k], 1e-6, "box rgba[%d] (material)", k);
    cr_expect_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(geoms, 5),
                                                              "rgba"), k)->valuedouble,
                       can[k], 1e-6, "cylinder rgba[%d] (own)", k);
  }
  const cJSON* mesh = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 0);
  cr_assert_not_null(mesh, "the mesh is described");
  int nvert = cJSON_GetArraySize(cJSON_GetObjectItem(mesh, "vert"));
  int nface = cJSON_GetArraySize(cJSON_GetObjectItem(mesh, "face"));
  cr_expect(nvert == 12 && nface == 12, "tetrahedron: %d vertex and %d face numbers", nvert,
            nface);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(geoms, 7), "data")->valueint, 0);
  // the height field: its grid and elevation (0 1 0 1 / 1 0 1 0 / 0 1 0 1, row-major)
  const cJSON* hf = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "hfields"), 0);
  cr_assert_not_null(hf, "the height field is described");
  cr_expect_eq(cJSON_GetObjectItem(hf, "nrow")->valueint, 3);
  cr_expect_eq(cJSON_GetObjectItem(hf, "ncol")->valueint, 4);
  const cJSON* hd = cJSON_GetObjectItem(hf, "data");
  cr_assert_eq(cJSON_GetArraySize(hd), 12);
  for (int i = 0; i < 12; i++) {
    cr_expect_float_eq(cJSON_GetArrayItem(hd, i)->valuedouble, (i / 4 + i % 4) % 2, 1e-6,
                       "elevation %d", i);
  }
  cr_expect_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(hf, "size"), 2)->valuedouble, 0.1,
                     1e-12);
  cJSON_Delete(j);
  free(body);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}


Test(view_ws, frames_and_controls, .init = startHumanoid, .fini = stopServer) {
  WsClient* c = ws_open(g_server.port);
  cr_assert_not_null(c);
  WsMessage m;
  cr_assert(ws_nextText(c, &m, 5), "hello message");
  cr_expect(strstr(m.data, "\"hello\"") && strstr(m.data, "humanoid.xml"), "%s", m.data);
  free(m.data);

  // running: frames arrive with increasing time
  Frame a = nextFrame(c);
  Frame b = nextFrame(c);
  Frame f = nextFrame(c);
  cr_expect_eq(a.paused, 0u);
  cr_expect(b.time > a.time && f.time > b.time, "time advances: %g %g %g", a.time, b.time, f.time);
  cr_expect_gt(a.nbody, 10u);

  // pause: after the acknowledgement no pose frame comes
  expectAck(c, "{\"cmd\":\"pause\"}", "pause", 1);
  cr_expect(!ws_nextBinary(c, &m, 0.5), "a pose frame came after the pause acknowledgement");

  // the last state before the step: one step makes one frame at time + timestep
  char err[512];
  mcModel* model = mc_loadXML(HUMANOID, err, sizeof(err));
  cr_assert_not_null(model, "%s", err);
  expectAck(c, "{\"cmd\":\"step\"}", "step", 1);
  Frame s1 = nextFrame(c);
  expectAck(c, "{\"cmd\":\"step\",\"n\":3}", "step", 1);
  Frame s2 = nextFrame(c);
  cr_expect_eq(s2.paused, 1u);
  cr_expect_float_eq(s2.time - s1.time, 3 * model->opt.timestep, 1e-9,
                     "3 steps: %.17g -> %.17g", s1.time, s2.time);
  cr_expect(!ws_nextBinary(c, &m, 0.3), "paused: no more frames after a step");

  // reset: a frame at time 0
  expectAck(c, "{\"cmd\":\"reset\"}", "reset", 1);
  Frame r = nextFrame(c);
  cr_expect_eq(r.time, 0.0, "time after reset: %g", r.time);

  // malformed messages: an error each, the connection and the server keep working
  const char* texts[] = {"nonsense", "{\"cmd\":", "[1,2]", "{}", "{\"cmd\":42}",
                         "{\"cmd\":\"fly\"}", "{\"cmd\":\"step\",\"n\":0}",
                         "{\"cmd\":\"step\",\"n\":1.5}", "{\"cmd\":\"step\",\"n\":1e9}",
                         "{\"cmd\":\"speed\"}", "{\"cmd\":\"speed\",\"value\":1000}",
                         "{\"cmd\":\"speed\",\"value\":\"fast\"}", ""};
  for (int i = 0; i < (int)(sizeof(texts) / sizeof(texts[0])); i++) {
    expectError(c, 1, texts[i], strlen(texts[i]), texts[i]);
  }
  expectError(c, 2, "\x01\x02\x03", 3, "a binary message");
  const char nul[] = "{\"cmd\":\"pause\"}\0junk";
  expectError(c, 1, nul, sizeof(nul) - 1, "a NUL inside the text");
  size_t big = 100000;
  char* huge = malloc(big);
  cr_assert_not_null(huge);
  memset(huge, ' ', big);
  memcpy(huge, "{\"cmd\":\"pause\"}", 15);
  expectError(c, 1, huge, big, "a 100 kB message");
  free(huge);

  // none of them moved the simulation; speed and play work after them
  cr_expect(!ws_nextBinary(c, &m, 0.2), "malformed messages made a pose frame");
  cJSON* j = request(c, "{\"cmd\":\"speed\",\"value\":0.5}");
  cr_expect_str_eq(typeOf(j), "ack");
  cr_expect_float_eq(cJSON_GetObjectItem(j, "speed")->valuedouble, 0.5, 0);
  cJSON_Delete(j);
  expectAck(c, "{\"cmd\":\"play\"}", "play", 0);
  Frame p1 = nextFrame(c);
  Frame p2 = nextFrame(c);
  cr_expect(p2.time > p1.time && p2.paused == 0u, "running again: %g %g", p1.time, p2.time);
  mc_deleteModel(model);
  ws_close(c);
}


// GET /model.json and expect text in it
static void expectInModel(int port, const char* text) {
  char* body;
  cr_assert_eq(vs_http(port, "GET", "/model.json", &body, NULL), 200);
  cr_expect(strstr(body, text), "%s in model.json: %s", text, body);
  free(body);
}

// z of body b in a pose frame
static float bodyZ(const WsMessage* m, int b) {
  float z;
  memcpy(&z, m->data + 32 + 28 * b + 8, 4);
  return z;
}

Test(view_ws, reset_to_keyframe, .init = startHumanoid, .fini = stopServer) {
  // humanoid.xml's keyframe "crouch" puts the root (body 1, free joint) at z = 1.0
  expectInModel(g_server.port, "\"keys\":[\"crouch\"]");
  WsClient* c = ws_open(g_server.port);
  cr_assert_not_null(c);
  expectAck(c, "{\"cmd\":\"pause\"}", "pause", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"reset\",\"key\":0}", "reset", 1);
  WsMessage m;
  cr_assert(ws_nextBinary(c, &m, 5), "a frame after the reset");
  Frame f = decode(&m);
  cr_expect_eq(f.time, 0.0);
  cr_expect_float_eq(bodyZ(&m, 1), 1.0f, 1e-6, "root height after reset to crouch: %g",
                     bodyZ(&m, 1));
  free(m.data);
  expectAck(c, "{\"cmd\":\"reset\"}", "reset", 1);
  cr_assert(ws_nextBinary(c, &m, 5));
  cr_expect(fabsf(bodyZ(&m, 1) - 1.0f) > 0.1f, "default reset is not the keyframe: %g",
            bodyZ(&m, 1));
  free(m.data);
  const char* bad[] = {"{\"cmd\":\"reset\",\"key\":1}", "{\"cmd\":\"reset\",\"key\":-1}",
                       "{\"cmd\":\"reset\",\"key\":\"crouch\"}"};
  for (int i = 0; i < 3; i++) {
    expectError(c, 1, bad[i], strlen(bad[i]), bad[i]);
  }
  ws_close(c);
}


Test(view_ws, ctrl_drives_the_actuator) {
  // models/pendulum.xml, paused: a torque of 2 for 100 steps swings it exactly as the same
  // steps in this process do
  const char* file = MODUCO_SOURCE_DIR "/models/pendulum.xml";
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, file, "--paused", 20), 0);
  expectInModel(s.port, "\"actuators\":[{\"name\":\"torque\",\"ctrllimited\":true,"
                        "\"ctrlrange\":[-2,2]}]");
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  expectAck(c, "{\"cmd\":\"ctrl\",\"index\":0,\"value\":2}", "ctrl", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\",\"n\":100}", "step", 1);
  WsMessage m;
  cr_assert(ws_nextBinary(c, &m, 5), "a frame after the steps");
  float q[4];
  memcpy(q, m.data + 32 + 28 * 1 + 12, sizeof(q));
  free(m.data);

  char err[512];
  mcModel* model = mc_loadXML(file, err, sizeof(err));
  cr_assert_not_null(model, "%s", err);
  mcData* d = mc_makeData(model);
  mc_forward(model, d);
  d->ctrl[0] = 2;
  for (int i = 0; i < 100; i++) {
    mc_step(model, d);
  }
  mc_kinematics(model, d);
  for (int k = 0; k < 4; k++) {
    cr_expect_eq(q[k], (float)d->xquat[4 + k], "pole quaternion[%d]: %.9g, expected %.9g", k,
                 q[k], d->xquat[4 + k]);
  }
  cr_expect_lt(q[0], 0.9999f, "the torque turned the pole");
  mc_deleteData(d);
  mc_deleteModel(model);

  const char* bad[] = {"{\"cmd\":\"ctrl\",\"index\":1,\"value\":0}",
                       "{\"cmd\":\"ctrl\",\"index\":-1,\"value\":0}",
                       "{\"cmd\":\"ctrl\",\"value\":0}",
                       "{\"cmd\":\"ctrl\",\"index\":0,\"value\":\"x\"}",
                       "{\"cmd\":\"ctrl\",\"index\":0,\"value\":1e11}",
                       "{\"cmd\":\"ctrl\",\"index\":0}"};
  for (int i = 0; i < 6; i++) {
    expectError(c, 1, bad[i], strlen(bad[i]), bad[i]);
  }
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}


Test(view_ws, contacts_when_asked) {
  // humanoid.xml, paused, 150 steps (it lies on the floor): the contact message after the pose
  // frame holds the contacts of the same steps in this process
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, HUMANOID, "--paused", 20), 0);
  expectInModel(s.port, "\"joints\":[{\"name\":\"root\",\"type\":\"free\",\"body\":1");
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  expectAck(c, "{\"cmd\":\"contacts\",\"value\":true}", "contacts", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\",\"n\":150}", "step", 1);
  WsMessage pose, con;
  cr_assert(ws_nextBinary(c, &pose, 5) && ws_nextBinary(c, &con, 5), "pose and contacts");
  uint32_t magic, n, ncon;
  memcpy(&magic, con.data, 4);
  memcpy(&n, con.data + 4, 4);
  memcpy(&ncon, pose.data + 28, 4);
  cr_assert_eq(magic, 0x4B56434Du, "contact message magic");
  cr_assert_eq(con.len, 8 + 24 * n);

  char err[512];
  mcModel* m = mc_loadXML(HUMANOID, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  for (int i = 0; i < 150; i++) {
    mc_step(m, d);
  }
  cr_assert_gt(d->ncon, 0, "the humanoid touches the floor");
  cr_expect_eq((int)n, d->ncon);
  cr_expect_eq(ncon, n, "the pose frame counts the same contacts");
  for (int i = 0; i < d->ncon && i < (int)n; i++) {
    float p[6];
    memcpy(p, con.data + 8 + 24 * i, sizeof(p));
    mcNum f[6];
    mc_contactForce(m, d, i, f);
    const mcNum* nrm = d->contact[i].frame;
    for (int k = 0; k < 3; k++) {
      cr_expect_eq(p[k], (float)d->contact[i].pos[k], "contact %d position %d", i, k);
    }
    double fn = p[3] * nrm[0] + p[4] * nrm[1] + p[5] * nrm[2];
    cr_expect(fabs(fn - f[0]) <= 1e-4 * (1 + fabs(f[0])), "contact %d normal force %g, %g",
              i, fn, f[0]);
    cr_expect_geq(f[0], 0);
  }
  free(pose.data);
  free(con.data);
  mc_deleteData(d);
  mc_deleteModel(m);

  // off again: pose frames only
  expectAck(c, "{\"cmd\":\"contacts\",\"value\":false}", "contacts", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\"}", "step", 1);
  cr_assert(ws_nextBinary(c, &pose, 5));
  free(pose.data);
  cr_expect(!ws_nextBinary(c, &con, 0.5), "no contact message once switched off");
  const char* bad[] = {"{\"cmd\":\"contacts\"}", "{\"cmd\":\"contacts\",\"value\":1}"};
  for (int i = 0; i < 2; i++) {
    expectError(c, 1, bad[i], strlen(bad[i]), bad[i]);
  }
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}


Test(view_ws, perturbation_pulls_a_body) {
  // humanoid.xml, paused: the torso pulled 0.6 m above where it starts, for 100 steps, ends
  // well above where the same steps without the pull leave it; a rotate pull turns it
  char err[512];
  mcModel* m = mc_loadXML(HUMANOID, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  double x0 = d->xpos[3], y0 = d->xpos[4], z0 = d->xpos[5];
  for (int i = 0; i < 100; i++) {
    mc_step(m, d);
  }
  mc_kinematics(m, d);
  double zfree = d->xpos[5];
  mc_deleteData(d);
  mc_deleteModel(m);

  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, HUMANOID, "--paused", 20), 0);
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  char msg[256];
  snprintf(msg, sizeof(msg), "{\"cmd\":\"perturb\",\"body\":1,\"mode\":\"move\","
           "\"anchor\":[0,0,0],\"target\":[%.17g,%.17g,%.17g]}", x0, y0, z0 + 0.6);
  expectAck(c, msg, "perturb", 1);

  // malformed perturbations: errors, and nothing moves
  const char* bad[] = {"{\"cmd\":\"perturb\"}",
                       "{\"cmd\":\"perturb\",\"body\":13,\"mode\":\"move\","
                       "\"anchor\":[0,0,0],\"target\":[0,0,0]}",
                       "{\"cmd\":\"perturb\",\"body\":1,\"mode\":\"push\","
                       "\"anchor\":[0,0,0],\"target\":[0,0,0]}",
                       "{\"cmd\":\"perturb\",\"body\":1,\"mode\":\"move\","
                       "\"anchor\":[0,0],\"target\":[0,0,0]}",
                       "{\"cmd\":\"perturb\",\"body\":1,\"mode\":\"move\","
                       "\"anchor\":[0,0,0],\"target\":[0,0,1e7]}",
                       "{\"cmd\":\"perturb\",\"body\":1,\"mode\":\"move\","
                       "\"anchor\":[0,0,0],\"target\":[0,\"x\",0]}",
                       "{\"cmd\":\"perturb\",\"body\":1.5}"};
  for (int i = 0; i < 7; i++) {
    expectError(c, 1, bad[i], strlen(bad[i]), bad[i]);
  }
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\",\"n\":100}", "step", 1);
  WsMessage f;
  cr_assert(ws_nextBinary(c, &f, 5));
  Frame h = decode(&f);
  cr_expect_float_eq(h.time, 100 * 0.005, 1e-9, "100 steps, no more");
  float z = bodyZ(&f, 1);
  free(f.data);
  cr_expect_gt(z, zfree + 0.2, "pulled torso at %g, unpulled at %g", z, zfree);
  cr_expect(fabs(z - (z0 + 0.6)) < 0.3, "torso near the target: %g, target %g", z, z0 + 0.6);

  // let go: it falls again
  expectAck(c, "{\"cmd\":\"perturb\",\"body\":0}", "perturb", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\",\"n\":100}", "step", 1);
  cr_assert(ws_nextBinary(c, &f, 5));
  cr_expect_lt(bodyZ(&f, 1), z - 0.1, "released: the torso falls");
  free(f.data);

  // rotate: from the reset pose (torso upright, x axis level), a point 0.3 m along the torso's x
  // pulled up turns it: within 20 steps its x axis tips up
  expectAck(c, "{\"cmd\":\"reset\"}", "reset", 1);
  snprintf(msg, sizeof(msg), "{\"cmd\":\"perturb\",\"body\":1,\"mode\":\"rotate\","
           "\"anchor\":[0.3,0,0],\"target\":[%.17g,%.17g,%.17g]}", x0 + 0.3, y0, z0 + 0.3);
  expectAck(c, msg, "perturb", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\",\"n\":20}", "step", 1);
  cr_assert(ws_nextBinary(c, &f, 5));
  float q[4];
  memcpy(q, f.data + 32 + 28 + 12, sizeof(q));
  free(f.data);
  // z component of the torso's x axis: 2 (x z - w y)
  float xz = 2 * (q[1] * q[3] - q[0] * q[2]);
  cr_expect_gt(xz, 0.3f, "rotate: the torso's x axis tipped up (z component %g)", (double)xz);
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}


// the next stats message, parsed
static cJSON* nextStats(WsClient* c) {
  for (;;) {
    WsMessage m;
    cr_assert(ws_nextText(c, &m, 5), "no stats message");
    cJSON* j = cJSON_Parse(m.data);
    free(m.data);
    if (j && !strcmp(typeOf(j), "stats")) {
      return j;
    }
    cJSON_Delete(j);
  }
}

Test(view_ws, solver_and_integrator_swap_live) {
  // humanoid.xml, paused: every loaded solver in turn, then an integrator; the state (time)
  // is kept across a swap and the stats name the new plugin
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, HUMANOID, "--paused", 20), 0);
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  WsMessage m;
  cr_assert(ws_nextText(c, &m, 5));
  cJSON* hello = cJSON_Parse(m.data);
  free(m.data);
  cr_assert_str_eq(typeOf(hello), "hello");
  const cJSON* solvers = cJSON_GetObjectItem(hello, "solvers");
  cr_assert_geq(cJSON_GetArraySize(solvers), 2, "at least two solver plugins loaded");
  expectAck(c, "{\"cmd\":\"step\",\"n\":60}", "step", 1);
  double t = 60 * 0.005;
  const cJSON* name;
  cJSON_ArrayForEach(name, solvers) {
    char msg[128];
    snprintf(msg, sizeof(msg), "{\"cmd\":\"solver\",\"name\":\"%s\"}", name->valuestring);
    expectAck(c, msg, "solver", 1);
    ws_drain(c);
    expectAck(c, "{\"cmd\":\"step\",\"n\":2}", "step", 1);
    t += 2 * 0.005;
    cJSON* st = nextStats(c);
    cr_expect_str_eq(cJSON_GetObjectItem(st, "solver")->valuestring, name->valuestring);
    cr_expect_float_eq(cJSON_GetObjectItem(st, "time")->valuedouble, t, 1e-9,
                       "the time goes on across the swap to %s", name->valuestring);
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(st, "iter")) &&
              cJSON_IsNumber(cJSON_GetObjectItem(st, "energy")) &&
              cJSON_GetObjectItem(st, "steptime")->valuedouble > 0, "stats of %s",
              name->valuestring);
    cJSON_Delete(st);
  }
  cJSON_Delete(hello);
  expectAck(c, "{\"cmd\":\"integrator\",\"name\":\"rk4\"}", "integrator", 1);
  ws_drain(c);
  expectAck(c, "{\"cmd\":\"step\"}", "step", 1);
  cJSON* st = nextStats(c);
  cr_expect_str_eq(cJSON_GetObjectItem(st, "integrator")->valuestring, "rk4");
  cJSON_Delete(st);
  const char* bad[] = {"{\"cmd\":\"solver\",\"name\":\"nope\"}",
                       "{\"cmd\":\"solver\",\"name\":5}", "{\"cmd\":\"solver\"}",
                       "{\"cmd\":\"integrator\",\"name\":\"\"}",
                       "{\"cmd\":\"integrator\",\"name\":\"pgs\"}"};
  for (int i = 0; i < 5; i++) {
    expectError(c, 1, bad[i], strlen(bad[i]), bad[i]);
  }
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}


Test(view_ws, warnings_reach_the_page) {
  // tests/viewer/unstable.xml diverges within a few steps: the engine resets it with a warning
  mg_init_library(0);
  ViewServer s;
  cr_assert_eq(vs_start(&s, MODUCO_SOURCE_DIR "/tests/viewer/unstable.xml", NULL, 20), 0);
  WsClient* c = ws_open(s.port);
  cr_assert_not_null(c);
  int found = 0;
  WsMessage m;
  for (int i = 0; i < 20 && !found && ws_nextText(c, &m, 5); i++) {
    cJSON* j = cJSON_Parse(m.data);
    if (j && !strcmp(typeOf(j), "warning")) {
      found = 1;
      cr_expect_geq(cJSON_GetObjectItem(j, "count")->valueint, 1);
      cr_expect(strstr(cJSON_GetObjectItem(j, "text")->valuestring, "unstable"), "%s", m.data);
    }
    cJSON_Delete(j);
    free(m.data);
  }
  cr_expect(found, "no warning message reached the client");
  ws_close(c);
  cr_expect_eq(vs_stop(&s, 10), 0);
  mg_exit_library();
}


Test(view_ws, hostile_frames, .init = startHumanoid, .fini = stopServer) {
  // frame headers announcing 2^62 and 3 GiB of payload, then garbage bytes: the server drops
  // those connections and goes on serving the others
  WsClient* c = ws_open(g_server.port);
  cr_assert_not_null(c);
  const uint64_t sizes[] = {1ull << 62, 3ull << 30};
  for (int i = 0; i < 3; i++) {
    int fd = ws_rawOpen(g_server.port, 0);
    cr_assert_geq(fd, 0, "WebSocket handshake on a raw socket");
    unsigned char buf[4096];
    memset(buf, 'x', sizeof(buf));
    size_t n = sizeof(buf);
    if (i < 2) {                      // masked text frame, 64-bit length
      buf[0] = 0x81;
      buf[1] = 0x80 | 127;
      for (int k = 0; k < 8; k++) {
        buf[2 + k] = (unsigned char)(sizes[i] >> (56 - 8 * k));
      }
    } else {                          // not a frame at all
      for (size_t k = 0; k < n; k++) {
        buf[k] = (unsigned char)(k * 2654435761u >> 13);
      }
    }
    cr_expect_eq(write(fd, buf, n), (ssize_t)n);
    usleep(300000);
    close(fd);
  }
  ws_drain(c);
  Frame a = nextFrame(c);
  Frame b = nextFrame(c);
  cr_expect(b.time > a.time, "the simulation still runs: %g %g", a.time, b.time);
  cr_expect_eq(vs_http(g_server.port, "GET", "/model.json", NULL, NULL), 200);
  ws_close(c);
}


Test(view_ws, clients_come_and_go, .init = startHumanoid, .fini = stopServer) {
  // several clients at once, one leaving early: the others keep receiving frames
  WsClient* c[3];
  for (int i = 0; i < 3; i++) {
    c[i] = ws_open(g_server.port);
    cr_assert_not_null(c[i]);
  }
  ws_close(c[1]);
  for (int i = 0; i < 3; i += 2) {
    nextFrame(c[i]);
    ws_drain(c[i]);
    nextFrame(c[i]);
  }
  ws_close(c[0]);
  ws_close(c[2]);
  cr_expect_eq(vs_http(g_server.port, "GET", "/model.json", NULL, NULL), 200,
               "still serving after clients left");
}


// run `moduco view ARGS` and return its exit status (stdout and stderr discarded)
static int runView(const char* args) {
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "timeout 20 '%s' view %s >/dev/null 2>&1", MODUCO_CLI, args);
  int status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(view_cli, bad_arguments) {
  cr_expect_eq(runView(""), 2, "no model");
  cr_expect_eq(runView(HUMANOID " --port 70000"), 2, "port out of range");
  cr_expect_eq(runView(HUMANOID " --port x"), 2, "port not a number");
  cr_expect_eq(runView(HUMANOID " --fps 0"), 2, "zero frame rate");
  cr_expect_eq(runView(HUMANOID " --bind ::1"), 2, "not an IPv4 address");
  cr_expect_eq(runView(HUMANOID " --frobnicate"), 2, "unknown option");
  cr_expect_eq(runView("/nonexistent/model.xml"), 1, "missing model file");
}

// run `moduco view ARGS` for 2 s (then SIGTERM, a clean stop) and return its stdout and stderr
static char* runViewOutput(const char* args, int* status) {
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "timeout --preserve-status 2 '%s' view %s 2>&1", MODUCO_CLI, args);
  FILE* p = popen(cmd, "r");
  cr_assert_not_null(p);
  static char out[8192];
  size_t n = fread(out, 1, sizeof(out) - 1, p);
  out[n] = 0;
  *status = pclose(p);
  return out;
}

Test(view_cli, non_loopback_bind_warns) {
  // the default is loopback, without a warning; --bind 0.0.0.0 (every interface) is printed as
  // a warning on stderr, and the server does serve there
  int status;
  const char* out = runViewOutput(HUMANOID " --port 0", &status);
  cr_expect(strstr(out, "on http://127.0.0.1:"), "default bind is loopback: %s", out);
  cr_expect(!strstr(out, "WARNING"), "no warning on loopback: %s", out);
  out = runViewOutput(HUMANOID " --port 0 --bind 0.0.0.0", &status);
  cr_expect(strstr(out, "WARNING: listening on 0.0.0.0, not loopback"), "warning: %s", out);
  cr_expect(strstr(out, "on http://0.0.0.0:"), "%s", out);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "SIGTERM stops it cleanly (status %d)", status);
}

Test(view_cli, port_in_use, .init = startHumanoid, .fini = stopServer) {
  char args[1024];
  snprintf(args, sizeof(args), "%s --port %d", HUMANOID, g_server.port);
  cr_expect_eq(runView(args), 1, "a second server on a taken port must fail");
}
