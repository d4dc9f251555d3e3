// Moduco bench: A/B benchmarks of solver and integrator plugins (and MuJoCo 2.2.2, dlopened at run
// time) on the same models, states and control sequences (library libmoducobench; the CLI command
// `moduco bench` is a thin layer over it). What every number means: docs/bench.md.
//
//   mcbConfig c;
//   mcb_defaultConfig(&c);
//   c.model = files; c.nmodel = n; c.solver = names; c.nsolver = k;
//   mcbBench* b = mcb_create(&c);        // loads every arm; arms that cannot run carry an error
//   mcb_run(b);                          // statistics, accuracy, timed repeats, profile, threads
//   mcb_printTable(b, stdout);
//   int status = mcb_status(b, 0);       // mcbSTATUS_*
//   mcb_delete(b);
#ifndef MODUCO_MCBENCH_H_
#define MODUCO_MCBENCH_H_

#include <stdio.h>

#include <moduco/moduco.h>

#ifdef __cplusplus
extern "C" {
#endif

#define mcbSCHEMA "moduco-bench/2"   // JSON schema name (docs/bench.md)

typedef enum mcbEngine_ {         // engine of an arm
  mcbENGINE_MODUCO = 0,
  mcbENGINE_MUJOCO                // MuJoCo 2.2.2 (dlopened)
} mcbEngine;

typedef enum mcbStatus_ {         // overall outcome (mcb_status), also the CLI's exit status
  mcbSTATUS_OK       = 0,         // every arm ran and none diverged (or divergence was allowed)
  mcbSTATUS_FAILED   = 1,         // an arm could not run (bad model, unknown plugin, no MuJoCo)
  mcbSTATUS_DIVERGED = 3          // every arm ran, at least one diverged
} mcbStatus;

typedef struct mcbConfig_ {       // what to run; arrays are borrowed until mcb_delete
  const char* const* model;       // model files
  int nmodel;
  const char* const* solver;      // solver plugin names (nsolver 0: each model's own)
  int nsolver;
  const char* const* integrator;  // integrator plugin names (nintegrator 0: each model's own)
  int nintegrator;
  const int* threads;             // thread counts of the scaling runs (nthreads 0: none)
  int nthreads;
  long steps;                     // steps per run (default 1000)
  long repeat;                    // timed repeats (default 7)
  long warmup;                    // warm-up steps (negative: steps)
  double ctrlnoise;               // amplitude of the control noise (default 0.1)
  unsigned long long seed;        // seed of the control sequences and the bootstrap (default 1)
  int reference;                  // 1: add MuJoCo 2.2.2 twins
  int profile;                    // 1: one more run per arm with the stage timers on
  int accuracy;                   // states per arm of the accuracy measure (default 16; 0: off)
  int ctrlzero;                   // 1: every control exactly 0 (no noise, not centred; default 0)
} mcbConfig;

typedef struct mcbScaling_ {      // throughput at one thread count
  int threads;
  double steps_per_second;        // batch rollouts, all threads together
  double forward_per_second;      // forward evaluations at recorded states
  double forward_per_cpu_second;  // the same per second of process CPU time
} mcbScaling;

typedef struct mcbResult_ {       // one arm: engine x model x solver x integrator
  int engine;                     // mcbEngine
  int model;                      // index into mcbConfig.model
  const char* file;               // the model file as given
  const char* solver;             // plugin names as resolved ("" if unresolved)
  const char* integrator;
  const char* error;              // NULL: the arm ran; else why it could not
  int baseline;                   // index of the arm its ratio refers to (-1: none)
  int mujoco_arm;                 // index of the MuJoCo arm with the same settings (-1: none)

  // sizes
  int nq, nv, nu;
  double timestep;

  // speed: steps/s of each timed repeat and their summary; paired ratio to the baseline arm
  const double* rate;             // repeat values
  double median, min, max;
  int has_ratio;
  double ratio, ratio_lo, ratio_hi, ratio_min, ratio_max;

  // statistics pass (untimed, the trajectory that is timed)
  double iter_mean, gradient, improvement, ncon_mean, nefc_mean;
  double energy0, energy1;
  unsigned long long trajectory_hash;  // FNV-1a of qpos and qvel after every step

  // warnings raised in the statistics pass
  int warning[mcNWARNING];        // built-in counts by type (d->warning[i].number)
  int plugin_warnings;            // plugin-defined warnings, summed (d->plugin_warncount)
  int nplugin_warning;            // distinct plugin-defined warnings the arm's model declares
  const char* const* plugin_warning_name;  // their names, "plugin.name: warning" (in model order)
  const int* plugin_warning_count;         // how often each was raised, summed over instances
  int resets;                     // bad qpos + bad qvel + bad qacc (each auto-resets the data)
  int nonfinite;                  // 1: non-finite qpos/qvel/energy at the end
  int diverged;                   // resets > 0, a bad-ctrl warning, or nonfinite

  // accuracy: M-norm relative error of qacc against a tight Newton solve at sampled states
  int acc_samples;                // states measured (states without constraint rows skipped)
  double acc_median, acc_max;
  int res_samples;                // mc_solverResidual of the arm's solve at the same states
  double res_median, res_max;     // (Moduco arms): total, median and max
  double res_part[3];             // medians of the parts: dynamics, feasibility, optimality
  int has_qpos_dev;               // RMS qpos difference to the baseline arm at sampled steps
  double qpos_dev;

  // profile (seconds per step per stage timer, per plugin slot; calls per step per slot)
  int has_profile;
  double prof[mcNTIMER];
  double pprof[mcNTIMERPLUGIN];
  double pcalls[mcNTIMERPLUGIN];

  // thread scaling (nthreads entries; NULL without --threads)
  const mcbScaling* scaling;
  int nsample;                    // states recorded for the forward evaluations
  double sample_ncon, sample_incontact;
} mcbResult;

typedef struct mcbBench_ mcbBench;

// Defaults of every setting (no models).
MCAPI void mcb_defaultConfig(mcbConfig* c);

// Make every arm (model x solver x integrator, then the MuJoCo twins) and each model's control
// sequence. Arms that cannot run keep their error and are skipped later. NULL: out of memory.
MCAPI mcbBench* mcb_create(const mcbConfig* c);

// Run: warm-up and statistics pass per arm (warnings, divergence, accuracy), the interleaved
// timed repeats, ratios, then --profile and --threads runs. Return 0, or -1 if b already ran.
MCAPI int mcb_run(mcbBench* b);

// Arms and their results (valid until mcb_delete).
MCAPI int mcb_armCount(const mcbBench* b);
MCAPI const mcbResult* mcb_result(const mcbBench* b, int arm);
MCAPI const mcbConfig* mcb_config(const mcbBench* b);

// mcbSTATUS_FAILED if an arm could not run, else mcbSTATUS_DIVERGED if an arm diverged and
// allow_divergence is 0, else mcbSTATUS_OK.
MCAPI int mcb_status(const mcbBench* b, int allow_divergence);

// The text report: the arm table (columns sized to their content), MuJoCo ratios, profile and
// thread-scaling tables when requested.
MCAPI void mcb_printTable(const mcbBench* b, FILE* f);

// JSON report (schema mcbSCHEMA, docs/bench.md); command is recorded as given. SVG bar chart of
// the median steps/s. To a stream the caller flushes, closes and checks (mcb_printJson returns
// -1 when out of memory, else 0) ...
MCAPI int mcb_printJson(const mcbBench* b, FILE* f, const char* command);
MCAPI void mcb_printPlot(const mcbBench* b, FILE* f);

// ... or to a file ("-": stdout), every write checked (a failed write, flush or close, e.g. a
// full disk, is an error). Return 0, or -1 and "cannot write FILE: reason" in error.
MCAPI int mcb_writeJson(const mcbBench* b, const char* file, const char* command, char* error,
                        int error_sz);
MCAPI int mcb_writePlot(const mcbBench* b, const char* file, char* error, int error_sz);

// Free everything. Nullable.
MCAPI void mcb_delete(mcbBench* b);

// Names used by the reports: stage timers (mctTimer order), engines, built-in warnings
// (mctWarning order, short lowercase); the kind of plugin in a per-plugin timer slot and the
// stage timer that contains its calls; an arm's solver / integrator plugin name.
MCAPI const char* mcb_timerName(int timer);
MCAPI const char* mcb_engineName(int engine);
MCAPI const char* mcb_warningName(int warning);
MCAPI void mcb_pluginSlotKind(const mcModel* m, int slot, const char** kind, const char** stage);
MCAPI const char* mcb_solverName(const mcModel* m);
MCAPI const char* mcb_integratorName(const mcModel* m);

#ifdef __cplusplus
}
#endif

#endif  // MODUCO_MCBENCH_H_
