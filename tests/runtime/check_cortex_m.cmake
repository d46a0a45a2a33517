# ctest helper: compiles the runtime (core and op glue) for Cortex-M3/M4/M55 with the
# freestanding flags and -Werror, checks that the objects need nothing but compiler helpers,
# memory intrinsics, kernel entry points and each other, and prints the core's size (loader
# + executor + C API, no kernels and no op glue) per CPU: .text + .rodata + .data.
#   cmake -DCXX=<arm-none-eabi-g++> -DNM=<arm-none-eabi-nm> -DSIZE=<arm-none-eabi-size>
#         -DSRC=<repo root> -DOUT=<scratch dir> -P check_cortex_m.cmake
file(GLOB core "${SRC}/runtime/src/*.cc")
list(FILTER core EXCLUDE REGEX "all_kernels\\.cc$|trace\\.cc$")
set(tracer "${SRC}/runtime/src/trace.cc")  # checked, not counted in the core's size
file(GLOB glue "${SRC}/runtime/ops/*.cc")
include(${CMAKE_CURRENT_LIST_DIR}/../freestanding.cmake)  # cpus, outside_needs
file(MAKE_DIRECTORY "${OUT}")
foreach(cpu IN LISTS cpus)
  set(core_objects "")
  set(objects "")
  foreach(src IN LISTS core glue tracer)
    get_filename_component(name "${src}" NAME_WE)
    get_filename_component(dir "${src}" DIRECTORY)
    get_filename_component(dir "${dir}" NAME)
    set(obj "${OUT}/${dir}_${name}.o")
    execute_process(
      COMMAND ${CXX} -std=c++17 -Os -mthumb ${cpu} -ffreestanding -fno-exceptions -fno-rtti
              -fno-threadsafe-statics -ffunction-sections -fdata-sections
              -Wall -Wextra -Werror -Wconversion -Wno-sign-conversion
              -I${SRC}/runtime/include -I${SRC} -c ${src} -o ${obj}
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${cpu}: ${src} does not compile:\n${err}")
    endif()
    list(APPEND objects "${obj}")
    if(src IN_LIST core)
      list(APPEND core_objects "${obj}")
    endif()
  endforeach()
  # No allocator (malloc, operator new, __cxa_*) can pass: only these may come from outside.
  outside_needs(needs "__aeabi_.*|memcpy|memmove|memset|s8_.*" ${objects})
  if(needs)
    message(FATAL_ERROR "${cpu}: the runtime needs ${needs}")
  endif()
  execute_process(COMMAND ${SIZE} -t ${core_objects} OUTPUT_VARIABLE sizes)
  string(REGEX MATCH "([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)[ \t]+[0-9]+[ \t]+[0-9a-f]+[ \t]+\\(TOTALS\\)" m "${sizes}")
  math(EXPR core_bytes "${CMAKE_MATCH_1} + ${CMAKE_MATCH_2}")
  message(STATUS "${cpu}: ok; runtime core (loader, validator, executor, C API; -Os, before --gc-sections): ${core_bytes} bytes text+data")
endforeach()
