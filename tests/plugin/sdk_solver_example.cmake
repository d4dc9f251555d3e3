# ctest script: install the build into a temporary prefix, build sdk/examples/solver-pgs against
# it with find_package(moduco), check the plugin links nothing of libmoduco, and run its demo
# (example.pgs against the built-in PGS on a dense and a sparse Jacobian) with the example's
# build folder on MODUCO_PLUGIN_PATH. Variables: BINARY_DIR, EXAMPLE_DIR, WORK_DIR, GENERATOR,
# EXTRA_C_FLAGS.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("$ ${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc})")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_C_FLAGS=${EXTRA_C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_C_FLAGS}"
    "-DCMAKE_MODULE_LINKER_FLAGS=${EXTRA_C_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)

execute_process(COMMAND objdump -p ${WORK_DIR}/build/libmoduco-example-pgs.so
                OUTPUT_VARIABLE deps)
if(deps MATCHES "NEEDED[ \t]+libmoduco")
  message(FATAL_ERROR "the example solver links libmoduco:\n${deps}")
endif()

# the installed core finds its built-in PGS beside itself, the example through the path
run(${CMAKE_COMMAND} -E env MODUCO_PLUGIN_PATH=${WORK_DIR}/build ${WORK_DIR}/build/pgs-demo)
