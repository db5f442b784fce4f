// A small strict JSON (RFC 8259) parser for safetensors headers: rejects trailing text,
// duplicate keys, invalid UTF-8, lone surrogates and nesting deeper than 64 levels.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tensora::io_detail::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  std::string text;  // the string, or the number's literal text
  bool is_uint = false;  // a number that is a non-negative integer fitting 64 bits
  std::uint64_t uint = 0;
  struct Member;
  std::vector<Value> items;     // Array
  std::vector<Member> members;  // Object, in file order

  const Value* find(std::string_view key) const;
};

// Declared after Value: std::pair would need Value complete where the vector is declared.
struct Value::Member {
  std::string key;
  Value value;
};

// Thrown by parse(); the caller names the file.
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Value parse(std::string_view text);

// JSON string literal of `s` (quotes included), escaping what JSON requires.
std::string quote(std::string_view s);

}  // namespace tensora::io_detail::json
