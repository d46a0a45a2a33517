#include "support/text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace tinyforge {
namespace {

// std::to_chars without a precision gives the shortest round-trip form, which is what we
// want for IR text: stable across platforms and exact when parsed back.
template <class F>
std::string FormatFloating(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

}  // namespace

std::string FormatDouble(double v) { return FormatFloating(v); }
std::string FormatFloat(float v) { return FormatFloating(v); }

std::string FormatInts(std::span<const int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "]";
}

namespace {

std::string EscapeImpl(std::string_view s, bool quote) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((quote && c == '"') || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string Escape(std::string_view s) { return EscapeImpl(s, false); }

std::string Quote(std::string_view s) { return "\"" + EscapeImpl(s, true) + "\""; }

std::string WithThousands(int64_t v) {
  std::string digits = std::to_string(v);
  size_t start = (v < 0) ? 1 : 0;
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > start && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    return ((a < 0) != (b < 0)) ? std::numeric_limits<int64_t>::min()
                                : std::numeric_limits<int64_t>::max();
  }
  return r;
}

}  // namespace tinyforge
