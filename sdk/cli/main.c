// Moduco command-line tool: subcommand dispatch.
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
  const char* name;
  int (*fn)(int argc, char** argv);
  const char* synopsis;
} Command;

static const Command kCommands[] = {
  {"run", cmd_run,
   "run MODEL [--duration T | --steps N] [--integrator NAME] [--solver NAME] [--profile]"},
  {"compile", cmd_compile, "compile MODEL"},
  {"plugins", cmd_plugins, "plugins"},
  {"dump", cmd_dump, "dump MODEL [--state FILE.json] [--key K] [--steps N]"},
  {"bench", cmd_bench, "bench MODEL... [--solver A,B] [--integrator A,B] [--steps N] [--repeat R] "
   "[--threads T,..] [--accuracy N] [--allow-divergence] [--json FILE] [--plot FILE.svg] "
   "[--reference mujoco] [--profile]"},
  {"view", cmd_view, "view MODEL [--port P] [--bind ADDR] [--fps F] [--paused] [--replay FILE]"},
};
static const int kNumCommands = (int)(sizeof(kCommands) / sizeof(kCommands[0]));


// print the usage text to a stream
static void usage(FILE* out) {
  fprintf(out, "usage: moduco COMMAND [ARGS]\n\ncommands:\n");
  for (int i = 0; i < kNumCommands; i++) {
    fprintf(out, "  moduco %s\n", kCommands[i].synopsis);
  }
  fprintf(out, "  moduco version\n  moduco help\n\nsee docs/cli.md for details\n");
}


// run the command line; return the exit code
static int dispatch(int argc, char** argv) {
  // no command: usage on stderr
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  const char* cmd = argv[1];

  // help and version
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("moduco %s\n", mc_versionString());
    return CLI_OK;
  }

  // dispatch
  for (int i = 0; i < kNumCommands; i++) {
    if (!strcmp(cmd, kCommands[i].name)) {
      return kCommands[i].fn(argc - 2, argv + 2);
    }
  }
  cli_error("unknown command '%s' (commands: run, compile, plugins, dump, bench, view, version, help)",
            cmd);
  return CLI_USAGE;
}


int main(int argc, char** argv) {
  // every command's results go to stdout: nothing lost there without an error and a failure
  mc_setMessageHandler(cli_onMessage, NULL);
  int rc = dispatch(argc, argv);
  if (cli_closeOutput(stdout, "standard output") && rc == CLI_OK) {
    rc = CLI_FAIL;
  }
  return rc;
}
