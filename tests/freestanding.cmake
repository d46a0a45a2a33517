# What the freestanding checks share (tests/kernels/check_freestanding.cmake and the two
# check_cortex_m.cmake scripts).
#
# The Cortex-M classes they build for: M3 soft-float (scalar), M4 DSP + FPU, M55 MVE. One
# entry per class, its GCC flags separated by escaped semicolons.
set(cpus
  "-mcpu=cortex-m3\;-mfloat-abi=soft"
  "-mcpu=cortex-m4\;-mfloat-abi=hard\;-mfpu=fpv4-sp-d16"
  "-mcpu=cortex-m55\;-mfloat-abi=hard")

# outside_needs(<out-var> <allowed regex> <object or archive>...): the symbols the objects
# need (nm -u) that they do not define themselves (a variant may call its family's __ref)
# and that do not match ^(<allowed regex>)$.
function(outside_needs out allowed)
  execute_process(COMMAND ${NM} -u ${ARGN} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${ARGN}")
  endif()
  execute_process(COMMAND ${NM} --defined-only -g ${ARGN} OUTPUT_VARIABLE defined)
  string(REGEX MATCHALL "[TDRBW] [^\n]+" defined_lines "${defined}")
  set(defined_syms "")
  foreach(line IN LISTS defined_lines)
    string(REGEX REPLACE "^[TDRBW] " "" sym "${line}")
    list(APPEND defined_syms "${sym}")
  endforeach()
  string(REGEX MATCHALL "U [^\n]+" symbols "${undefined}")
  set(needs "")
  foreach(line IN LISTS symbols)
    string(REGEX REPLACE "^U " "" sym "${line}")
    if(NOT sym IN_LIST defined_syms AND NOT sym MATCHES "^(${allowed})$")
      list(APPEND needs "${sym}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES needs)
  set(${out} "${needs}" PARENT_SCOPE)
endfunction()
