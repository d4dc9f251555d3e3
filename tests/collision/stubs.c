// Collision tests: weak stand-ins for core functions that other areas may not have landed yet
// (the plugin host table references them). The real definitions win when they exist.
#include <moduco/moduco.h>

__attribute__((weak)) mcModel* mc_loadXML(const char* filename, char* error, int error_sz) {
  return NULL;
}


__attribute__((weak)) mcModel* mc_loadXMLString(const char* xml, const char* dir, char* error,
                                                 int error_sz) {
  return NULL;
}


__attribute__((weak)) int mc_name2id(const mcModel* m, int type, const char* name) {
  return -1;
}
