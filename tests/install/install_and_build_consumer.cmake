# Installs the hptune build tree into a fresh prefix, builds the consumer
# project against it with find_package(hptune), and runs it on a SQLite file.
# Inputs: HPTUNE_BUILD_DIR, CONSUMER_SOURCE_DIR, WORK_DIR, GENERATOR, SANITIZE.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}")
  endif()
endfunction()

run_step(${CMAKE_COMMAND} --install ${HPTUNE_BUILD_DIR} --prefix ${prefix})
# The installed binary runs from its prefix (its shared libraries, where
# the build makes them, are found there).
run_step(${prefix}/bin/hptune --version)
if(NOT EXISTS ${prefix}/include/hptune/engine/engine.h)
  message(FATAL_ERROR "headers were not installed under ${prefix}")
endif()
foreach(proto study job study_service job_service)
  if(NOT EXISTS ${prefix}/share/hptune/proto/hptune/v1/${proto}.proto)
    message(FATAL_ERROR "${proto}.proto was not installed under ${prefix}/share")
  endif()
endforeach()
set(extra)
if(SANITIZE)
  set(extra -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
endif()
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
         -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} ${extra})
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step(${WORK_DIR}/build/consumer ${WORK_DIR}/consumer.db)
