// Small text helpers shared by the printer, the diagnostics and the CLI. All output is
// locale-independent and deterministic (std::to_chars), so IR text can be compared.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tinyforge {

// Shortest text that reads back to exactly `v` ("0.02", "1e-05", "6", "nan", "inf", "-inf").
std::string FormatDouble(double v);
std::string FormatFloat(float v);

// "[1,64,25,5]"; "[]" for a scalar.
std::string FormatInts(std::span<const int64_t> values);

// Text copied from a file into a message or a name: printable ASCII as is, backslash and
// newline as \\ and \n, any other byte (control characters, non-ASCII, invalid UTF-8) as
// \xNN. A message stays one line, a terminal shows it as it is, JSON accepts it. Every
// message that quotes file content goes through Escape or Quote.
std::string Escape(std::string_view s);
// `s` as a double-quoted string: Escape, and \" for a double quote.
std::string Quote(std::string_view s);

// 1234567 -> "1,234,567" (for human-readable reports).
std::string WithThousands(int64_t v);

// a + b, a * b saturating at INT64_MAX/INT64_MIN instead of overflowing (stats on
// adversarial files must not be undefined behaviour).
int64_t SaturatingAdd(int64_t a, int64_t b);
int64_t SaturatingMul(int64_t a, int64_t b);

}  // namespace tinyforge
