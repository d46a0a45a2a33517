// The .npy header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }
// We parse exactly the subset NumPy writes (string, bool and int-tuple values) with a tiny
// recursive-descent reader instead of trusting substring searches.
#include "exec/npy.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "support/input_file.h"
#include "support/text.h"

namespace tinyforge::exec {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct HeaderValue {
  std::optional<std::string> str;
  std::optional<bool> boolean;
  std::optional<std::vector<int64_t>> tuple;
};

class DictParser {
 public:
  explicit DictParser(std::string_view s) : s_(s) {}

  Expected<std::map<std::string, HeaderValue>> Parse() {
    std::map<std::string, HeaderValue> out;
    if (!Eat('{')) return Error("header is not a dict");
    while (true) {
      if (Eat('}')) break;
      auto key = String();
      if (!key) return Error("header: expected a quoted key");
      if (!Eat(':')) return Error("header: expected ':' after " + Quote(*key));
      auto value = Value();
      TF_RETURN_IF_ERROR(value);
      out[*key] = *value;
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Error("header: expected ',' or '}'");
    }
    Skip();
    if (pos_ != s_.size()) return Error("header: unexpected text after the dict");
    return out;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> String() {
    Skip();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return std::nullopt;
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    if (end == std::string_view::npos) return std::nullopt;
    std::string v(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return v;
  }
  std::optional<int64_t> Int() {
    Skip();
    int64_t v = 0;
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return std::nullopt;
      v = v * 10 + (s_[pos_++] - '0');
    }
    // NumPy may write 3L in Python 2 era files.
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;
    if (pos_ == start) return std::nullopt;
    return v;
  }
  Expected<HeaderValue> Value() {
    HeaderValue v;
    Skip();
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      v.boolean = true;
    } else if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      v.boolean = false;
    } else if (Eat('(')) {
      v.tuple.emplace();
      while (!Eat(')')) {
        auto d = Int();
        if (!d) return Error("header: shape must be a tuple of non-negative integers");
        v.tuple->push_back(*d);
        if (!Eat(',') && (Skip(), pos_ >= s_.size() || s_[pos_] != ')')) {
          return Error("header: malformed shape tuple");
        }
      }
    } else if (auto s = String()) {
      v.str = *s;
    } else {
      return Error("header: unsupported value at offset " + std::to_string(pos_));
    }
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

Expected<ir::DType> ParseDescr(const std::string& d) {
  if (d == "<f4") return ir::DType::kFloat32;
  if (d == "|i1" || d == "<i1" || d == ">i1") return ir::DType::kInt8;
  if (d == "<i4") return ir::DType::kInt32;
  return Error("dtype " + Quote(d) +
               " is not supported (use float32 '<f4', int8 '|i1', int32 '<i4' or int64 '<i8', "
               "little-endian)");
}

std::string_view Descr(ir::DType t) {
  switch (t) {
    case ir::DType::kFloat32:
      return "<f4";
    case ir::DType::kInt8:
      return "|i1";
    case ir::DType::kInt32:
      return "<i4";
  }
  return "";
}

Expected<HostTensor> ParseImpl(std::span<const uint8_t> bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    return Error("not a .npy file (bad magic)");
  }
  const int major = bytes[6];
  const int minor = bytes[7];
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len = bytes[8] | (static_cast<size_t>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2) {
    if (bytes.size() < 12) return Error("truncated header");
    header_len = bytes[8] | (static_cast<size_t>(bytes[9]) << 8) |
                 (static_cast<size_t>(bytes[10]) << 16) | (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  } else {
    return Error("format version " + std::to_string(major) + "." + std::to_string(minor) +
                 " is not supported (1.0 and 2.0 are)");
  }
  if (minor != 0)
    return Error("format version " + std::to_string(major) + "." + std::to_string(minor) +
                 " is not supported");
  if (header_len > bytes.size() - header_start) return Error("truncated header");
  std::string_view header(reinterpret_cast<const char*>(bytes.data()) + header_start, header_len);
  TF_ASSIGN_OR_RETURN(auto dict, DictParser(header).Parse());
  const auto descr = dict.find("descr");
  const auto fortran = dict.find("fortran_order");
  const auto shape = dict.find("shape");
  if (descr == dict.end() || !descr->second.str) return Error("header: 'descr' missing");
  if (fortran == dict.end() || !fortran->second.boolean) {
    return Error("header: 'fortran_order' missing");
  }
  if (shape == dict.end() || !shape->second.tuple) return Error("header: 'shape' missing");
  // int64 (PyTorch's default integer type, e.g. token ids): read as int32, every value
  // checked to fit.
  const bool int64 = *descr->second.str == "<i8";
  TF_ASSIGN_OR_RETURN(ir::DType dtype,
                      int64 ? Expected<ir::DType>(ir::DType::kInt32)
                            : ParseDescr(*descr->second.str));
  if (*fortran->second.boolean) return Error("Fortran-order arrays are not supported");
  ir::Shape dims = *shape->second.tuple;
  if (!ir::CheckedNumElements(dims)) {
    return Error("shape " + FormatInts(dims) +
                 " is not supported (dims >= 1, at most 6 dims, at most 2^31-1 elements)");
  }
  const auto data = bytes.subspan(header_start + header_len);
  if (int64) {
    const uint64_t n = static_cast<uint64_t>(ir::NumElements(dims));
    if (data.size() != n * 8) {
      return Error("data is " + std::to_string(data.size()) + " bytes, shape " +
                   FormatInts(dims) + " of int64 needs " + std::to_string(n * 8) +
                   (data.size() < n * 8 ? " (truncated)" : " (trailing bytes)"));
    }
    std::vector<int32_t> v(n);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t u = 0;
      for (int b = 7; b >= 0; --b) u = (u << 8) | data[i * 8 + static_cast<uint64_t>(b)];
      const auto x = static_cast<int64_t>(u);
      if (x < INT32_MIN || x > INT32_MAX) {
        return Error("int64 element " + std::to_string(i) + " is " + std::to_string(x) +
                     ", outside int32 (integer inputs are int32: indices, token ids)");
      }
      v[i] = static_cast<int32_t>(x);
    }
    return HostTensor::Int32(dims, std::move(v));
  }
  const uint64_t want = static_cast<uint64_t>(ir::NumElements(dims) * ir::DTypeSize(dtype));
  if (data.size() != want) {
    return Error("data is " + std::to_string(data.size()) + " bytes, shape " + FormatInts(dims) +
                 " of " + std::string(ir::DTypeName(dtype)) + " needs " + std::to_string(want) +
                 (data.size() < want ? " (truncated)" : " (trailing bytes)"));
  }
  return HostTensor::FromBytes(dtype, dims, data);
}

}  // namespace

Expected<HostTensor> ParseNpy(std::span<const uint8_t> bytes, std::string_view file_label) {
  auto t = ParseImpl(bytes);
  TF_RETURN_IF_ERROR_PREFIX(t, std::string(file_label) + ": npy");
  return t;
}

Expected<HostTensor> ReadNpy(const std::string& path) {
  try {
    TF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                        ReadInputFile(path, {".npy file", kMaxNpyFileBytes, 0,
                                             std::string_view(kMagic, sizeof kMagic - 1)}));
    return ParseNpy(bytes, path);
  } catch (const std::exception& e) {
    return Error(path + ": cannot read file: " + e.what());
  }
}

Status CheckFinite(const HostTensor& t, std::string_view label) {
  if (t.dtype() != ir::DType::kFloat32) return OkStatus();
  const std::span<const float> v = t.f32();
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i])) continue;
    // C-order coordinates of element i.
    std::vector<int64_t> at(t.shape().size());
    size_t rest = i;
    for (size_t d = at.size(); d-- > 0;) {
      const auto n = static_cast<size_t>(t.shape()[d]);
      at[d] = static_cast<int64_t>(rest % n);
      rest /= n;
    }
    return Error(std::string(label) + ": element " + std::to_string(i) + " (index " +
                 FormatInts(at) + ") is " + FormatFloat(v[i]) +
                 ": a model input must be finite (replace NaN and infinity before running)");
  }
  return OkStatus();
}

Expected<HostTensor> ReadInputNpy(const std::string& path) {
  TF_ASSIGN_OR_RETURN(HostTensor t, ReadNpy(path));
  TF_RETURN_IF_ERROR(CheckFinite(t, path));
  return t;
}

std::vector<uint8_t> SerializeNpy(const HostTensor& t) {
  // Python tuple syntax: (), (3,), (1, 3).
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
  }
  shape += t.shape().size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + std::string(Descr(t.dtype())) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that magic(6) + version(2) + len(2) + header + '\n' is 64-aligned.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const auto data = t.ToBytes();
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Status WriteNpy(const std::string& path, const HostTensor& t) {
  const auto bytes = SerializeNpy(t);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error::Io(path + ": cannot open for writing: " + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Error::Io(path + ": write failed");
  return OkStatus();
}

}  // namespace tinyforge::exec
