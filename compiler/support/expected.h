// Expected<T>: the host compiler's result type. A value or one Error, never an exception.
//
// Contract: no exception crosses a module boundary (import, ir, exec, the CLI). Code that
// calls a throwing library (nlohmann::json, std::filesystem) catches inside the module
// and returns an Error. An Error is {kind, message}: the message is one line of text
// already formatted for the user, e.g. `m.tfg: op 'conv1' (#3): attrs.stride: expected 2
// integers, got 3`; context is prepended as the error travels outwards (WithPrefix, which
// keeps the kind). The kind says whose fault it is; the CLI derives its exit code from the
// kind alone (ExitCode in tools/tinyforge/commands.h, docs/decisions.md), never from the text.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tinyforge {

enum class ErrorKind {
  kInvalidInput,  // the input or command line is wrong (malformed file, bad option, a model
                  // that does not fit the target): the user changes the input
  kUnsupported,   // well-formed input the compiler cannot handle (an op with no lowering)
  kInternal,      // a bug: an invariant the compiler should have kept does not hold
  kIo,            // the system failed us: an output cannot be written, a directory created
};

// "invalid input", "unsupported", "internal", "I/O".
constexpr std::string_view ErrorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::kInvalidInput: return "invalid input";
    case ErrorKind::kUnsupported: return "unsupported";
    case ErrorKind::kInternal: return "internal";
    case ErrorKind::kIo: return "I/O";
  }
  return "?";
}

class Error {
 public:
  // Error("...") is invalid input, the common case (a check on what the user gave).
  explicit Error(std::string message, ErrorKind kind = ErrorKind::kInvalidInput)
      : kind_(kind), message_(std::move(message)) {}
  static Error InvalidInput(std::string m) { return Error(std::move(m), ErrorKind::kInvalidInput); }
  static Error Unsupported(std::string m) { return Error(std::move(m), ErrorKind::kUnsupported); }
  static Error Internal(std::string m) { return Error(std::move(m), ErrorKind::kInternal); }
  static Error Io(std::string m) { return Error(std::move(m), ErrorKind::kIo); }

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  // "PREFIX: message", same kind. Adds the file, op or field an inner check did not know.
  Error WithPrefix(std::string_view prefix) const {
    return Error(std::string(prefix) + ": " + message_, kind_);
  }
  // The same message with another kind (e.g. a verifier failure after a pass is a bug).
  Error WithKind(ErrorKind kind) const { return Error(message_, kind); }

 private:
  ErrorKind kind_;
  std::string message_;
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition for the value accessors: ok(). For error(): !ok().
  T& value() & { return *std::get_if<0>(&Checked(true)); }
  const T& value() const& { return *std::get_if<0>(&Checked(true)); }
  T&& value() && { return std::move(*std::get_if<0>(&Checked(true))); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return *std::get_if<1>(&Checked(false)); }

 private:
  std::variant<T, Error>& Checked(bool want_value) {
    assert(ok() == want_value);
    (void)want_value;
    return v_;
  }
  const std::variant<T, Error>& Checked(bool want_value) const {
    assert(ok() == want_value);
    (void)want_value;
    return v_;
  }
  std::variant<T, Error> v_;
};

// Success-or-error with no value.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}  // NOLINT: implicit
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(!ok());
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

using Status = Expected<void>;

inline Status OkStatus() { return {}; }

}  // namespace tinyforge

// Propagation helpers, the only ones (use them instead of spelling out the if/return):
//   TF_RETURN_IF_ERROR(expr)                  returns the Error of a failed Expected/Status;
//   TF_RETURN_IF_ERROR_PREFIX(expr, prefix)   the same, with WithPrefix(prefix) applied;
//   TF_ASSIGN_OR_RETURN(decl, expr)           declares `decl` from the value of a successful
//                                             Expected, else returns its Error;
//   TF_ASSIGN_OR_RETURN_PREFIX(decl, expr, prefix)  the same, with the prefix on the Error.
// `prefix` is evaluated only on failure.
#define TF_CONCAT_INNER_(a, b) a##b
#define TF_CONCAT_(a, b) TF_CONCAT_INNER_(a, b)
#define TF_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    auto&& tf_status_ = (expr);                      \
    if (!tf_status_.ok()) return tf_status_.error(); \
  } while (0)
#define TF_RETURN_IF_ERROR_PREFIX(expr, prefix)                      \
  do {                                                               \
    auto&& tf_status_ = (expr);                                      \
    if (!tf_status_.ok()) return tf_status_.error().WithPrefix(prefix); \
  } while (0)
#define TF_ASSIGN_OR_RETURN(decl, expr) \
  TF_ASSIGN_OR_RETURN_IMPL_(TF_CONCAT_(tf_expected_, __LINE__), decl, expr)
#define TF_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.error();               \
  decl = std::move(tmp).value()
#define TF_ASSIGN_OR_RETURN_PREFIX(decl, expr, prefix) \
  TF_ASSIGN_OR_RETURN_PREFIX_IMPL_(TF_CONCAT_(tf_expected_, __LINE__), decl, expr, prefix)
#define TF_ASSIGN_OR_RETURN_PREFIX_IMPL_(tmp, decl, expr, prefix) \
  auto tmp = (expr);                                              \
  if (!tmp.ok()) return tmp.error().WithPrefix(prefix);           \
  decl = std::move(tmp).value()
