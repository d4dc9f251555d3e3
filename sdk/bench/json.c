// Moduco bench: the JSON report (schema mcbSCHEMA, specified in docs/bench.md). Numbers that are
// not finite are written as null.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench.h"


static cJSON* jnum(double v) {
  return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}


// first model name line of /proc/cpuinfo
static void cpuName(char* out, int n) {
  snprintf(out, (size_t)n, "unknown");
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) {
    return;
  }
  char line[512];
  while (fgets(line, sizeof(line), f)) {
    char* c = strchr(line, ':');
    if (!strncmp(line, "model name", 10) && c) {
      c += 1 + (c[1] == ' ');
      c[strcspn(c, "\n")] = 0;
      snprintf(out, (size_t)n, "%s", c);
      break;
    }
  }
  fclose(f);
}


static void addSettings(cJSON* root, const mcbConfig* c) {
  cJSON* set = cJSON_AddObjectToObject(root, "settings");
  cJSON_AddNumberToObject(set, "steps", (double)c->steps);
  cJSON_AddNumberToObject(set, "repeat", (double)c->repeat);
  cJSON_AddNumberToObject(set, "warmup_steps", (double)c->warmup);
  cJSON_AddNumberToObject(set, "ctrlnoise", c->ctrlnoise);
  cJSON_AddBoolToObject(set, "ctrlzero", c->ctrlzero != 0);
  cJSON_AddNumberToObject(set, "seed", (double)c->seed);
  cJSON_AddNumberToObject(set, "accuracy_samples", c->accuracy);
  cJSON_AddStringToObject(set, "order", "interleaved: arm 0..n-1 once per repeat");
  cJSON_AddStringToObject(set, "ratio_method", "median of paired per-repeat ratios to the "
                          "model's baseline arm; 95% percentile bootstrap of that median");
  cJSON_AddStringToObject(set, "controls", "filtered noise seeded by seed and the model file's "
                          "FNV-1a hash");
  cJSON* thr = cJSON_AddArrayToObject(set, "threads");
  for (int k = 0; k < c->nthreads; k++) {
    cJSON_AddItemToArray(thr, cJSON_CreateNumber(c->threads[k]));
  }
}


static void addMachine(cJSON* root) {
  cJSON* mach = cJSON_AddObjectToObject(root, "machine");
  char buf[256];
  cpuName(buf, sizeof(buf));
  cJSON_AddStringToObject(mach, "cpu", buf);
  cJSON_AddNumberToObject(mach, "ncpu", (double)sysconf(_SC_NPROCESSORS_ONLN));
  struct utsname u;
  if (!uname(&u)) {
    cJSON_AddStringToObject(mach, "hostname", u.nodename);
    cJSON_AddStringToObject(mach, "os", u.sysname);
    cJSON_AddStringToObject(mach, "kernel", u.release);
    cJSON_AddStringToObject(mach, "arch", u.machine);
  }
#ifdef __VERSION__
  cJSON_AddStringToObject(mach, "compiler", __VERSION__);
#endif
  cJSON_AddStringToObject(mach, "moduco_version", mc_versionString());
  if (bench_mj.lib) {
    snprintf(buf, sizeof(buf), "%d.%d.%d", bench_mj.version / 100, bench_mj.version / 10 % 10,
             bench_mj.version % 10);
    cJSON_AddStringToObject(mach, "mujoco_version", buf);
  } else {
    cJSON_AddNullToObject(mach, "mujoco_version");
  }
}


// speed and ratio to the baseline
static void addSpeed(cJSON* j, const mcbBench* b, const mcbResult* r) {
  int ok = !r->error;
  if (ok) {
    cJSON* sps = cJSON_AddObjectToObject(j, "steps_per_second");
    cJSON_AddItemToObject(sps, "median", jnum(r->median));
    cJSON_AddItemToObject(sps, "min", jnum(r->min));
    cJSON_AddItemToObject(sps, "max", jnum(r->max));
    cJSON* samp = cJSON_AddArrayToObject(sps, "samples");
    for (int k = 0; k < b->c.repeat; k++) {
      cJSON_AddItemToArray(samp, jnum(r->rate[k]));
    }
    cJSON_AddItemToObject(j, "realtime_factor", jnum(r->median * r->timestep));
  } else {
    cJSON_AddNullToObject(j, "steps_per_second");
    cJSON_AddNullToObject(j, "realtime_factor");
  }
  if (ok && r->has_ratio) {
    cJSON_AddNumberToObject(j, "baseline", r->baseline);
    cJSON_AddItemToObject(j, "ratio_to_baseline", jnum(r->ratio));
    cJSON* ci = cJSON_AddObjectToObject(j, "ratio_ci");
    cJSON_AddItemToObject(ci, "low", jnum(r->ratio_lo));
    cJSON_AddItemToObject(ci, "high", jnum(r->ratio_hi));
    cJSON_AddNumberToObject(ci, "level", 0.95);
    cJSON_AddStringToObject(ci, "method", "bootstrap-median-paired");
    cJSON* rr = cJSON_AddObjectToObject(j, "ratio_range");
    cJSON_AddItemToObject(rr, "min", jnum(r->ratio_min));
    cJSON_AddItemToObject(rr, "max", jnum(r->ratio_max));
  } else {
    cJSON_AddNullToObject(j, "baseline");
    cJSON_AddNullToObject(j, "ratio_to_baseline");
    cJSON_AddNullToObject(j, "ratio_ci");
    cJSON_AddNullToObject(j, "ratio_range");
  }
  if (ok && r->mujoco_arm >= 0 && !b->arm[r->mujoco_arm].r.error) {
    cJSON_AddItemToObject(j, "ratio_to_mujoco", jnum(r->median / b->arm[r->mujoco_arm].r.median));
  } else {
    cJSON_AddNullToObject(j, "ratio_to_mujoco");
  }
}


// solver and physics statistics, warnings, divergence, accuracy
static void addStatistics(cJSON* j, const mcbResult* r) {
  cJSON_AddItemToObject(j, "solver_iterations_mean", jnum(r->iter_mean));
  cJSON* res = cJSON_AddObjectToObject(j, "residual");
  cJSON_AddItemToObject(res, "gradient", jnum(r->gradient));
  cJSON_AddItemToObject(res, "improvement", jnum(r->improvement));
  cJSON_AddItemToObject(j, "contacts_per_step", jnum(r->ncon_mean));
  cJSON_AddItemToObject(j, "constraints_per_step", jnum(r->nefc_mean));
  cJSON* en = cJSON_AddObjectToObject(j, "energy");
  cJSON_AddItemToObject(en, "initial", jnum(r->energy0));
  cJSON_AddItemToObject(en, "final", jnum(r->energy1));
  cJSON_AddItemToObject(en, "drift", jnum(r->energy1 - r->energy0));
  double scale = fabs(r->energy0) > 1e-12 ? fabs(r->energy0) : 1.0;
  cJSON_AddItemToObject(en, "relative_drift", jnum((r->energy1 - r->energy0) / scale));
  char hash[32];
  snprintf(hash, sizeof(hash), "%016llx", r->trajectory_hash);
  cJSON_AddStringToObject(j, "trajectory_hash", hash);

  int total = 0;
  cJSON* w = cJSON_AddObjectToObject(j, "warning_counts");
  for (int k = 0; k < mcNWARNING; k++) {
    cJSON_AddNumberToObject(w, mcb_warningName(k), r->warning[k]);
    total += r->warning[k];
  }
  cJSON_AddNumberToObject(j, "warnings", total + r->plugin_warnings);
  cJSON_AddNumberToObject(j, "plugin_warnings", r->plugin_warnings);
  cJSON* pw = cJSON_AddObjectToObject(j, "plugin_warning_counts");
  for (int k = 0; k < r->nplugin_warning; k++) {
    cJSON_AddNumberToObject(pw, r->plugin_warning_name[k], r->plugin_warning_count[k]);
  }
  cJSON_AddNumberToObject(j, "resets", r->resets);
  cJSON_AddBoolToObject(j, "nonfinite", r->nonfinite);
  cJSON_AddBoolToObject(j, "diverged", r->diverged);

  if (r->acc_samples > 0) {
    cJSON* acc = cJSON_AddObjectToObject(j, "accuracy");
    cJSON_AddNumberToObject(acc, "samples", r->acc_samples);
    cJSON_AddItemToObject(acc, "median", jnum(r->acc_median));
    cJSON_AddItemToObject(acc, "max", jnum(r->acc_max));
    cJSON_AddStringToObject(acc, "method", "M-norm qacc error vs Newton tol 1e-12");
  } else {
    cJSON_AddNullToObject(j, "accuracy");
  }
  if (r->res_samples > 0) {
    cJSON* res = cJSON_AddObjectToObject(j, "solver_residual");
    cJSON_AddNumberToObject(res, "samples", r->res_samples);
    cJSON_AddItemToObject(res, "median", jnum(r->res_median));
    cJSON_AddItemToObject(res, "max", jnum(r->res_max));
    cJSON_AddItemToObject(res, "dynamics", jnum(r->res_part[0]));
    cJSON_AddItemToObject(res, "feasibility", jnum(r->res_part[1]));
    cJSON_AddItemToObject(res, "optimality", jnum(r->res_part[2]));
  } else {
    cJSON_AddNullToObject(j, "solver_residual");
  }
  cJSON_AddItemToObject(j, "qpos_deviation", r->has_qpos_dev ? jnum(r->qpos_dev) :
                        cJSON_CreateNull());
}


static void addProfile(cJSON* j, const BenchArm* a) {
  const mcbResult* r = &a->r;
  cJSON* pr = cJSON_AddObjectToObject(j, "profile_us_per_step");
  for (int k = 0; k < mcNTIMER; k++) {
    if (k == mcTIMER_INVERSE || (r->engine == mcbENGINE_MUJOCO && k >= mcTIMER_INTEGRATOR)) {
      continue;
    }
    cJSON_AddItemToObject(pr, mcb_timerName(k), jnum(1e6 * r->prof[k]));
  }
  if (r->engine != mcbENGINE_MODUCO) {
    return;
  }
  cJSON* pp = cJSON_AddArrayToObject(j, "profile_plugins");
  for (int k = 0; k < mcNTIMERPLUGIN; k++) {
    const char* name = mc_timerPluginName(a->m, k);
    if (r->pcalls[k] == 0 && (!name || k >= mcTIMERPLUGIN_COLLISION)) {
      continue;
    }
    const char *kind, *stage;
    mcb_pluginSlotKind(a->m, k, &kind, &stage);
    cJSON* e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "slot", k);
    cJSON_AddStringToObject(e, "kind", kind);
    cJSON_AddItemToObject(e, "plugin", name ? cJSON_CreateString(name) : cJSON_CreateNull());
    cJSON_AddStringToObject(e, "stage", stage);
    cJSON_AddItemToObject(e, "us_per_step", jnum(1e6 * r->pprof[k]));
    cJSON_AddItemToObject(e, "calls_per_step", jnum(r->pcalls[k]));
    cJSON_AddItemToArray(pp, e);
  }
}


static void addScaling(cJSON* j, const mcbResult* r, int nthreads) {
  cJSON* fs = cJSON_AddObjectToObject(j, "forward_states");
  cJSON_AddNumberToObject(fs, "count", r->nsample);
  cJSON_AddItemToObject(fs, "mean_contacts", jnum(r->sample_ncon));
  cJSON_AddItemToObject(fs, "in_contact", jnum(r->sample_incontact));
  cJSON* sc = cJSON_AddArrayToObject(j, "threads");
  for (int k = 0; k < nthreads; k++) {
    const mcbScaling* s = &r->scaling[k];
    cJSON* e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "threads", s->threads);
    cJSON_AddItemToObject(e, "steps_per_second", jnum(s->steps_per_second));
    cJSON_AddItemToObject(e, "forward_per_second", jnum(s->forward_per_second));
    cJSON_AddItemToObject(e, "forward_per_cpu_second", jnum(s->forward_per_cpu_second));
    cJSON_AddItemToObject(e, "speedup_steps", jnum(s->steps_per_second /
                                                    r->scaling[0].steps_per_second));
    cJSON_AddItemToObject(e, "speedup_forward", jnum(s->forward_per_second /
                                                      r->scaling[0].forward_per_second));
    cJSON_AddItemToArray(sc, e);
  }
}


static cJSON* armJson(const mcbBench* b, int i) {
  const BenchArm* a = &b->arm[i];
  const mcbResult* r = &a->r;
  cJSON* j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "index", i);
  cJSON_AddStringToObject(j, "engine", mcb_engineName(r->engine));
  cJSON_AddStringToObject(j, "model", r->file);
  cJSON_AddStringToObject(j, "solver", r->solver[0] ? r->solver : "default");
  cJSON_AddStringToObject(j, "integrator", r->integrator[0] ? r->integrator : "default");
  cJSON_AddItemToObject(j, "error", r->error ? cJSON_CreateString(r->error) : cJSON_CreateNull());
  // schema 2 readers: every solver and integrator of an arm has its model instance (mc_setSolver)
  cJSON_AddBoolToObject(j, "model_instance", 1);
  cJSON_AddNumberToObject(j, "nq", r->nq);
  cJSON_AddNumberToObject(j, "nv", r->nv);
  cJSON_AddNumberToObject(j, "nu", r->nu);
  cJSON_AddItemToObject(j, "timestep", r->error ? cJSON_CreateNull() : jnum(r->timestep));
  addSpeed(j, b, r);
  if (r->error) {
    return j;
  }
  addStatistics(j, r);
  if (r->has_profile) {
    addProfile(j, a);
  }
  if (r->scaling) {
    addScaling(j, r, b->c.nthreads);
  }
  return j;
}


int mcb_printJson(const mcbBench* b, FILE* f, const char* command) {
  cJSON* root = cJSON_CreateObject();
  if (!root) {
    return -1;
  }
  cJSON_AddStringToObject(root, "schema", mcbSCHEMA);
  char date[64];
  time_t now = time(NULL);
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  cJSON_AddStringToObject(root, "date", date);
  cJSON_AddStringToObject(root, "command", command ? command : "");
  addSettings(root, &b->c);
  addMachine(root);
  cJSON* arms = cJSON_AddArrayToObject(root, "arms");
  for (int i = 0; i < b->narm; i++) {
    cJSON_AddItemToArray(arms, armJson(b, i));
  }
  char* text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    return -1;
  }
  fprintf(f, "%s\n", text);
  free(text);
  return 0;
}
