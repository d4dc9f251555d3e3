// Moduco command-line tool: 'compile' (model sizes) and 'plugins' (the plugin registry).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "cli.h"


int cmd_compile(int argc, char** argv) {
  // exactly one model argument
  if (argc != 1 || argv[0][0] == '-') {
    cli_error("usage: moduco compile MODEL");
    return CLI_USAGE;
  }
  mcModel* m = cli_loadModel(argv[0]);
  if (!m) {
    return CLI_FAIL;
  }

  // sizes, one per line: name value
  const struct {
    const char* name;
    int value;
  } sizes[] = {
    {"nq", m->nq}, {"nv", m->nv}, {"nu", m->nu}, {"na", m->na},
    {"nbody", m->nbody}, {"njnt", m->njnt}, {"ngeom", m->ngeom}, {"nsite", m->nsite},
    {"nsensor", m->nsensor}, {"nsensordata", m->nsensordata}, {"ntendon", m->ntendon},
    {"neq", m->neq}, {"nkey", m->nkey}, {"nM", m->nM},
  };
  printf("%-12s %s\n", "model", argv[0]);
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    printf("%-12s %d\n", sizes[i].name, sizes[i].value);
  }

  // plugins and timestep
  printf("%-12s %s\n", "integrator", cli_integratorName(m));
  printf("%-12s %s\n", "solver", cli_solverName(m));
  if (isfinite(m->opt.timestep)) {
    printf("%-12s %.17g\n", "timestep", m->opt.timestep);
  } else {
    printf("%-12s unavailable (not finite)\n", "timestep");
  }
  mc_deleteModel(m);
  return CLI_OK;
}


int cmd_plugins(int argc, char** argv) {
  if (argc != 0) {
    cli_error("usage: moduco plugins");
    return CLI_USAGE;
  }

  // one row per registered plugin
  int n = mc_pluginCount();
  printf("%-24s %-12s %-10s %s\n", "NAME", "KIND", "VERSION", "FILE");
  for (int i = 0; i < n; i++) {
    mcPluginInfo info;
    if (mc_pluginInfo(i, &info)) {
      continue;
    }
    printf("%-24s %-12s %-10s %s\n", info.name ? info.name : "?", info.kind ? info.kind : "?",
           info.version ? info.version : "?", info.file ? info.file : "?");
  }
  printf("%d plugin%s\n", n, n == 1 ? "" : "s");

  // the loader's messages (skipped libraries), if any
  const char* msg = mc_pluginMessages();
  if (msg && msg[0]) {
    printf("\nloader messages:\n%s", msg);
    if (msg[strlen(msg) - 1] != '\n') {
      printf("\n");
    }
  }
  return CLI_OK;
}
