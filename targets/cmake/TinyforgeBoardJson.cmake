# The CMake reader of targets/boards/<board>/board.json (schema: targets/boards/
# board.schema.json; the C++ reader is compiler/target/board.cc, the Python one
# python/tinyforge/board_catalog.py). The toolchain file (arm-none-eabi.cmake) calls it once;
# TinyforgeFirmware.cmake uses what it sets:
#   TINYFORGE_CPU_FLAGS      compile_flags joined with spaces
#   TF_BOARD_LINKER_SCRIPT   linker_script (a file name in the board's directory)
#   TF_BOARD_QEMU_MACHINE    qemu.machine        TF_BOARD_CPU_HZ   qemu.cpu_hz
#   TF_BOARD_CPU             cpu                 TF_BOARD_ISA_CLASS isa_class
#   TF_BOARD_REGION_LINES    one X(name, base, size, speed_rank, TF_REGION_<PURPOSE>) per
#                            memory region, joined for tf_board_config.h.in
#   tf_board_compile_flags(<json_file> <var>)   <var>: compile_flags as a CMake list (any
#                            board, emulated or not; tinyforge_add_model uses it)
include_guard(GLOBAL)

# <out_var> = the JSON string array at <key...> of <json>, as a CMake list.
function(_tf_json_list json out_var)
  string(JSON _n LENGTH "${json}" ${ARGN})
  set(_items "")
  if(_n GREATER 0)
    math(EXPR _last "${_n} - 1")
    foreach(_i RANGE ${_last})
      string(JSON _item GET "${json}" ${ARGN} ${_i})
      list(APPEND _items "${_item}")
    endforeach()
  endif()
  set(${out_var} "${_items}" PARENT_SCOPE)
endfunction()

function(_tf_board_json_text json_file out_var)
  file(READ "${json_file}" _json)
  string(JSON _schema ERROR_VARIABLE _err GET "${_json}" schema)
  if(_err OR NOT _schema STREQUAL "tinyforge.board/1")
    message(FATAL_ERROR "tinyforge: ${json_file}: not a tinyforge.board/1 description")
  endif()
  set(${out_var} "${_json}" PARENT_SCOPE)
endfunction()

function(tf_board_compile_flags json_file out_var)
  _tf_board_json_text("${json_file}" _json)
  _tf_json_list("${_json}" _flags compile_flags)
  set(${out_var} "${_flags}" PARENT_SCOPE)
endfunction()

function(tf_read_board_json json_file)
  _tf_board_json_text("${json_file}" _json)
  _tf_json_list("${_json}" _flags compile_flags)
  list(JOIN _flags " " _flags)
  set(TINYFORGE_CPU_FLAGS "${_flags}" PARENT_SCOPE)
  string(JSON _v GET "${_json}" linker_script)
  set(TF_BOARD_LINKER_SCRIPT "${_v}" PARENT_SCOPE)
  string(JSON _v GET "${_json}" qemu machine)
  set(TF_BOARD_QEMU_MACHINE "${_v}" PARENT_SCOPE)
  string(JSON _v GET "${_json}" qemu cpu_hz)
  set(TF_BOARD_CPU_HZ "${_v}" PARENT_SCOPE)
  string(JSON _v GET "${_json}" cpu)
  set(TF_BOARD_CPU "${_v}" PARENT_SCOPE)
  string(JSON _v GET "${_json}" isa_class)
  set(TF_BOARD_ISA_CLASS "${_v}" PARENT_SCOPE)
  string(JSON _n LENGTH "${_json}" memory)
  math(EXPR _last "${_n} - 1")
  set(_lines "")
  foreach(_i RANGE ${_last})
    string(JSON _name GET "${_json}" memory ${_i} name)
    string(JSON _base GET "${_json}" memory ${_i} base)
    string(JSON _size GET "${_json}" memory ${_i} size)
    string(JSON _rank GET "${_json}" memory ${_i} speed_rank)
    string(JSON _purpose GET "${_json}" memory ${_i} purpose)
    string(TOUPPER "${_purpose}" _purpose)
    list(APPEND _lines "  X(${_name}, ${_base}u, ${_size}u, ${_rank}, TF_REGION_${_purpose})")
  endforeach()
  list(JOIN _lines " \\\n" _lines)
  set(TF_BOARD_REGION_LINES "${_lines}" PARENT_SCOPE)
endfunction()
