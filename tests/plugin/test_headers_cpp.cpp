// Every public header, included together from C++ (extern "C" and C++-clean declarations).
#include <moduco/moduco.h>
#include <moduco/mcdata.h>
#include <moduco/mcmodel.h>
#include <moduco/mcplugin.h>
#include <moduco/mctnum.h>

extern "C" int header_cpp_all(void);


// a plugin descriptor and library built with the SDK macros compile as C++ too
static const mcpIntegrator g_integrator = {
  MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "cpp.test", "1.0", "C++ header test", -1),
  nullptr};
static const mcpHeader* const g_list[] = {&g_integrator.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("cpp", 1, g_list);


extern "C" int header_cpp_all(void) {
  return g_library.nplugin == 1 && g_library.plugin[0]->kind == mcpKIND_INTEGRATOR ? 0 : 1;
}
