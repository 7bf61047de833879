// status.hpp: how the model reports bad user input.
//
// User errors (a scenario that does not parse, a misaligned address, a stride of 0) come back as a
// Result<T> holding an Error whose message is one line naming what and where. Broken invariants are
// asserts. Nothing in sim/ prints or exits; the CLI and the app show the message.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace bankscope {

struct Error {
  std::string message;  // one line: "<where>: <what is wrong>"
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    assert(ok() && "Result::value() on an error");
    return std::get<0>(v_);
  }
  T& value() & {
    assert(ok() && "Result::value() on an error");
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok() && "Result::value() on an error");
    return std::get<0>(std::move(v_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const {
    assert(!ok() && "Result::error() on a value");
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// Prefixes an error message with a location ("file.json: accesses[2].index: ...").
// A user's text as an error message quotes it: on one line (control characters as \xNN), cut
// after 200 characters. An error is one line, whatever the input held (a hypothesis run of the
// Python API found an op of "\n" echoed raw).
inline std::string printable(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size() && i < 200; ++i) {
    const unsigned char u = static_cast<unsigned char>(text[i]);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += static_cast<char>(u);
    }
  }
  if (text.size() > 200) out += "...";
  return out;
}

inline Error with_context(const std::string& where, Error e) {
  if (!where.empty()) e.message = where + ": " + e.message;
  return e;
}

}  // namespace bankscope
