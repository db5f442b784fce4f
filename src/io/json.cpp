#include "io/json.hpp"

#include <set>

namespace tensora::io_detail::json {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Value document() {
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError("bad JSON at byte " + std::to_string(pos_) + ": " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= s_.size(); }
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) fail("invalid literal");
    pos_ += word.size();
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 64 levels");
    skip_ws();
    Value v;
    switch (peek()) {
      case '{': object(v, depth); break;
      case '[': array(v, depth); break;
      case '"':
        v.type = Value::Type::String;
        v.text = string();
        break;
      case 't': literal("true"); v.type = Value::Type::Bool; v.boolean = true; break;
      case 'f': literal("false"); v.type = Value::Type::Bool; break;
      case 'n': literal("null"); break;
      default: number(v);
    }
    return v;
  }

  void object(Value& v, int depth) {
    v.type = Value::Type::Object;
    ++pos_;
    std::set<std::string, std::less<>> keys;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    while (true) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = string();
      if (!keys.insert(key).second) fail("duplicate key \"" + key + "\"");
      skip_ws();
      if (peek() != ':') fail("expected ':'");
      ++pos_;
      Value member = value(depth + 1);
      v.members.push_back(Value::Member{std::move(key), std::move(member)});
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail("expected ',' or '}'");
    }
  }

  void array(Value& v, int depth) {
    v.type = Value::Type::Array;
    ++pos_;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      v.items.push_back(value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail("expected ',' or ']'");
    }
  }

  void number(Value& v) {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("expected a value");
    }
    bool integer = true;
    if (peek() == '.') {
      integer = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integer = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    v.type = Value::Type::Number;
    v.text = std::string(s_.substr(start, pos_ - start));
    if (integer && v.text[0] != '-') {
      std::uint64_t x = 0;
      bool ok = true;
      for (const char c : v.text)
        if (__builtin_mul_overflow(x, 10u, &x) || __builtin_add_overflow(x, static_cast<unsigned>(c - '0'), &x)) ok = false;
      v.is_uint = ok;
      v.uint = ok ? x : 0;
    }
  }

  unsigned hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    unsigned x = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      x <<= 4;
      if (c >= '0' && c <= '9') x |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') x |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') x |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad hex digit in a \\u escape");
    }
    return x;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // One UTF-8 sequence starting at pos_, validated (no overlongs, no surrogates, <= U+10FFFF).
  void utf8_char(std::string& out) {
    const auto b0 = static_cast<unsigned char>(s_[pos_]);
    int len = 0;
    unsigned cp = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) len = 2, cp = b0 & 0x1F;
    else if (b0 >= 0xE0 && b0 <= 0xEF) len = 3, cp = b0 & 0x0F;
    else if (b0 >= 0xF0 && b0 <= 0xF4) len = 4, cp = b0 & 0x07;
    else fail("invalid UTF-8");
    if (s_.size() - pos_ < static_cast<std::size_t>(len)) fail("truncated UTF-8");
    for (int i = 1; i < len; ++i) {
      const auto b = static_cast<unsigned char>(s_[pos_ + static_cast<std::size_t>(i)]);
      if ((b & 0xC0) != 0x80) fail("invalid UTF-8");
      cp = (cp << 6) | (b & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      fail("invalid UTF-8");
    out.append(s_.substr(pos_, static_cast<std::size_t>(len)));
    pos_ += static_cast<std::size_t>(len);
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("control character in a string");
      if (c >= 0x80) {
        utf8_char(out);
        continue;
      }
      ++pos_;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (at_end()) fail("unterminated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail("lone high surrogate");
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("lone high surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: fail("invalid escape");
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

const Value* Value::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

Value parse(std::string_view text) { return Parser(text).document(); }

std::string quote(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace tensora::io_detail::json
