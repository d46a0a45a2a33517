# The tinyforge CMake package (docs/deploying.md). In a firmware project:
#
#   find_package(tinyforge CONFIG REQUIRED)   # CMAKE_PREFIX_PATH=<prefix>, or tinyforge_DIR=
#                                             # $(python -c "import tinyforge; print(tinyforge.cmake_dir())")
#   add_executable(app main.cc startup.c)
#   tinyforge_add_model(app MODEL kws.tflite TARGET stm32h743)   # targets/cmake/TinyforgeModel.cmake
#
# Sets TINYFORGE_ROOT (the folder with targets/, runtime/, kernels/) and TINYFORGE_EXECUTABLE
# (the `tinyforge` command of this installation; set it to use another). Configured with
# tinyforge's own toolchain file for an emulated board (-DCMAKE_TOOLCHAIN_FILE=
# <TINYFORGE_ROOT>/targets/cmake/arm-none-eabi.cmake -DTINYFORGE_BOARD=an547), it also gives
# that board's support code (docs/decisions.md 44): tinyforge::board (startup, vectors, fault
# reports, semihosting, tf_printf; the board's linker script comes with the toolchain file)
# and tinyforge::board_stdio (newlib's printf over semihosting).
get_filename_component(TINYFORGE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
# Installed: <prefix>/share/tinyforge/cmake -> <prefix>/bin; a source tree: build/.
find_program(TINYFORGE_EXECUTABLE tinyforge
  PATHS "${TINYFORGE_ROOT}/../../bin" "${TINYFORGE_ROOT}/build/tools/tinyforge"
  NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
if(NOT TINYFORGE_EXECUTABLE)
  set(tinyforge_FOUND FALSE)
  set(tinyforge_NOT_FOUND_MESSAGE "the tinyforge command is not installed beside "
      "${TINYFORGE_ROOT} (set TINYFORGE_EXECUTABLE)")
  return()
endif()

include("${TINYFORGE_ROOT}/targets/cmake/TinyforgeModel.cmake")

if(TINYFORGE_BOARD AND TINYFORGE_TARGETS_DIR AND NOT TARGET tinyforge::board)
  include("${TINYFORGE_TARGETS_DIR}/cmake/TinyforgeFirmware.cmake")
  add_library(tinyforge::board ALIAS tf_board)
  add_library(tinyforge::board_stdio ALIAS tf_newlib_stdio)
endif()
