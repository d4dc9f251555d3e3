# moduco-bench-forward: mc_forward vs MuJoCo 2.2.2 mj_forward at the same random states
if(NOT MUJOCO_LIB)
  message(STATUS "benchmarks skipped: libmujoco not found")
  return()
endif()

add_executable(moduco-bench-forward
  ${CMAKE_CURRENT_LIST_DIR}/bench_forward.c
  ${PROJECT_SOURCE_DIR}/tests/conformance/models.c)
target_include_directories(moduco-bench-forward PRIVATE ${PROJECT_SOURCE_DIR}/tests/conformance
                           ${PROJECT_SOURCE_DIR}/tests/common)
target_link_libraries(moduco-bench-forward PRIVATE moduco ${MUJOCO_LIB} m)
target_compile_definitions(moduco-bench-forward PRIVATE
  MODUCO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  MODUCO_CORPUS_DIR="/work/shared/corpus")

# moduco-bench-collision: mc_collision vs MuJoCo 2.2.2 mj_collision on the same poses (three
# scenes and the sphere-pile scaling curve); mc_collision is internal, hence the static library
add_executable(moduco-bench-collision ${CMAKE_CURRENT_LIST_DIR}/bench_collision.c)
target_link_libraries(moduco-bench-collision PRIVATE moduco_static ${MUJOCO_LIB} m)
target_compile_definitions(moduco-bench-collision PRIVATE
  MODUCO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# moduco-bench-derivative: mcd_transitionFD (serial, pool of 1 and 2 threads) vs MuJoCo 2.2.2
# mjd_transitionFD on the same state
add_executable(moduco-bench-derivative ${CMAKE_CURRENT_LIST_DIR}/bench_derivative.c)
target_link_libraries(moduco-bench-derivative PRIVATE moduco ${MUJOCO_LIB} m)
target_compile_definitions(moduco-bench-derivative PRIVATE MODUCO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# moduco-bench-islands: in-step thread pool (1 vs T threads, islands on) and the scaling of the
# step with the number of free bodies (issue 15)
add_executable(moduco-bench-islands ${CMAKE_CURRENT_LIST_DIR}/bench_islands.c)
target_link_libraries(moduco-bench-islands PRIVATE moduco Threads::Threads m)
