# ctest body of a test whose tool is missing (tf_missing_test): skipped (exit 77), or a
# failure when TINYFORGE_REQUIRE_ALL / CI are set (in CI nothing may skip).
set(_all "$ENV{TINYFORGE_REQUIRE_ALL}")
string(TOLOWER "$ENV{CI}" _ci)
if((_all AND NOT _all STREQUAL "0") OR _ci STREQUAL "true" OR _ci STREQUAL "1")
  message(FATAL_ERROR "not built: ${WHY} (TINYFORGE_REQUIRE_ALL / CI forbid skips)")
endif()
message("skipped: ${WHY}")
cmake_language(EXIT 77)
