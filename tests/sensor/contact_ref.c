// MuJoCo 3.14 reference runs for tests/sensor (see contact_ref.h).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "contact_ref.h"
#include "testutil.h"

void cr_open(mrCase* k, const char* dir, const char* file, int nstep) {
  TU_MJS314_REQUIRE();
  mr_openScript(k, "tests/sensor/contact_ref.mjs", dir, file, nstep);
}

void cr_compareContacts(const mrCase* k, const char* group, double tol) {
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
