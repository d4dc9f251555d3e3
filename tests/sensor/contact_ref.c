// MuJoCo 3.14 reference runs for tests/sensor (see contact_ref.h).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "contact_ref.h"
#include "testutil.h"

void cr_open(crCase* k, const char* dir, const char* file, int nstep) {
  TU_MJS314_REQUIRE();
  char steps[32], err[1024] = "", path[1024];
  snprintf(steps, sizeof(steps), "%d", nstep);
  const char* args[] = {dir, steps, file, NULL};
  k->out = tu_mjs3Json("tests/sensor/contact_ref.mjs", args, NULL, err, sizeof(err));
  cr_assert_not_null(k->out, "MuJoCo 3.14 reference: %s", err);
  k->ref = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k->out, "models"), 0);
  const cJSON* e = cJSON_GetObjectItemCaseSensitive(k->ref, "error");
  cr_assert(!e, "MuJoCo 3.14 does not load %s: %s", file, cJSON_IsString(e) ? e->valuestring : "");
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  k->m = mc_loadXML(path, err, sizeof(err));
  cr_assert_not_null(k->m, "Moduco does not load %s: %s", file, err);
  k->d = mc_makeData(k->m);
  cr_assert_not_null(k->d);
  if (k->m->nkey > 0) {
    cr_assert_eq(mc_resetDataKeyframe(k->m, k->d, 0), 0);
  }
  mc_forward(k->m, k->d);
}

void cr_close(crCase* k) {
  mc_deleteData(k->d);
  mc_deleteModel(k->m);
  cJSON_Delete(k->out);
}

void cr_step(crCase* k, int nstep) {
  for (int i = 0; i < nstep; i++) {
    mc_step(k->m, k->d);
  }
  mc_forward(k->m, k->d);
}

const cJSON* cr_field(const crCase* k, const char* group, const char* field) {
  const cJSON* obj = group ? cJSON_GetObjectItemCaseSensitive(k->ref, group) : k->ref;
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(obj, field);
  cr_assert_not_null(a, "reference field %s%s%s missing", group ? group : "", group ? "." : "",
                     field);
  return a;
}

double cr_compare(const crCase* k, const char* group, const char* field, const mcNum* ours, int n,
                  double tol, const char* what) {
  const cJSON* a = cr_field(k, group, field);
  cr_assert_eq(cJSON_GetArraySize(a), n, "%s %s: %d values in MuJoCo 3.14, %d in Moduco", what,
               field, cJSON_GetArraySize(a), n);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double b = cJSON_GetArrayItem(a, i)->valuedouble;
    double e = fabs((double)ours[i] - b) / fmax(1, fabs(b));
    cr_assert(e <= tol, "%s %s[%d]: Moduco %.12g, MuJoCo 3.14 %.12g (error %.3g > %.3g)", what,
              field, i, (double)ours[i], b, e, tol);
    worst = fmax(worst, e);
  }
  return worst;
}

void cr_compareContacts(const crCase* k, const char* group, double tol) {
  const cJSON* g = cJSON_GetObjectItemCaseSensitive(k->ref, group);
  const cJSON* cons = cJSON_GetObjectItemCaseSensitive(g, "contacts");
  cr_assert_eq(cJSON_GetArraySize(cons), k->d->ncon, "%s: %d contacts in MuJoCo 3.14, %d in Moduco",
               group, cJSON_GetArraySize(cons), k->d->ncon);
  for (int i = 0; i < k->d->ncon; i++) {
    const mcContact* c = k->d->contact + i;
    const cJSON* r = cJSON_GetArrayItem(cons, i);
    cr_assert_eq((int)cJSON_GetArrayItem(r, 0)->valuedouble, c->geom1, "%s contact %d geom1", group,
                 i);
    cr_assert_eq((int)cJSON_GetArrayItem(r, 1)->valuedouble, c->geom2, "%s contact %d geom2", group,
                 i);
    double ours[4] = {c->dist, c->pos[0], c->pos[1], c->pos[2]};
    for (int j = 0; j < 4; j++) {
      double b = cJSON_GetArrayItem(r, 2 + j)->valuedouble;
      cr_assert(fabs(ours[j] - b) <= tol, "%s contact %d value %d: Moduco %.12g, MuJoCo %.12g",
                group, i, j, ours[j], b);
    }
  }
}

void cr_loadError(const char* dir, const char* file, char* err, int err_sz) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  err[0] = 0;
  mcModel* m = mc_loadXML(path, err, err_sz);
  if (m) {
    mc_deleteModel(m);
  }
  cr_assert_null(m, "Moduco loads %s, which must be refused", file);
  cr_assert(err[0], "no error message for %s", file);
}
