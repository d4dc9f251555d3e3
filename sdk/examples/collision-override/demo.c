// A sphere resting on a plane (turned 30 degrees about z, so its x axis is not the world's).
// Prints which collision plugin collided the plane-sphere pair (from the per-plugin timers) and
// the contact, and checks it against the geometry, with the core's check mode on.
//   sphereplane-demo override   expects example.sphereplane (the plugin on MODUCO_PLUGIN_PATH)
//   sphereplane-demo builtin    expects the built-in "primitive"
// The "contact:" line is the same in both runs (tests/plugin/sdk_example.cmake compares them).
// Exit status 0 when the expected plugin ran and its contacts are right.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

static const char* kModel =
  "<mujoco>\n"
  "  <option timestep='0.002'/>\n"
  "  <worldbody>\n"
  "    <geom name='floor' type='plane' size='2 2 0.1' euler='0 0 30'/>\n"
  "    <body name='ball' pos='0.1 0.2 0.0995'>\n"
  "      <freejoint/>\n"
  "      <geom name='ball' type='sphere' size='0.1'/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";


// the collision plugin whose timer counted calls; NULL if none
static const char* collider(const mcModel* m, const mcData* d) {
  for (int s = mcTIMERPLUGIN_COLLISION; s < mcTIMERPLUGIN_ELEMENT; s++) {
    if (d->timer_plugin[s].number > 0) {
      return mc_timerPluginName(m, s);
    }
  }
  return NULL;
}


// the contact against the geometry: normal = plane z, dist = height - r, pos halfway into the
// penetration; with the override, second axis = plane x; return the number of mismatches
static int checkContact(const mcModel* m, const mcData* d, int override) {
  const mcContact* c = d->contact;
  const mcNum* mat = d->geom_xmat;  // geom 0: the floor
  const mcNum* ball = d->geom_xpos + 3;
  mcNum r = m->geom_size[3];
  mcNum dist = ball[2] - r;
  int bad = 0;
  bad += fabs(c->dist - dist) > 1e-12;
  bad += fabs(c->pos[0] - ball[0]) > 1e-12 || fabs(c->pos[1] - ball[1]) > 1e-12 ||
         fabs(c->pos[2] - (ball[2] - r - dist / 2)) > 1e-12;
  bad += fabs(c->frame[0]) > 1e-12 || fabs(c->frame[1]) > 1e-12 || fabs(c->frame[2] - 1) > 1e-12;
  if (override) {
    bad += fabs(c->frame[3] - mat[0]) > 1e-12 || fabs(c->frame[4] - mat[3]) > 1e-12 ||
           fabs(c->frame[5] - mat[6]) > 1e-12;
  }
  return bad;
}


int main(int argc, char** argv) {
  int override = argc > 1 && !strcmp(argv[1], "override");
  const char* expect = override ? "example.sphereplane" : "primitive";
  char error[1024];
  mcModel* m = mc_loadXMLString(kModel, NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  mcData* d = mc_makeData(m);
  d->profile = 1;
  mc_setPluginCheck(d, 1);

  // the contact at the start
  mc_forward(m, d);
  const char* who = collider(m, d);
  printf("plane-sphere collided by: %s\n", who ? who : "(none)");
  if (d->ncon != 1) {
    fprintf(stderr, "expected 1 contact, got %d\n", d->ncon);
    return 2;
  }
  const mcContact* c = d->contact;
  printf("contact: dist %.12f pos %.12f %.12f %.12f normal %.12f %.12f %.12f\n", c->dist,
         c->pos[0], c->pos[1], c->pos[2], c->frame[0], c->frame[1], c->frame[2]);
  printf("friction axis: %.12f %.12f %.12f\n", c->frame[3], c->frame[4], c->frame[5]);
  int bad = checkContact(m, d, override);

  // at rest after a second: still one contact, still right, no check warning
  for (int i = 0; i < 500; i++) {
    mc_step(m, d);
  }
  mc_forward(m, d);
  printf("after 1 s: height %.9f, %d contact(s), %d check warning(s)\n", d->qpos[2], d->ncon,
         d->warning[mcWARN_PLUGINCHECK].number);
  bad += d->ncon != 1 || checkContact(m, d, override);
  bad += fabs(d->qpos[2] - 0.1) > 1e-3;
  int ok = who && !strcmp(who, expect) && !bad && d->warning[mcWARN_PLUGINCHECK].number == 0;
  if (!ok) {
    fprintf(stderr, "expected %s with the analytic contact (mismatches: %d)\n", expect, bad);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  return ok ? 0 : 3;
}
