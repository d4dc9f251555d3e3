# ctest script: install the build into a temporary prefix, build sdk/examples/integrator-midpoint
# against it with find_package(moduco), run its demo with MODUCO_PLUGIN_PATH at the example's
# build folder. Then, when THRUSTER_DIR and SPEEDOMETER_DIR are given, build the example actuator
# and sensor plugins the same way and run the demo whose model selects both by element name.
# Variables: BINARY_DIR, EXAMPLE_DIR, WORK_DIR, GENERATOR, EXTRA_C_FLAGS, THRUSTER_DIR,
# SPEEDOMETER_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("$ ${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc})")
  endif()
endfunction()

# install, configure, build
run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
foreach(f lib/cmake/moduco/moducoConfig.cmake lib/cmake/moduco/moducoConfigVersion.cmake
          lib/cmake/moduco/moducoTargets.cmake lib/pkgconfig/moduco.pc include/moduco/mcplugin.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_INSTALL_PREFIX=${prefix} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_C_FLAGS=${EXTRA_C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_C_FLAGS}"
    "-DCMAKE_MODULE_LINKER_FLAGS=${EXTRA_C_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)

# the plugin links nothing of libmoduco
execute_process(COMMAND objdump -p ${WORK_DIR}/build/libmoduco-example-midpoint.so
                OUTPUT_VARIABLE deps)
if(deps MATCHES "NEEDED[ \t]+libmoduco")
  message(FATAL_ERROR "the example plugin links libmoduco:\n${deps}")
endif()

# run the demo with the plugin on the search path; the model selects it by name
run(${CMAKE_COMMAND} -E env MODUCO_PLUGIN_PATH=${WORK_DIR}/build
    ${WORK_DIR}/build/midpoint-demo)

# install the plugin into the same prefix: found beside libmoduco without MODUCO_PLUGIN_PATH
run(${CMAKE_COMMAND} --install ${WORK_DIR}/build)
run(${CMAKE_COMMAND} -E env --unset=MODUCO_PLUGIN_PATH ${WORK_DIR}/build/midpoint-demo)

# the third-party actuator and sensor plugins: out-of-tree builds against the same prefix
if(THRUSTER_DIR AND SPEEDOMETER_DIR)
  foreach(ex thruster speedometer)
    string(TOUPPER ${ex} up)
    run(${CMAKE_COMMAND} -S ${${up}_DIR} -B ${WORK_DIR}/build-${ex} -G ${GENERATOR}
        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
        "-DCMAKE_C_FLAGS=${EXTRA_C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_C_FLAGS}"
        "-DCMAKE_MODULE_LINKER_FLAGS=${EXTRA_C_FLAGS}")
    run(${CMAKE_COMMAND} --build ${WORK_DIR}/build-${ex})
    execute_process(COMMAND objdump -p ${WORK_DIR}/build-${ex}/libmoduco-example-${ex}.so
                    OUTPUT_VARIABLE deps)
    if(deps MATCHES "NEEDED[ \t]+libmoduco")
      message(FATAL_ERROR "the example plugin ${ex} links libmoduco:\n${deps}")
    endif()
  endforeach()

  # the model selects <thruster> and <speedometer>; the demo checks the effect and the readings
  run(${CMAKE_COMMAND} -E env
      MODUCO_PLUGIN_PATH=${WORK_DIR}/build-thruster:${WORK_DIR}/build-speedometer
      ${WORK_DIR}/build-thruster/thruster-demo)

  # without the plugins the elements are unknown: the demo must fail to load
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=MODUCO_PLUGIN_PATH
                  ${WORK_DIR}/build-thruster/thruster-demo RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "thruster")
    message(FATAL_ERROR "the demo ran without the thruster plugin (${rc}): ${err}")
  endif()
endif()

# the third-party constraint solver: out-of-tree build, links nothing of libmoduco, agrees with
# the built-in PGS (the installed core finds its built-ins beside itself, the example by path)
if(SOLVER_DIR)
  run(${CMAKE_COMMAND} -S ${SOLVER_DIR} -B ${WORK_DIR}/build-pgs -G ${GENERATOR}
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_C_FLAGS=${EXTRA_C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_C_FLAGS}"
      "-DCMAKE_MODULE_LINKER_FLAGS=${EXTRA_C_FLAGS}")
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/build-pgs)
  execute_process(COMMAND objdump -p ${WORK_DIR}/build-pgs/libmoduco-example-pgs.so
                  OUTPUT_VARIABLE deps)
  if(deps MATCHES "NEEDED[ \t]+libmoduco")
    message(FATAL_ERROR "the example solver links libmoduco:\n${deps}")
  endif()
  run(${CMAKE_COMMAND} -E env MODUCO_PLUGIN_PATH=${WORK_DIR}/build-pgs
      ${WORK_DIR}/build-pgs/pgs-demo)
endif()
