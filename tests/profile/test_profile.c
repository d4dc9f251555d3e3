// Tests of the profiler: with d->profile off no timer is touched; with it on the stage timers and
// the per-plugin timers (mcData.timer_plugin) are filled, each plugin slot names the plugin the
// model calls, and the plugin slots of a stage sum to at most that stage's timer. Counts and
// inclusion only: no duration is compared with a speed.
#include <criterion/criterion.h>
#include <string.h>

#include <moduco/moduco.h>
#include <moduco/mcplugin.h>

#include "engine/collision.h"
#include "engine/engine.h"
#include "engine/threadpool.h"
#include "plugin/registry.h"

// a muscle on a spatial tendon (the 'general' actuator plugin), a motor (core fast path),
// sensors (the 'standard' sensor plugin), contacts (collision plugins), noslip (postsolver)
static const char* kModel =
  "<mujoco>"
  "  <option timestep='0.002' noslip_iterations='2'/>"
  "  <worldbody>"
  "    <geom name='floor' type='plane' size='2 2 0.1'/>"
  "    <body name='ball' pos='0 0 0.09'>"
  "      <freejoint/>"
  "      <geom type='sphere' size='0.1' mass='1'/>"
  "    </body>"
  "    <body name='box' pos='0.5 0 0.09'>"
  "      <freejoint/>"
  "      <geom type='box' size='0.1 0.1 0.1' mass='1'/>"
  "    </body>"
  "    <site name='anchor' pos='0 0 1.5'/>"
  "    <body name='arm' pos='0 0 1'>"
  "      <joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>"
  "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03' mass='0.5'/>"
  "      <site name='tip' pos='0.3 0 0'/>"
  "    </body>"
  "  </worldbody>"
  "  <tendon><spatial name='t'><site site='anchor'/><site site='tip'/></spatial></tendon>"
  "  <actuator>"
  "    <muscle name='mus' tendon='t' ctrllimited='true' ctrlrange='0 1'/>"
  "    <motor joint='hinge' gear='1'/>"
  "  </actuator>"
  "  <sensor><jointpos joint='hinge'/><actuatorfrc actuator='mus'/><touch site='tip'/></sensor>"
  "</mujoco>";


static mcModel* load(const char* integrator) {
  char err[1024] = "";
  mcModel* m = mc_loadXMLString(kModel, NULL, err, sizeof(err));
  cr_assert_not_null(m, "load: %s", err);
  if (integrator) {
    cr_assert_eq(mc_setIntegrator(m, integrator, err, sizeof(err)), 0, "%s", err);
  }

  // the noslip postsolver (bound by the compiler; by hand if an older compiler did not)
  if (!m->postsolver) {
    m->postsolver = (const mcpPostsolver*)mcp_find(mcpKIND_POSTSOLVER, "noslip");
  }
  cr_assert_not_null(m->postsolver, "the noslip postsolver plugin should be registered");
  return m;
}


static void run(const mcModel* m, mcData* d, int steps) {
  for (int t = 0; t < steps; t++) {
    d->ctrl[0] = 0.5;
    d->ctrl[1] = 0.1;
    mc_step(m, d);
  }
}


// per-plugin timer slot of the first element plugin instance of a kind, or -1
static int elementSlot(const mcModel* m, int kind) {
  for (int i = 0; i < m->nplugin; i++) {
    if (m->plugin[i] && (int)m->plugin[i]->kind == kind) {
      return mcp_elementSlot(m->plugin[i]);
    }
  }
  return -1;
}


// is instance i the first instance of its descriptor
static int firstInstance(const mcModel* m, int i) {
  for (int j = 0; j < i; j++) {
    if (m->plugin[j] == m->plugin[i]) {
      return 0;
    }
  }
  return 1;
}


// sum of the durations of the element slots of one kind (one slot per plugin, not per instance)
static double elementSum(const mcModel* m, const mcData* d, int kind) {
  double s = 0;
  for (int i = 0; i < m->nplugin; i++) {
    if (m->plugin[i] && (int)m->plugin[i]->kind == kind && firstInstance(m, i)) {
      s += d->timer_plugin[mcp_elementSlot(m->plugin[i])].duration;
    }
  }
  return s;
}


// the plugin slots of each stage sum to at most the stage timer (every plugin interval is read
// inside its stage interval; the slack covers rounding of the accumulated sums only)
#define SLACK 1e-9

static void checkInclusion(const mcModel* m, const mcData* d) {
  const mcTimerStat* t = d->timer;
  const mcTimerStat* p = d->timer_plugin;
  cr_assert_leq(p[mcTIMERPLUGIN_INTEGRATOR].duration, t[mcTIMER_INTEGRATOR].duration + SLACK);
  cr_assert_leq(p[mcTIMERPLUGIN_SOLVER].duration + p[mcTIMERPLUGIN_POSTSOLVER].duration,
                t[mcTIMER_CONSTRAINT].duration + SLACK);
  cr_assert_leq(p[mcTIMERPLUGIN_POSTSOLVER].duration, t[mcTIMER_POSTSOLVER].duration + SLACK);
  double col = 0;
  for (int k = 0; k < mcNTIMERCOLLISION; k++) {
    col += p[mcTIMERPLUGIN_COLLISION + k].duration;
  }
  cr_assert_leq(col, t[mcTIMER_POS_COLLISION].duration + SLACK);
  cr_assert_leq(elementSum(m, d, mcpKIND_ACTUATOR), t[mcTIMER_ACTUATION].duration + SLACK);
  cr_assert_leq(elementSum(m, d, mcpKIND_SENSOR), t[mcTIMER_SENSOR].duration + SLACK);
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    cr_assert_geq(p[k].duration, 0);
    cr_assert((p[k].number == 0) == (p[k].duration == 0) || p[k].duration == 0,
              "slot %d: %d calls, %g s", k, p[k].number, p[k].duration);
  }
}


Test(profile, offTouchesNothing) {
  mcModel* m = load(NULL);
  mcData* d = mc_makeData(m);
  cr_assert_eq(d->profile, 0, "profiling is off by default");
  run(m, d, 50);
  mc_forward(m, d);
  for (int k = 0; k < mcNTIMER; k++) {
    cr_assert(d->timer[k].number == 0 && d->timer[k].duration == 0, "timer %d touched", k);
  }
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    cr_assert(d->timer_plugin[k].number == 0 && d->timer_plugin[k].duration == 0,
              "plugin timer %d touched", k);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// profiling turned off on a data stepping on a thread pool: its timers stay as they were (the
// pool's per-thread views of the data copy its timers; with profiling off they are neither reset
// nor merged back, so a merge of the copies would double them)
Test(profile, offOnPoolKeepsTimers) {
  mcModel* m = load(NULL);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert_not_null(pool);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  d->profile = 1;
  run(m, d, 20);
  cr_assert_gt(d->timer[mcTIMER_POS_COLLISION].number, 0, "the profiled steps fill the timers");
  mcTimerStat timer[mcNTIMER], plugin[mcNTIMERPLUGIN];
  memcpy(timer, d->timer, sizeof(timer));
  memcpy(plugin, d->timer_plugin, sizeof(plugin));
  d->profile = 0;
  run(m, d, 30);
  cr_assert_gt(d->ncon, 0, "the steps collide on the pool");
  for (int k = 0; k < mcNTIMER; k++) {
    cr_assert(d->timer[k].number == timer[k].number && d->timer[k].duration == timer[k].duration,
              "timer %d changed with profiling off: %d calls, %g s (was %d, %g)", k,
              d->timer[k].number, d->timer[k].duration, timer[k].number, timer[k].duration);
  }
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    cr_assert(d->timer_plugin[k].number == plugin[k].number &&
              d->timer_plugin[k].duration == plugin[k].duration,
              "plugin timer %d changed with profiling off", k);
  }
  mc_bindThreadPool(d, NULL);
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(profile, onFillsStageAndPluginTimers) {
  mcModel* m = load(NULL);
  mcData* d = mc_makeData(m);
  d->profile = 1;
  int steps = 40;
  run(m, d, steps);
  cr_assert_gt(d->ncon, 0, "the scene should be in contact");

  // stage timers
  cr_assert_eq(d->timer[mcTIMER_STEP].number, steps);
  cr_assert_eq(d->timer[mcTIMER_INTEGRATOR].number, steps);
  cr_assert_eq(d->timer[mcTIMER_FORWARD].number, steps);
  cr_assert_gt(d->timer[mcTIMER_STEP].duration, 0);

  // integrator, solver, postsolver slots: one call per step each
  const mcTimerStat* p = d->timer_plugin;
  cr_assert_eq(p[mcTIMERPLUGIN_INTEGRATOR].number, steps);
  cr_assert_eq(p[mcTIMERPLUGIN_SOLVER].number, steps);
  cr_assert_eq(p[mcTIMERPLUGIN_POSTSOLVER].number, steps);
  cr_assert_gt(p[mcTIMERPLUGIN_INTEGRATOR].duration, 0);
  cr_assert_gt(p[mcTIMERPLUGIN_SOLVER].duration, 0);
  cr_assert_str_eq(mc_timerPluginName(m, mcTIMERPLUGIN_INTEGRATOR), m->integrator->hdr.name);
  cr_assert_str_eq(mc_timerPluginName(m, mcTIMERPLUGIN_SOLVER), m->solver->hdr.name);
  cr_assert_str_eq(mc_timerPluginName(m, mcTIMERPLUGIN_POSTSOLVER), m->postsolver->hdr.name);

  // the muscle's plugin: act_dot and force once per step each; the motor is not a plugin call
  int sa = elementSlot(m, mcpKIND_ACTUATOR);
  cr_assert_geq(sa, 0, "the muscle should be bound to an actuator plugin");
  cr_assert_eq(p[sa].number, 2 * steps);
  for (int i = 0; i < m->nplugin; i++) {
    if ((int)m->plugin[i]->kind == mcpKIND_ACTUATOR) {
      cr_assert_str_eq(mc_timerPluginName(m, sa), m->plugin[i]->name);
      break;
    }
  }

  // the sensor plugins (one per sensor type): one call per sensor per step
  cr_assert_geq(elementSlot(m, mcpKIND_SENSOR), 0, "sensors should be served by plugins");
  int nsens = 0;
  for (int i = 0; i < m->nplugin; i++) {
    if ((int)m->plugin[i]->kind == mcpKIND_SENSOR && firstInstance(m, i)) {
      int slot = mcp_elementSlot(m->plugin[i]);
      nsens += p[slot].number;
      cr_assert_gt(p[slot].number, 0, "sensor plugin %s not timed", m->plugin[i]->name);
    }
  }
  cr_assert_eq(nsens, 3 * steps);
  cr_assert_eq(d->timer[mcTIMER_SENSOR].number, 3 * steps, "one sensor stage per forward stage");

  // narrow phase: the plugin that collides plane-sphere was called (at least once per step)
  int kc = mcp_collisionSlot(mcGEOM_PLANE, mcGEOM_SPHERE);
  cr_assert_geq(kc, 0);
  kc = kc < mcNTIMERCOLLISION - 1 ? kc : mcNTIMERCOLLISION - 1;
  cr_assert_geq(p[mcTIMERPLUGIN_COLLISION + kc].number, steps, "collision slot %d not timed", kc);
  cr_assert_gt(p[mcTIMERPLUGIN_COLLISION + kc].duration, 0);

  // unused slots stay empty and unnamed
  for (int k = mcTIMERPLUGIN_ELEMENT; k < mcNTIMERPLUGIN; k++) {
    int used = 0;
    for (int i = 0; i < m->nplugin; i++) {
      used |= mcp_elementSlot(m->plugin[i]) == k;
    }
    if (!used) {
      cr_assert_eq(p[k].number, 0);
      cr_assert_null(mc_timerPluginName(m, k));
    }
  }
  checkInclusion(m, d);

  // a reset clears them; profiling stays on
  mc_resetData(m, d);
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    cr_assert(p[k].number == 0 && p[k].duration == 0, "plugin timer %d not reset", k);
  }
  cr_assert_eq(d->profile, 1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// RK4 runs the forward pipeline inside the integrator: plugin calls made there count in their
// own slot and stage as well, and the inclusion still holds
Test(profile, rk4NestedForward) {
  mcModel* m = load("rk4");
  mcData* d = mc_makeData(m);
  d->profile = 1;
  int steps = 20;
  run(m, d, steps);
  cr_assert_eq(d->timer_plugin[mcTIMERPLUGIN_INTEGRATOR].number, steps);
  cr_assert_gt(d->timer[mcTIMER_FORWARD].number, steps);
  cr_assert_eq(d->timer_plugin[mcTIMERPLUGIN_SOLVER].number, d->timer[mcTIMER_CONSTRAINT].number);
  checkInclusion(m, d);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// forward alone: no integrator call is attributed
Test(profile, forwardOnly) {
  mcModel* m = load(NULL);
  mcData* d = mc_makeData(m);
  d->profile = 1;
  mc_forward(m, d);
  cr_assert_eq(d->timer[mcTIMER_FORWARD].number, 1);
  cr_assert_eq(d->timer_plugin[mcTIMERPLUGIN_INTEGRATOR].number, 0);
  checkInclusion(m, d);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the collision slot of a type pair is the plugin whose function the collide table uses
Test(profile, collisionSlotMatchesTable) {
  int checked = 0;
  for (int t1 = 0; t1 < mcNGEOMTYPES; t1++) {
    for (int t2 = 0; t2 < mcNGEOMTYPES; t2++) {
      mcpfCollide fn = mci_collisionFunc(t1, t2);
      int k = mcp_collisionSlot(t1, t2);
      if (!fn) {
        cr_assert_eq(k, -1, "types %d %d: slot %d without a function", t1, t2, k);
        continue;
      }
      cr_assert_geq(k, 0, "types %d %d: no slot", t1, t2);
      cr_assert_eq(mcp_collisionSlot(t2, t1), k);
      int a = t1 < t2 ? t1 : t2, b = t1 < t2 ? t2 : t1, found = 0;
      const mcpCollision* c = mcp_collision(k);
      cr_assert_not_null(c);
      for (int j = 0; j < c->npair; j++) {
        if (c->pair[j].type1 == a && c->pair[j].type2 == b && c->pair[j].collide == fn) {
          found = 1;
        }
      }
      cr_assert(found, "types %d %d: slot %d (%s) does not own the table's function", t1, t2, k,
                c->hdr.name);
      checked++;
    }
  }
  cr_assert_gt(checked, 0, "no collision plugin found");
  cr_assert_eq(mcp_collisionSlot(-1, 0), -1);
  cr_assert_eq(mcp_collisionSlot(0, mcNGEOMTYPES), -1);
}


// names of collision slots follow the registry; out-of-range slots have none
Test(profile, slotNames) {
  mcModel* m = load(NULL);
  int k = mcp_collisionSlot(mcGEOM_PLANE, mcGEOM_SPHERE);
  cr_assert_geq(k, 0);
  cr_assert_not_null(mc_timerPluginName(m, mcTIMERPLUGIN_COLLISION + k));
  cr_assert_null(mc_timerPluginName(m, -1));
  cr_assert_null(mc_timerPluginName(m, mcNTIMERPLUGIN));
  cr_assert_null(mc_timerPluginName(NULL, 0));
  mc_deleteModel(m);
}
