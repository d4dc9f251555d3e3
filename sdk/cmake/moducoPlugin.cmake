# moduco_add_plugin(<target> <sources>...): build a Moduco plugin out of tree.
#
# Makes a MODULE library libmoduco-<target>.so with hidden visibility (only the entry symbol
# mcp_library, marked MCP_EXPORT, is exported) that links moduco::sdk (headers) and nothing of
# libmoduco: a plugin reaches the core only through the mcpHost table. Installs it into
# ${MODUCO_PLUGIN_INSTALL_DIR} (default lib/moduco/plugins under the install prefix; the loader
# searches <dir of libmoduco>/moduco/plugins, so the same prefix as Moduco needs no setup, and
# MODUCO_PLUGIN_PATH covers any other folder).
include(GNUInstallDirs)
if(NOT DEFINED MODUCO_PLUGIN_INSTALL_DIR)
  set(MODUCO_PLUGIN_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/moduco/plugins)
endif()

function(moduco_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE moduco::sdk)
  if(UNIX)
    target_link_libraries(${name} PRIVATE m)
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX "libmoduco-"
    C_STANDARD 11
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden)
  install(TARGETS ${name} LIBRARY DESTINATION ${MODUCO_PLUGIN_INSTALL_DIR})
endfunction()
