# Runs one libFuzzer target (included by build/tests/fuzz/<name>_fuzz.cmake, which sets
# NAME, FUZZER, CORPUS, MAX_LEN, WORK). Either
#   -DRUNS=<n>      ctest: n runs, -seed=1, from the committed corpus only (a scratch
#                   directory takes the new inputs and is emptied first: deterministic)
#   -DSECONDS=<s>   make fuzz: s seconds, new inputs kept in WORK/fuzz-corpus/NAME
# Findings (crash, leak, timeout, out-of-memory) are written to WORK/fuzz-artifacts/NAME-*.
# Limits: RSS 2 GB, any single allocation over 256 MB, 10 s per input: an input that makes
# a loader allocate without bound or hang is a finding, like a crash.
file(GLOB _seeds "${CORPUS}/*")
if(NOT _seeds)
  message(FATAL_ERROR "${NAME}_fuzz: the committed corpus ${CORPUS} is missing or empty")
endif()
set(_artifacts "${WORK}/fuzz-artifacts")
file(MAKE_DIRECTORY "${_artifacts}")
set(_limits -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 -max_len=${MAX_LEN}
    "-artifact_prefix=${_artifacts}/${NAME}-" -print_final_stats=1)
if(DEFINED RUNS)
  set(_new "${WORK}/tests/fuzz/scratch/${NAME}")
  file(REMOVE_RECURSE "${_new}")
  file(MAKE_DIRECTORY "${_new}")
  set(_mode -runs=${RUNS} -seed=1)
elseif(DEFINED SECONDS)
  set(_new "${WORK}/fuzz-corpus/${NAME}")
  file(MAKE_DIRECTORY "${_new}")
  set(_mode -max_total_time=${SECONDS})
else()
  message(FATAL_ERROR "run_fuzzer.cmake: give -DRUNS=<n> or -DSECONDS=<s>")
endif()
execute_process(COMMAND "${FUZZER}" ${_mode} ${_limits} "${_new}" "${CORPUS}"
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${NAME}_fuzz: finding (exit ${_rc}); the input is in "
                      "${_artifacts}/${NAME}-*; reproduce with: ${FUZZER} <that file>")
endif()
