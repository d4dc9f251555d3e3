// Moduco bench library: internal types shared by its files (one concept per file):
//   config.c    arms and models from an mcbConfig, accessors, status, delete
//   controls.c  the control sequence of a model (seeded by seed and the model's contents)
//   mujoco.c    MuJoCo 2.2.2, dlopened: entry points and the twin arms
//   arm.c       one arm: reset, timed run, energy, raw state access for both engines
//   run.c       the run loop: warm-up, statistics pass, interleaved repeats, profile
//   measures.c  warnings and divergence, median, paired ratio with its bootstrap interval
//   accuracy.c  qacc against a tight Newton reference solve; qpos deviation from the baseline
//   scaling.c   thread scaling of batch rollouts and forward evaluations
//   table.c     text columns sized to their content, and the text report
//   json.c      the JSON report
//   plot.c      the SVG chart
//   output.c    report files, every write checked
//   names.c     names of timers, engines, warnings, plugin slots; clocks
#ifndef MODUCO_SDK_BENCH_BENCH_H_
#define MODUCO_SDK_BENCH_BENCH_H_

#include <moduco/mcbench.h>

// MuJoCo's headers give the struct layouts of the reference arm; the library is never linked
#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>)
#include <mujoco/mujoco.h>
#define BENCH_HAVE_MUJOCO 1
#endif
#endif
#ifndef BENCH_HAVE_MUJOCO
#define BENCH_HAVE_MUJOCO 0
#endif

#define BENCH_NSAMPLE 64          // states kept per arm (forward scaling, qpos deviation)
#define BENCH_BOOTSTRAP 2000      // resamples of the ratio confidence interval
#define BENCH_MAXTHREAD 256       // most threads of one scaling run

typedef struct {                  // the MuJoCo entry points the reference arms need
  void* lib;
  int version;
  char error[256];
#if BENCH_HAVE_MUJOCO
  mjModel* (*loadXML)(const char*, const mjVFS*, char*, int);
  mjData* (*makeData)(const mjModel*);
  mjData* (*copyData)(mjData*, const mjModel*, const mjData*);
  void (*step)(const mjModel*, mjData*);
  void (*forward)(const mjModel*, mjData*);
  void (*resetData)(const mjModel*, mjData*);
  void (*deleteData)(mjData*);
  void (*deleteModel)(mjModel*);
  mjfTime* cbtime;
#endif
} BenchMuJoCo;

extern BenchMuJoCo bench_mj;      // process-wide: one libmujoco

typedef struct {                  // the accuracy reference of one Moduco arm
  mcModel* m;                     // copy of the arm's model: Newton, tolerance 1e-12
  mcData* d;                      // reference data
  mcData* scratch;                // the arm's own solve at the sampled state (arm's model)
  mcNum* state;                   // mc_getState buffer
  mcNum* dq;                      // nv: qacc differences
  mcNum* mdq;                     // nv: M * dq
  double* err;                    // relative errors of the samples
  double* res;                    // 4 x samples: mc_solverResidual total, then its three parts
  unsigned int spec;              // state components copied into the reference
} BenchReference;

typedef struct {                  // one arm: public result plus engine objects
  mcbResult r;
  char solver[64];                // requested, then resolved names ("" = the model's own)
  char integrator[64];
  char error[1024];               // non-empty: the arm could not run

  // moduco
  mcModel* m;
  mcData* d;
  BenchReference ref;

  // mujoco
#if BENCH_HAVE_MUJOCO
  mjModel* mjm;
  mjData* mjd;
  mjData* mjscratch;              // accuracy: MuJoCo's own solve at the sampled state
  double* mjsamples;              // BENCH_NSAMPLE x (nq + nv + na + nu), forward scaling
#endif
  int twin;                       // MuJoCo arms: the Moduco arm whose reference they share

  // plugin-defined warnings by name (mc_pluginWarningName; instances of one plugin share one)
  const char** pwname;            // distinct names
  int* pwcount;                   // count per distinct name
  int* pwslot;                    // m->npluginwarn: index of each counter's name in pwname

  double* rate;                   // steps/s of each timed repeat
  mcbScaling* scaling;
  mcNum* samples;                 // BENCH_NSAMPLE states (mcSTATE_INTEGRATION), Moduco
} BenchArm;

typedef struct {                  // inputs shared by the arms of one model
  int nu;
  double* ctrl;                   // (warmup + steps) x nu
  int baseline;                   // first arm of the model that runs (-1: none)
  double* base_qpos;              // BENCH_NSAMPLE x nq of the baseline arm
  int nbase;
} BenchGroup;

struct mcbBench_ {
  mcbConfig c;
  BenchArm* arm;
  int narm;
  BenchGroup* group;
  int ran;
};

// controls.c
unsigned long long bench_modelHash(const char* file, const mcModel* m);
double* bench_makeControls(const mcModel* m, long steps, double noise, int zero,
                           unsigned long long seed);
double bench_uniform(unsigned long long* s);

// mujoco.c
int bench_mujocoOpen(void);
int bench_mujocoSolver(const char* name);
int bench_mujocoIntegrator(const char* name);
void bench_setupMuJoCo(BenchArm* a);
void bench_freeMuJoCo(BenchArm* a);

// arm.c
void bench_armReset(BenchArm* a);
void bench_armSetCtrl(BenchArm* a, const BenchGroup* g, long t);
void bench_armStep(BenchArm* a);
double bench_armRun(BenchArm* a, const BenchGroup* g, long steps);
double bench_armEnergy(BenchArm* a);
const double* bench_armQpos(const BenchArm* a);
const double* bench_armQvel(const BenchArm* a);

// measures.c
int bench_pluginWarningsSetup(BenchArm* a);
void bench_countWarnings(BenchArm* a);
double bench_median(const double* v, int n);
void bench_pairedRatio(mcbResult* r, const double* rate, const double* ref, int n,
                       unsigned long long seed);

// accuracy.c
int bench_referenceCreate(BenchArm* a, int samples);
void bench_referenceFree(BenchReference* ref);
void bench_accuracySample(BenchArm* a, BenchArm* twin, int cap);
void bench_accuracySummary(BenchArm* a, int cap);
void bench_qposRecord(BenchArm* a, BenchGroup* g, int is_baseline, int k, double* sum, int* n);

// scaling.c
void bench_armScaling(BenchArm* a, const BenchGroup* g, const mcbConfig* c);

// names.c
double bench_now(void);
double bench_cpuNow(void);
const char* bench_baseName(const char* path);

// table.c
typedef struct BenchTable_ BenchTable;
BenchTable* bench_tableCreate(int ncol);
void bench_tableAlign(BenchTable* t, const char* align);   // per column: 'l' or 'r'
void bench_tableCell(BenchTable* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void bench_tablePrint(BenchTable* t, FILE* f);                 // prints and frees

#endif  // MODUCO_SDK_BENCH_BENCH_H_
