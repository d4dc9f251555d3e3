// Tests of core/engine/io.c: allocation, reset, keyframes, copy, the stack, warnings, state.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/io.h"

// a hand-sized model: 2 bodies, one free joint (nq 7, nv 6), 2 actuators, 1 mocap, 1 key
static mcModel* makeSmall(void) {
  mcModel sizes;
  memset(&sizes, 0, sizeof(sizes));
  mci_defaultOption(&sizes.opt);
  sizes.nq = 7;
  sizes.nv = 6;
  sizes.nu = 2;
  sizes.na = 1;
  sizes.nbody = 3;
  sizes.njnt = 1;
  sizes.nmocap = 1;
  sizes.nkey = 2;
  sizes.neq = 1;
  sizes.nM = 21;
  sizes.nuserdata = 3;
  mcModel* m = mci_makeModel(&sizes);
  cr_assert_not_null(m);
  for (int i = 0; i < m->nq; i++) {
    m->qpos0[i] = 0.5 + i;
  }
  m->body_mocapid[0] = -1;
  m->body_mocapid[1] = -1;
  m->body_mocapid[2] = 0;
  m->body_pos[6] = 1.5;
  m->body_quat[8] = 1;
  m->eq_active0[0] = 1;
  for (int k = 0; k < m->nkey; k++) {
    m->key_time[k] = 10 + k;
    for (int i = 0; i < m->nq; i++) m->key_qpos[k * m->nq + i] = 100 * (k + 1) + i;
    for (int i = 0; i < m->nv; i++) m->key_qvel[k * m->nv + i] = -i - k;
    m->key_act[k] = 0.25 * k;
    m->key_ctrl[k * 2] = 3 + k;
    m->key_mquat[k * 4] = 1;
  }
  return m;
}


Test(io, make_model_zeroed_and_aligned) {
  mcModel* m = makeSmall();
  cr_expect_eq(m->nq, 7);
  cr_expect_eq(((uintptr_t)m->qpos0) % 64, 0);
  cr_expect_eq(((uintptr_t)m->key_mpos) % 64, 0);
  cr_expect_eq(m->dof_damping[5], 0.0);
  cr_expect_gt(m->nbuffer, 0);
  mc_deleteModel(m);
}


Test(io, reset_sets_defaults) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  d->qvel[2] = 7;
  d->ctrl[1] = 2;
  d->time = 4;
  d->xfrc_applied[5] = 1;
  mc_resetData(m, d);
  for (int i = 0; i < m->nq; i++) {
    cr_expect_eq(d->qpos[i], m->qpos0[i]);
  }
  cr_expect_eq(d->qvel[2], 0.0);
  cr_expect_eq(d->ctrl[1], 0.0);
  cr_expect_eq(d->time, 0.0);
  cr_expect_eq(d->xfrc_applied[5], 0.0);
  cr_expect_eq(d->mocap_pos[0], 1.5);
  cr_expect_eq(d->mocap_quat[0], 1.0);
  cr_expect_eq(d->eq_active[0], 1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, keyframe_reset) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  cr_assert_eq(mc_resetDataKeyframe(m, d, 1), 0);
  cr_expect_eq(d->time, 11.0);
  cr_expect_eq(d->qpos[3], 203.0);
  cr_expect_eq(d->qvel[4], -5.0);
  cr_expect_eq(d->act[0], 0.25);
  cr_expect_eq(d->ctrl[0], 4.0);
  cr_expect_eq(mc_resetDataKeyframe(m, d, 2), -1);
  cr_expect_eq(mc_resetDataKeyframe(m, d, -1), -1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, copy_data_is_deep) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  d->qpos[1] = 42;
  d->time = 3;
  mcData* c = mc_copyData(NULL, m, d);
  cr_assert_not_null(c);
  cr_expect_neq(c->qpos, d->qpos);
  cr_expect_eq(c->qpos[1], 42.0);
  cr_expect_eq(c->time, 3.0);
  d->qpos[1] = 0;
  cr_expect_eq(c->qpos[1], 42.0);
  cr_expect((char*)c->arena > (char*)c->buffer);
  cr_expect((char*)c->arena < (char*)c->buffer + c->nbuffer);
  mc_deleteData(c);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, data_matches_only_its_model_sizes) {
  mcModel* m = makeSmall();
  mcModel* same = mc_copyModel(NULL, m);
  mcData* d = mc_makeData(m);
  cr_assert_not_null(same);
  cr_expect_eq(mc_dataMatches(m, d), 1);
  cr_expect_eq(mc_dataMatches(same, d), 1);      // a copy has the same sizes
  mcModel sizes = *m;                             // mci_makeModel reads only sizes and options
  sizes.nuserdata = m->nuserdata + 1;
  mcModel* other = mci_makeModel(&sizes);
  cr_assert_not_null(other);
  cr_expect_eq(mc_dataMatches(other, d), 0);     // one size differs
  mc_deleteData(d);
  mc_deleteModel(other);
  mc_deleteModel(same);
  mc_deleteModel(m);
}


Test(io, stack_frames_nest_and_restore) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  size_t p0 = d->pstack;

  mc_markStack(d);
  mcNum* a = mcSTACKALLOC(d, 10, mcNum);
  cr_assert_not_null(a);
  cr_expect_eq(((uintptr_t)a) % 16, 0);
  a[9] = 1;
  size_t p1 = d->pstack;

  // inner frame
  mc_markStack(d);
  int* b = mcSTACKALLOC(d, 3, int);
  cr_assert_not_null(b);
  cr_expect((char*)b < (char*)a);
  mc_freeStack(d);
  cr_expect_eq(d->pstack, p1);

  mc_freeStack(d);
  cr_expect_eq(d->pstack, p0);
  cr_expect_eq(d->stack_marks, 0);
  cr_expect_gt(d->maxuse_stack, 10 * sizeof(mcNum));
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, stack_overflow_returns_null) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  mc_markStack(d);
  void* p = mc_stackAlloc(d, d->narena + 1, 16);
  cr_expect_null(p);
  mc_freeStack(d);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, arena_and_stack_do_not_overlap) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  void* a = mci_arenaAlloc(d, d->narena / 2, 8);
  cr_assert_not_null(a);
  mc_markStack(d);
  void* s = mc_stackAlloc(d, d->narena / 2, 16);
  cr_expect_null(s);
  mc_freeStack(d);
  mci_clearArena(d);
  cr_expect_eq(d->parena, 0);
  mc_deleteData(d);
  mc_deleteModel(m);
}


static int g_count;
static char g_last[512];
static void capture(void* user, const char* msg) {
  (void)user;
  g_count++;
  snprintf(g_last, sizeof(g_last), "%s", msg);
}


Test(io, warning_counted_printed_once) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  g_count = 0;
  mc_setMessageHandler(capture, NULL);
  d->time = 1.25;
  mc_warning(d, mcWARN_BADQACC, 4);
  mc_warning(d, mcWARN_BADQACC, 5);
  mc_setMessageHandler(NULL, NULL);
  cr_expect_eq(g_count, 1);
  cr_expect(strstr(g_last, "QACC at DOF 4") != NULL, "message: %s", g_last);
  cr_expect(strstr(g_last, "1.25") != NULL, "message: %s", g_last);
  cr_expect_eq(d->warning[mcWARN_BADQACC].number, 2);
  cr_expect_eq(d->warning[mcWARN_BADQACC].lastinfo, 5);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, state_roundtrip) {
  mcModel* m = makeSmall();
  mcData* d = mc_makeData(m);
  unsigned spec = mcSTATE_INTEGRATION;
  int n = mc_stateSize(m, spec);
  cr_expect_eq(n, 1 + 7 + 6 + 1 + 6 + 2 + 6 + 18 + 1 + 3 + 4 + 3 + 0);
  mcNum state[128], back[128];
  for (int i = 0; i < n; i++) {
    state[i] = 0.5 * i + 1;
  }
  state[47] = 1;  // eq_active is a flag: only 0 or 1 reads back unchanged
  mc_setState(m, d, state, spec);
  cr_expect_eq(d->time, 1.0);
  cr_expect_eq(d->qpos[0], 1.5);
  cr_expect_eq(d->eq_active[0], 1);
  mc_getState(m, d, back, spec);
  for (int i = 0; i < n; i++) {
    cr_expect_eq(back[i], state[i], "component %d", i);
  }
  cr_expect_eq(mc_stateSize(m, mcSTATE_PHYSICS), 7 + 6 + 1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(io, copy_model) {
  mcModel* m = makeSmall();
  mcModel* c = mc_copyModel(NULL, m);
  cr_assert_not_null(c);
  cr_expect_neq(c->qpos0, m->qpos0);
  cr_expect_eq(c->qpos0[3], m->qpos0[3]);
  cr_expect_eq(c->key_qpos[9], m->key_qpos[9]);
  mc_deleteModel(c);
  mc_deleteModel(m);
}


// a legacy <size nstack> (MuJoCo 2.x, e.g. arm26.xml) must not shrink the arena below what the
// model needs for contacts, constraint rows and scratch: stepping raises no buffer warning
Test(io, legacy_nstack_does_not_starve_arena) {
  static const char* xml =
    "<mujoco><size njmax=\"50\" nconmax=\"10\" nstack=\"200\"/>"
    "<worldbody><geom type=\"plane\" size=\"1 1 .1\"/>"
    "<body pos=\"0 0 .2\"><freejoint/><geom type=\"sphere\" size=\".1\"/></body>"
    "<body pos=\".3 0 .2\"><freejoint/><geom type=\"box\" size=\".1 .1 .1\"/></body>"
    "</worldbody></mujoco>";
  char err[512] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_expect_eq(m->nstack, 200);
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  cr_expect_geq(d->narena, 200 * sizeof(mcNum));
  g_count = 0;
  mc_setMessageHandler(capture, NULL);
  for (int i = 0; i < 300; i++) {
    mc_step(m, d);
  }
  mc_setMessageHandler(NULL, NULL);
  cr_expect_gt(d->ncon, 0, "the bodies should rest on the plane");
  cr_expect_eq(d->warning[mcWARN_CNSTRFULL].number, 0);
  cr_expect_eq(d->warning[mcWARN_CONTACTFULL].number, 0);
  cr_expect_eq(g_count, 0, "unexpected message: %s", g_last);
  mc_deleteData(d);
  mc_deleteModel(m);
}
