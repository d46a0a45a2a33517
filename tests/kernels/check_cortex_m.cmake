# ctest helper: compiles every kernel source for the Cortex-M classes tinyforge targets
# (M3 soft-float, M4 DSP + FPU, M55 MVE) with the freestanding flags and -Werror, and
# checks that the objects need nothing but compiler helpers (libgcc __aeabi_*, mem*) and
# each other.
#   cmake -DCXX=<arm-none-eabi-g++> -DNM=<arm-none-eabi-nm> -DSRC=<repo root>
#         -DOUT=<scratch dir> -P check_cortex_m.cmake
file(GLOB sources "${SRC}/kernels/*/s8_*.cc")
include(${CMAKE_CURRENT_LIST_DIR}/../cortex_m_cpus.cmake)  # sets cpus
file(MAKE_DIRECTORY "${OUT}")
foreach(cpu IN LISTS cpus)
  set(objects "")
  foreach(src IN LISTS sources)
    get_filename_component(name "${src}" NAME_WE)
    set(obj "${OUT}/${name}.o")
    execute_process(
      COMMAND ${CXX} -std=c++17 -O2 -mthumb ${cpu} -ffreestanding -fno-exceptions -fno-rtti
              -Wall -Wextra -Werror -Wconversion -Wno-sign-conversion -I${SRC} -c ${src} -o ${obj}
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${cpu}: ${src} does not compile:\n${err}")
    endif()
    list(APPEND objects "${obj}")
  endforeach()
  execute_process(COMMAND ${NM} -u ${objects} OUTPUT_VARIABLE undefined)
  # A variant may call another kernel of the library (e.g. its family's __ref for rare shapes).
  execute_process(COMMAND ${NM} --defined-only -g ${objects} OUTPUT_VARIABLE defined)
  string(REGEX MATCHALL "[TDRB] [^\n]+" defined_lines "${defined}")
  set(defined_syms "")
  foreach(line IN LISTS defined_lines)
    string(REGEX REPLACE "^[TDRB] " "" sym "${line}")
    list(APPEND defined_syms "${sym}")
  endforeach()
  string(REGEX MATCHALL "U [^\n]+" symbols "${undefined}")
  foreach(line IN LISTS symbols)
    string(REGEX REPLACE "^U " "" sym "${line}")
    if(sym IN_LIST defined_syms)
      continue()
    endif()
    if(NOT sym MATCHES "^(__aeabi_.*|memcpy|memmove|memset)$")
      message(FATAL_ERROR "${cpu}: kernels need ${sym}")
    endif()
  endforeach()
  message(STATUS "${cpu}: ok")
endforeach()
