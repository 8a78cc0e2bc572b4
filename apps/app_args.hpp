#pragma once
// Command-line helpers shared by the Boost-free apps (reduce-bench, pi, cg-bench): they are
// carried to the GPU machine, which has no Boost.Program_options.
#include <charconv>
#include <cstdint>
#include <limits>
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

}  // namespace clcg::apps
