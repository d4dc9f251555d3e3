// Moduco command-line tool: 'dump' prints the state and forward quantities as one JSON object.
//
// The output contract is documented field by field in docs/dump.md.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"


// a number with full precision (%.17g); non-finite values become null
static cJSON* jsonNumber(double v) {
  if (!isfinite(v)) {
    return cJSON_CreateNull();
  }
  char buf[40];
  snprintf(buf, sizeof(buf), "%.17g", v);
  return cJSON_CreateRaw(buf);
}


// a flat array of n numbers
static cJSON* jsonArray(const mcNum* v, int n) {
  cJSON* a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    cJSON_AddItemToArray(a, jsonNumber(v[i]));
  }
  return a;
}


// a rows x cols matrix as an array of rows
static cJSON* jsonMatrix(const mcNum* v, int rows, int cols) {
  cJSON* a = cJSON_CreateArray();
  for (int r = 0; r < rows; r++) {
    cJSON_AddItemToArray(a, jsonArray(v + (size_t)r * cols, cols));
  }
  return a;
}


// copy one state array from the JSON object if present; return 0, or -1 after an error message
static int loadStateArray(const cJSON* root, const char* file, const char* key, mcNum* dst,
                          int n, const char* sizename) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!a) {
    return 0;
  }
  if (!cJSON_IsArray(a)) {
    cli_error("%s: '%s' must be an array of %d numbers", file, key, n);
    return -1;
  }
  int len = cJSON_GetArraySize(a);
  if (len != n) {
    cli_error("%s: '%s' has %d values, the model has %s=%d", file, key, len, sizename, n);
    return -1;
  }
  int i = 0;
  const cJSON* item;
  cJSON_ArrayForEach(item, a) {
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble)) {
      cli_error("%s: '%s'[%d] is not a finite number", file, key, i);
      return -1;
    }
    dst[i++] = item->valuedouble;
  }
  return 0;
}


// overwrite the state from a JSON file; return 0, or -1 after an error message
static int loadState(const mcModel* m, mcData* d, const char* file) {
  cJSON* root = cli_readJsonObject(file);
  if (!root) {
    return -1;
  }

  // arrays, each with its model size
  int rc = 0;
  rc = rc || loadStateArray(root, file, "qpos", d->qpos, m->nq, "nq");
  rc = rc || loadStateArray(root, file, "qvel", d->qvel, m->nv, "nv");
  rc = rc || loadStateArray(root, file, "act", d->act, m->na, "na");
  rc = rc || loadStateArray(root, file, "ctrl", d->ctrl, m->nu, "nu");
  rc = rc || loadStateArray(root, file, "qfrc_applied", d->qfrc_applied, m->nv, "nv");

  // time, a number
  const cJSON* t = cJSON_GetObjectItemCaseSensitive(root, "time");
  if (!rc && t) {
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble)) {
      cli_error("%s: 'time' must be a finite number", file);
      rc = -1;
    } else {
      d->time = t->valuedouble;
    }
  }
  cJSON_Delete(root);
  return rc ? -1 : 0;
}


// number of null values below an item (dumpJson writes null only for a non-finite number)
static int countNull(const cJSON* item) {
  if (cJSON_IsNull(item)) {
    return 1;
  }
  int n = 0;
  const cJSON* child;
  cJSON_ArrayForEach(child, item) {
    n += countNull(child);
  }
  return n;
}


// say where non-finite values were printed as null: the key "nonfinite" (the names of the
// fields holding them, in output order) and one line on stderr; return their number
static int markNonFinite(cJSON* o, const char* file) {
  cJSON* names = cJSON_CreateArray();
  char list[512] = "";
  int total = 0;
  const cJSON* field;
  cJSON_ArrayForEach(field, o) {
    int n = countNull(field);
    if (n && field->string) {
      total += n;
      cJSON_AddItemToArray(names, cJSON_CreateString(field->string));
      size_t len = strlen(list);
      snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", field->string);
    }
  }
  cJSON_AddItemToObject(o, "nonfinite", names);
  if (total) {
    cli_error("%s: warning: %d non-finite value%s (NaN or inf) printed as null, in %s: the "
              "state diverged or is out of range (docs/dump.md)", file, total,
              total == 1 ? "" : "s", list);
  }
  return total;
}


// build the output object (see docs/dump.md)
static cJSON* dumpJson(const mcModel* m, mcData* d) {
  cJSON* o = cJSON_CreateObject();

  // model sizes
  cJSON* sizes = cJSON_AddObjectToObject(o, "model");
  cJSON_AddNumberToObject(sizes, "nq", m->nq);
  cJSON_AddNumberToObject(sizes, "nv", m->nv);
  cJSON_AddNumberToObject(sizes, "nu", m->nu);
  cJSON_AddNumberToObject(sizes, "na", m->na);
  cJSON_AddNumberToObject(sizes, "nbody", m->nbody);
  cJSON_AddNumberToObject(sizes, "ngeom", m->ngeom);
  cJSON_AddNumberToObject(sizes, "nsensordata", m->nsensordata);

  // state and generalized forces
  cJSON_AddItemToObject(o, "time", jsonNumber(d->time));
  cJSON_AddItemToObject(o, "qpos", jsonArray(d->qpos, m->nq));
  cJSON_AddItemToObject(o, "qvel", jsonArray(d->qvel, m->nv));
  cJSON_AddItemToObject(o, "act", jsonArray(d->act, m->na));
  cJSON_AddItemToObject(o, "qacc", jsonArray(d->qacc, m->nv));
  cJSON_AddItemToObject(o, "qfrc_bias", jsonArray(d->qfrc_bias, m->nv));
  cJSON_AddItemToObject(o, "qfrc_passive", jsonArray(d->qfrc_passive, m->nv));
  cJSON_AddItemToObject(o, "qfrc_actuator", jsonArray(d->qfrc_actuator, m->nv));
  cJSON_AddItemToObject(o, "qfrc_constraint", jsonArray(d->qfrc_constraint, m->nv));

  // dense inertia
  size_t nv = (size_t)m->nv;
  mcNum* dense = calloc(nv * nv > 0 ? nv * nv : 1, sizeof(mcNum));
  if (dense) {
    mc_fullM(m, dense, d->qM);
    cJSON_AddItemToObject(o, "qM", jsonMatrix(dense, m->nv, m->nv));
    free(dense);
  }

  // body poses
  cJSON_AddItemToObject(o, "xpos", jsonMatrix(d->xpos, m->nbody, 3));
  cJSON_AddItemToObject(o, "xquat", jsonMatrix(d->xquat, m->nbody, 4));

  // contacts
  cJSON_AddNumberToObject(o, "ncon", d->ncon);
  cJSON* contacts = cJSON_AddArrayToObject(o, "contact");
  for (int i = 0; i < d->ncon && d->contact; i++) {
    const mcContact* c = d->contact + i;
    cJSON* jc = cJSON_CreateObject();
    cJSON_AddNumberToObject(jc, "geom1", c->geom1);
    cJSON_AddNumberToObject(jc, "geom2", c->geom2);
    cJSON_AddItemToObject(jc, "dist", jsonNumber(c->dist));
    cJSON_AddItemToObject(jc, "pos", jsonArray(c->pos, 3));
    cJSON_AddItemToObject(jc, "normal", jsonArray(c->frame, 3));
    cJSON_AddItemToArray(contacts, jc);
  }

  // constraints, actuators, tendons, sensors, energy
  cJSON_AddNumberToObject(o, "nefc", d->nefc);
  cJSON_AddItemToObject(o, "efc_force",
                        d->nefc > 0 && d->efc_force ? jsonArray(d->efc_force, d->nefc)
                                                    : cJSON_CreateArray());
  cJSON_AddItemToObject(o, "actuator_force", jsonArray(d->actuator_force, m->nu));
  cJSON_AddItemToObject(o, "ten_length", jsonArray(d->ten_length, m->ntendon));
  cJSON_AddItemToObject(o, "actuator_length", jsonArray(d->actuator_length, m->nu));
  cJSON_AddItemToObject(o, "sensordata", jsonArray(d->sensordata, m->nsensordata));
  cJSON_AddItemToObject(o, "energy", jsonArray(d->energy, 2));
  return o;
}


// a geom by name or index (the text up to len); -1 if there is none
static int geomId(const mcModel* m, const char* s, size_t len) {
  char buf[256];
  if (len >= sizeof(buf)) {
    return -1;
  }
  memcpy(buf, s, len);
  buf[len] = 0;
  long id = -1;
  if (cli_parseCount(buf, &id)) {
    id = mc_name2id(m, mcOBJ_GEOM, buf);
  }
  return id >= 0 && id < m->ngeom ? (int)id : -1;
}


// --distance G1,G2[,DISTMAX] (default distmax 1e10): {"geom1", "geom2", "distmax", "dist",
// "fromto"} by mc_geomDistance, or NULL after an error message
static cJSON* distanceJson(const mcModel* m, mcData* d, const char* file, const char* spec) {
  const char* c1 = strchr(spec, ',');
  const char* c2 = c1 ? strchr(c1 + 1, ',') : NULL;
  int g1 = c1 ? geomId(m, spec, (size_t)(c1 - spec)) : -1;
  int g2 = c1 ? geomId(m, c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1)) : -1;
  double distmax = 1e10;
  if (g1 < 0 || g2 < 0 || (c2 && (cli_parseDouble(c2 + 1, &distmax) || !(distmax > 0)))) {
    cli_error("%s: --distance '%s': expected G1,G2[,DISTMAX] with geom names or indices "
              "(the model has %d geoms) and a positive DISTMAX", file, spec, m->ngeom);
    return NULL;
  }
  mcNum fromto[6];
  mcNum dist = mc_geomDistance(m, d, g1, g2, distmax, fromto);
  cJSON* o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "geom1", g1);
  cJSON_AddNumberToObject(o, "geom2", g2);
  cJSON_AddItemToObject(o, "distmax", jsonNumber(distmax));
  cJSON_AddItemToObject(o, "dist", jsonNumber(dist));
  cJSON_AddItemToObject(o, "fromto", jsonArray(fromto, 6));
  return o;
}


// --derivatives: {"A", "B", "C", "D"} of mcd_transitionFD (centered, eps 1e-6) at d's state, as
// rows; NULL after an error message. d's state is restored; its derived quantities are not. With
// kappa >= 0 (--implicit), A and B are mcd_transitionImplicit's at that kappa.
static cJSON* derivativesJson(const mcModel* m, mcData* d, const char* file, double kappa) {
  int ndx = 2 * m->nv + m->na, nu = m->nu, ns = m->nsensordata;
  size_t sizes[4] = {(size_t)ndx * ndx, (size_t)ndx * nu, (size_t)ns * ndx, (size_t)ns * nu};
  mcNum* blk[4] = {NULL, NULL, NULL, NULL};
  cJSON* o = NULL;
  int ok = 1;
  for (int k = 0; k < 4 && ok; k++) {
    blk[k] = calloc(sizes[k] ? sizes[k] : 1, sizeof(mcNum));
    ok = blk[k] != NULL;
  }
  if (!ok) {
    cli_error("%s: out of memory for the derivatives (%d states, %d controls)", file, ndx, nu);
  } else if (mcd_transitionFD(m, d, 1e-6, 1, blk[0], blk[1], blk[2], blk[3]) < 0) {
    cli_error("%s: mcd_transitionFD refused the model or state", file);
  } else if (kappa >= 0 && mcd_transitionImplicit(m, d, 1e-6, kappa, blk[0], blk[1]) < 0) {
    cli_error("%s: mcd_transitionImplicit refused the model or state", file);
  } else {
    o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "A", jsonMatrix(blk[0], ndx, ndx));
    cJSON_AddItemToObject(o, "B", jsonMatrix(blk[1], ndx, nu));
    cJSON_AddItemToObject(o, "C", jsonMatrix(blk[2], ns, ndx));
    cJSON_AddItemToObject(o, "D", jsonMatrix(blk[3], ns, nu));
  }
  for (int k = 0; k < 4; k++) {
    free(blk[k]);
  }
  return o;
}


int cmd_dump(int argc, char** argv) {
  const char* file = NULL;
  const char* state = NULL;
  const char* key = NULL;
  const char* distance = NULL;
  long nstep = 0;
  int check = 0;
  int derivatives = 0;
  double kappa = -1;

  // parse arguments
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(a, "--state") && has) {
      state = argv[++i];
    } else if (!strcmp(a, "--key") && has) {
      key = argv[++i];
    } else if (!strcmp(a, "--steps") && has) {
      if (cli_parseSteps("--steps", argv[++i], &nstep)) {
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--distance") && has) {
      distance = argv[++i];
    } else if (!strcmp(a, "--check")) {
      check = 1;
    } else if (!strcmp(a, "--derivatives")) {
      derivatives = 1;
    } else if (!strcmp(a, "--implicit") && has) {
      char* end = NULL;
      kappa = strtod(argv[++i], &end);
      if (!end || *end || !(kappa >= 0) || !isfinite(kappa)) {
        cli_error("--implicit needs a kappa >= 0 (got '%s')", argv[i]);
        return CLI_USAGE;
      }
      derivatives = 1;
    } else if (a[0] == '-' && a[1]) {
      cli_error("unknown or incomplete option '%s' (usage: moduco dump MODEL [--state FILE.json]"
                " [--key K] [--steps N] [--distance G1,G2[,DISTMAX]] [--derivatives] [--implicit KAPPA] [--check])", a);
      return CLI_USAGE;
    } else if (!file) {
      file = a;
    } else {
      cli_error("unexpected argument '%s'", a);
      return CLI_USAGE;
    }
  }
  if (!file) {
    cli_error("usage: moduco dump MODEL [--state FILE.json] [--key K] [--steps N] "
              "[--distance G1,G2[,DISTMAX]] [--derivatives] [--implicit KAPPA] [--check]");
    return CLI_USAGE;
  }

  // load with energy enabled
  mcModel* m = cli_loadModel(file);
  if (!m) {
    return CLI_FAIL;
  }
  m->opt.enableflags |= mcENBL_ENERGY;
  mcData* d = mc_makeData(m);
  if (!d) {
    cli_error("could not allocate data for %s", file);
    mc_deleteModel(m);
    return CLI_FAIL;
  }
  int rc = CLI_OK;
  if (check) {
    mc_setPluginCheck(d, 1);
  }

  // keyframe, by index or name
  if (key) {
    long k = -1;
    if (cli_parseCount(key, &k)) {
      k = mc_name2id(m, mcOBJ_KEY, key);
    }
    if (k < 0 || k >= m->nkey || mc_resetDataKeyframe(m, d, (int)k)) {
      cli_error("%s: no keyframe '%s' (the model has %d)", file, key, m->nkey);
      rc = CLI_FAIL;
    }
  }

  // state overrides
  if (rc == CLI_OK && state && loadState(m, d, state)) {
    rc = CLI_FAIL;
  }

  // steps with the control held, the derivatives (they leave the state as it was), then the
  // forward pass at the final state
  cJSON* deriv = NULL;
  if (rc == CLI_OK) {
    for (long i = 0; i < nstep; i++) {
      mc_step(m, d);
    }
    if (derivatives && !(deriv = derivativesJson(m, d, file, kappa))) {
      rc = CLI_FAIL;
    }
  }
  if (rc == CLI_OK) {
    mc_forward(m, d);

    // print
    cJSON* o = dumpJson(m, d);
    if (o && deriv) {
      cJSON_AddItemToObject(o, "derivatives", deriv);
      deriv = NULL;
    }
    if (o && distance) {
      cJSON* dj = distanceJson(m, d, file, distance);
      if (!dj) {
        cJSON_Delete(o);
        mc_deleteData(d);
        mc_deleteModel(m);
        return CLI_USAGE;
      }
      cJSON_AddItemToObject(o, "distance", dj);
    }
    if (o) {
      markNonFinite(o, file);
    }
    char* text = o ? cJSON_Print(o) : NULL;
    if (!text) {
      cli_error("out of memory while printing JSON");
      rc = CLI_FAIL;
    } else {
      fputs(text, stdout);
      fputc('\n', stdout);
      free(text);
    }
    cJSON_Delete(o);
  }

  cJSON_Delete(deriv);

  // --check: a plugin that failed a check fails the dump (the messages went to stderr)
  if (check && d->warning[mcWARN_PLUGINCHECK].number > 0) {
    cli_error("%d plugin check failure(s)", d->warning[mcWARN_PLUGINCHECK].number);
    rc = CLI_FAIL;
  }

  mc_deleteData(d);
  mc_deleteModel(m);
  return rc;
}
