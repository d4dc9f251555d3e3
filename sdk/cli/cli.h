// Moduco command-line tool: shared helpers of the subcommands.
#ifndef MODUCO_SDK_CLI_CLI_H_
#define MODUCO_SDK_CLI_CLI_H_

#include <moduco/moduco.h>

// exit codes
#define CLI_OK     0
#define CLI_FAIL   1              // the model or a state file could not be used
#define CLI_USAGE  2              // bad command line

// Print "moduco: <message>" on one line to stderr (newlines in the message become spaces).
void cli_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Parse a whole string as a finite double / non-negative long; return 0 on success, -1 if not.
int cli_parseDouble(const char* s, double* out);
int cli_parseCount(const char* s, long* out);

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

// Subcommands: argc/argv start after the subcommand name; return the exit code.
int cmd_run(int argc, char** argv);
int cmd_compile(int argc, char** argv);
int cmd_plugins(int argc, char** argv);
int cmd_dump(int argc, char** argv);
int cmd_bench(int argc, char** argv);

#endif  // MODUCO_SDK_CLI_CLI_H_
