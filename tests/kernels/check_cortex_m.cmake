# ctest helper: compiles every kernel source for the Cortex-M classes tinyforge targets
# (M3 soft-float, M4 DSP + FPU, M55 MVE) with the freestanding flags and -Werror, and
# checks that the objects need nothing but compiler helpers (libgcc __aeabi_*, mem*) and
# each other.
#   cmake -DCXX=<arm-none-eabi-g++> -DNM=<arm-none-eabi-nm> -DSRC=<repo root>
#         -DOUT=<scratch dir> -P check_cortex_m.cmake
file(GLOB sources "${SRC}/kernels/*/s8_*.cc" "${SRC}/kernels/*/f32_*.cc")
include(${CMAKE_CURRENT_LIST_DIR}/../freestanding.cmake)  # cpus, outside_needs
file(MAKE_DIRECTORY "${OUT}")
foreach(cpu IN LISTS cpus)
  set(objects "")
  foreach(src IN LISTS sources)
    get_filename_component(name "${src}" NAME_WE)
    set(obj "${OUT}/${name}.o")
    execute_process(
      COMMAND ${CXX} -std=c++17 -O2 -mthumb ${cpu} -ffreestanding -fno-exceptions -fno-rtti
              -Wall -Wextra -Werror -Wconversion -Wno-sign-conversion -ffp-contract=off -I${SRC} -c ${src} -o ${obj}
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${cpu}: ${src} does not compile:\n${err}")
    endif()
    list(APPEND objects "${obj}")
  endforeach()
  outside_needs(needs "__aeabi_.*|memcpy|memmove|memset" ${objects})
  if(needs)
    message(FATAL_ERROR "${cpu}: kernels need ${needs}")
  endif()
  message(STATUS "${cpu}: ok")
endforeach()
