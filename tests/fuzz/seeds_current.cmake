# The committed seeds (CORPUS) equal what the generator GEN writes now into OUT: when a
# format changes, the seeds must be regenerated, or the fuzzer would start from inputs
# the loader rejects at once. Other files in CORPUS (kept from campaigns) are not checked.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${GEN}" "${OUT}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${GEN} failed (exit ${_rc})")
endif()
file(GLOB _files RELATIVE "${OUT}" "${OUT}/*")
if(NOT _files)
  message(FATAL_ERROR "${GEN} wrote no seeds")
endif()
foreach(f IN LISTS _files)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}/${f}" "${CORPUS}/${f}"
                  RESULT_VARIABLE _diff)
  if(NOT _diff EQUAL 0)
    message(FATAL_ERROR "${CORPUS}/${f} is missing or out of date: regenerate the seeds "
                        "with `${GEN} ${CORPUS}`")
  endif()
endforeach()
