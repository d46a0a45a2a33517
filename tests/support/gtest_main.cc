// main() of every GoogleTest binary (in place of GTest::gtest_main): a skipped test
// (GTEST_SKIP) makes the binary exit 77, which ctest reports as skipped (SKIP_RETURN_CODE,
// tf_gtest_tests in CMakeLists.txt), or exit 1 when TINYFORGE_REQUIRE_ALL=1 / CI=true are
// set: in CI nothing may skip (tests/README.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool RequireAll() {
  const char* all = std::getenv("TINYFORGE_REQUIRE_ALL");
  const char* ci = std::getenv("CI");
  return (all != nullptr && *all != '\0' && std::strcmp(all, "0") != 0) ||
         (ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0));
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const int skipped = testing::UnitTest::GetInstance()->skipped_test_count();
  if (rc != 0 || skipped == 0) return rc;
  if (RequireAll()) {
    std::printf("FAILED: %d test(s) skipped, and TINYFORGE_REQUIRE_ALL / CI forbid skips\n",
                skipped);
    return 1;
  }
  std::printf("note: %d test(s) skipped (a failure in CI)\n", skipped);
  return 77;
}
