// Moduco command-line tool: shared helpers of the subcommands.
#ifndef MODUCO_SDK_CLI_CLI_H_
#define MODUCO_SDK_CLI_CLI_H_

#include <stdio.h>

#include <moduco/moduco.h>

// exit codes
#define CLI_OK     0
#define CLI_FAIL   1              // the model or a state file could not be used
#define CLI_USAGE  2              // bad command line

// Print "moduco: <message>" on one line to stderr (newlines in the message become spaces).
void cli_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The library's message handler of every command (main installs it; a command that installs its
// own restores this one): each message printed by cli_error, so it carries the "moduco: " prefix.
void cli_onMessage(void* user, const char* message);

// Flush and close an output stream (stdout or a file the command wrote) and check that every
// write reached it: the stream's error flag (set by any failed fprintf/fwrite before), fflush and
// fclose. On failure print "moduco: cannot write <name>: <reason>" and return -1; else 0. Every
// subcommand's stdout is closed this way by main(); a command writing files closes each one with
// it and fails with CLI_FAIL if it returns -1.
int cli_closeOutput(FILE* f, const char* name);

// Parse a whole string (no leading blanks) as a finite double / non-negative long; return 0 on
// success, -1 if not.
int cli_parseDouble(const char* s, double* out);
int cli_parseCount(const char* s, long* out);

// Step limits (docs/cli.md): an explicit step count (--steps N) is at most CLI_MAXSTEPS; a step
// count derived from a duration (--duration T, or run's default 5 s) is at most
// CLI_MAXDURATIONSTEPS, beyond which the user must ask for the steps explicitly.
#define CLI_MAXSTEPS 1000000000000000L        // 1e15: counts and sim time stay exact in doubles
#define CLI_MAXDURATIONSTEPS 100000000L       // 1e8: minutes to hours of wall time

// Parse the value of a step-count option (opt, e.g. "--steps") into 0..CLI_MAXSTEPS; on failure
// print an error naming the option and the value and return -1.
int cli_parseSteps(const char* opt, const char* s, long* out);

// Number of steps that cover duration seconds of model time at timestep: ceil(duration /
// timestep). On a non-positive or non-finite timestep or more than CLI_MAXDURATIONSTEPS steps,
// print an error naming the model file and return -1.
int cli_durationSteps(const char* file, double duration, double timestep, long* out);

// Split a comma-separated option value in place into at most max non-empty items; on an empty
// list, an empty item ("a,,b", ",,,") or too many items print an error naming the option and
// return -1; else return the number of items. (For bench's --solver / --integrator lists.)
int cli_splitList(const char* opt, char* s, char** out, int max);

// Read a state file that is exactly one JSON object (jsonfile.c): a regular file of at most
// CLI_MAXJSONBYTES, no NUL byte, nothing but white space after the object. On failure print an
// error naming the file and the line and byte position, and return NULL. Free with cJSON_Delete.
#define CLI_MAXJSONBYTES (256L << 20)
struct cJSON;
struct cJSON* cli_readJsonObject(const char* file);

// Load a model file; on failure print the loader's one-line error and return NULL.
mcModel* cli_loadModel(const char* file);

// Override the integrator / solver by plugin name; on failure print an error listing the
// available names and return -1.
int cli_setIntegrator(mcModel* m, const char* name);
int cli_setSolver(mcModel* m, const char* name);

// Name of the model's integrator / solver plugin ("none" if there is no solver).
const char* cli_integratorName(const mcModel* m);
const char* cli_solverName(const mcModel* m);

// Wall-clock seconds from a monotonic clock.
double cli_now(void);

// Profiler output: print a model's stage and per-plugin timers per step (d->timer,
// d->timer_plugin) to stdout (names from the bench library, moduco/mcbench.h).
void cli_printProfile(const mcModel* m, const mcData* d, long steps);

// moduco run --threads N --profile (pooltrace.c): the in-step pool's jobs of every step, from
// the pool's trace, summed per job (the core's task function); Begin before a step, End after it
// with the step's seconds, Print at the end.
#define CLI_POOLCAP 256           // jobs timed a step (more are counted as lost)
#define CLI_POOLKINDS 32
typedef struct {
  const char* name;               // the job's task function
  long jobs;
  double time, busy, wait;        // seconds: the caller in the job, the other threads' busy time,
                                  // the caller waiting for them at its end
} CliPoolKind;
typedef struct {
  mcThreadPool* pool;             // (set by the caller, with nthread >= 2)
  int nthread;
  mcPoolJob rec[CLI_POOLCAP];
  CliPoolKind kind[CLI_POOLKINDS];
  int nkind;
  long lost;                      // jobs not timed
  double step, jobs;              // seconds: the steps, the jobs in them
} CliPoolTrace;
void cli_poolTraceBegin(CliPoolTrace* t);
void cli_poolTraceEnd(CliPoolTrace* t, double seconds);
void cli_poolTracePrint(const CliPoolTrace* t, long nstep);

// Subcommands: argc/argv start after the subcommand name; return the exit code.
int cmd_run(int argc, char** argv);
int cmd_compile(int argc, char** argv);
int cmd_plugins(int argc, char** argv);
int cmd_dump(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_view(int argc, char** argv);

#endif  // MODUCO_SDK_CLI_CLI_H_
