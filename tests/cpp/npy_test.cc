// .npy reader/writer: round trip, NumPy's own header variants, and rejections.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "exec/npy.h"

namespace tinyforge::exec {
namespace {

// A .npy file with the given header dict text and data bytes (version 1.0 or 2.0).
std::vector<uint8_t> Npy(const std::string& dict, const std::vector<uint8_t>& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t n = header.size();
  out.push_back(static_cast<uint8_t>(n));
  out.push_back(static_cast<uint8_t>(n >> 8));
  if (major == 2) {
    out.push_back(static_cast<uint8_t>(n >> 16));
    out.push_back(static_cast<uint8_t>(n >> 24));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string Err(const std::vector<uint8_t>& bytes) {
  auto r = ParseNpy(bytes, "a.npy");
  return r.ok() ? "ok" : r.error().message();
}

TEST(Npy, RoundTripAllDTypes) {
  for (const HostTensor& t :
       {HostTensor::Float({2, 3}, {1, 2, 3, 4, 5, -6.5f}), HostTensor::Int8({4}, {-128, 0, 1, 127}),
        HostTensor::Int32({1, 1, 2}, {INT32_MIN, 7}), HostTensor::Float({}, {3.0f})}) {
    const auto bytes = SerializeNpy(t);
    auto back = ParseNpy(bytes, "t.npy");
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_TRUE(back->BitEqual(t));
  }
  // What NumPy itself writes for np.zeros((1, 3), np.float32) and a 1-D int8 array.
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }";
  const auto bytes = SerializeNpy(HostTensor::Float({1, 3}, {0, 0, 0}));
  EXPECT_EQ(std::string(bytes.begin() + 10, bytes.begin() + 10 + static_cast<long>(header.size())),
            header);
  EXPECT_EQ((bytes.size() - 12) % 64, 0u);  // data starts 64-aligned (12 = 3 floats)
  EXPECT_EQ(Err(Npy("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", {1, 2, 3})), "ok");
  EXPECT_EQ(
      Err(Npy("{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (1,)}", {1, 0, 0, 0}, 2)),
      "ok");
}

TEST(Npy, Int64ReadsAsInt32WhereEveryValueFits) {
  // PyTorch's integer tensors (token ids) are int64: -2 and 2^31 - 1 fit, 2^31 does not.
  std::vector<uint8_t> data = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0};
  auto t = ParseNpy(Npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", data),
                    "a.npy");
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype(), ir::DType::kInt32);
  EXPECT_EQ(t->i32()[0], -2);
  EXPECT_EQ(t->i32()[1], 2147483647);
  data[8] = data[9] = data[10] = 0, data[11] = 0x80;  // 2^31
  EXPECT_EQ(Err(Npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", data)),
            "a.npy: npy: int64 element 1 is 2147483648, outside int32 (integer inputs are "
            "int32: indices, token ids)");
  EXPECT_EQ(Err(Npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                    std::vector<uint8_t>(8, 0))),
            "a.npy: npy: data is 8 bytes, shape [2] of int64 needs 16 (truncated)");
}

TEST(Npy, RejectsUnsupportedFiles) {
  const std::vector<uint8_t> four(4, 0);
  EXPECT_EQ(Err({'P', 'K', 3, 4}), "a.npy: npy: not a .npy file (bad magic)");
  // Text from the file is quoted with control characters escaped: one line (npy_fuzz).
  EXPECT_EQ(Err(Npy("{'descr': 'a\nb', 'fortran_order': False, 'shape': (1,), }", four))
                .rfind("a.npy: npy: dtype \"a\\nb\" is not supported", 0),
            0u);
  EXPECT_EQ(Err(Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                    std::vector<uint8_t>(8, 0))),
            "a.npy: npy: dtype \"<f8\" is not supported (use float32 '<f4', int8 '|i1', int32 "
            "'<i4' or int64 '<i8', little-endian)");
  EXPECT_NE(Err(Npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", four))
                .find("dtype \">f4\" is not supported"),
            std::string::npos);
  EXPECT_EQ(Err(Npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four)),
            "a.npy: npy: Fortran-order arrays are not supported");
  EXPECT_EQ(Err(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four)),
            "a.npy: npy: data is 4 bytes, shape [2] of float32 needs 8 (truncated)");
  EXPECT_EQ(Err(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                    std::vector<uint8_t>(5, 0))),
            "a.npy: npy: data is 5 bytes, shape [1] of float32 needs 4 (trailing bytes)");
  EXPECT_NE(Err(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", {}))
                .find("shape [0] is not supported"),
            std::string::npos);
  EXPECT_NE(Err(Npy("{'descr': '<f4', 'shape': (1,), }", four)).find("'fortran_order' missing"),
            std::string::npos);
  EXPECT_NE(Err(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four, 3))
                .find("format version 3.0 is not supported"),
            std::string::npos);
  EXPECT_NE(Err(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", four))
                .find("shape must be a tuple"),
            std::string::npos);
  EXPECT_NE(Err(Npy("not a dict", four)).find("header is not a dict"), std::string::npos);
  auto truncated = Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four);
  truncated.resize(30);
  EXPECT_NE(Err(truncated).find("truncated header"), std::string::npos);
  EXPECT_EQ(
      ReadNpy("/nonexistent/x.npy").error().message().rfind("/nonexistent/x.npy: cannot open", 0),
      0u);
}

}  // namespace
}  // namespace tinyforge::exec
