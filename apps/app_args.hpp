#pragma once
// Command-line helpers shared by the Boost-free apps (reduce-bench, pi, cg-bench): they are
// carried to the GPU machine, which has no Boost.Program_options.
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace clcg::apps {

// A bad command line: the app prints it with its usage and exits 2.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A count written as an integer ("1000000") or a power of ten ("1e6"); exact, no overflow.
inline std::uint64_t parse_count(const std::string& text, const std::string& option) {
  const auto fail = [&] {
    return UsageError(option + " expects a non-negative integer such as 1000000 or 1e6, got '" + text + "'");
  };
  const char* const end = text.data() + text.size();
  std::uint64_t value = 0;
  std::from_chars_result parsed = std::from_chars(text.data(), end, value);
  if (parsed.ec != std::errc()) throw fail();
  if (parsed.ptr != end && (*parsed.ptr == 'e' || *parsed.ptr == 'E')) {
    unsigned exponent = 0;
    parsed = std::from_chars(parsed.ptr + 1, end, exponent);
    if (parsed.ec != std::errc()) throw fail();
    for (unsigned k = 0; k < exponent; ++k) {
      if (value > std::numeric_limits<std::uint64_t>::max() / 10) throw fail();
      value *= 10;
    }
  }
  if (parsed.ptr != end) throw fail();
  return value;
}

// "a,b,c" -> {"a", "b", "c"}; empty items are an error.
inline std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) throw UsageError(option + " has an empty item in '" + text + "'");
    items.push_back(item);
  }
  if (items.empty()) throw UsageError(option + " needs at least one item");
  return items;
}

// Walks a command line option by option, taking "--name value" and "--name=value":
//   OptionCursor args(argc, argv);
//   while (args.next()) if (args.name() == "--n") n = parse_count(args.value(), args.name()); ...
class OptionCursor {
 public:
  OptionCursor(int argc, char** argv) : tokens_(argv + 1, argv + argc) {}

  // Moves to the next option; false when none is left.
  bool next() {
    if (++at_ >= tokens_.size()) return false;
    token_ = tokens_[at_];
    name_ = token_;
    attached_.reset();
    if (const auto eq = name_.find('='); name_.starts_with("--") && eq != std::string::npos) {
      attached_ = name_.substr(eq + 1);
      name_.resize(eq);
    }
    return true;
  }
  const std::string& name() const noexcept { return name_; }
  const std::string& token() const noexcept { return token_; }  // as typed, for messages
  // The option's value: attached with '=', else the next token.
  std::string value() {
    if (attached_) return *attached_;
    if (at_ + 1 >= tokens_.size()) throw UsageError(name_ + " needs a value");
    return tokens_[++at_];
  }
  // For options that take none.
  void no_value() const {
    if (attached_) throw UsageError(name_ + " takes no value");
  }

 private:
  std::vector<std::string> tokens_;
  std::size_t at_ = static_cast<std::size_t>(-1);
  std::string token_, name_;
  std::optional<std::string> attached_;
};

}  // namespace clcg::apps
