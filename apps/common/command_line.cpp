#include "command_line.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>

namespace clcg::apps {
namespace {

// Errors raised inside a validator: Boost adds the option's name where %canonical_option% is.
[[noreturn]] void reject(const std::string& what_is_expected, const std::string& token) {
  throw po::error_with_option_name("%canonical_option% expects " + what_is_expected + ", got '" + token + "'");
}

std::optional<std::uint64_t> to_count(const std::string& text) {
  const char* const end = text.data() + text.size();
  std::uint64_t value = 0;
  std::from_chars_result parsed = std::from_chars(text.data(), end, value);
  if (parsed.ec != std::errc()) return std::nullopt;
  if (parsed.ptr != end && (*parsed.ptr == 'e' || *parsed.ptr == 'E')) {
    unsigned exponent = 0;
    parsed = std::from_chars(parsed.ptr + 1, end, exponent);
    if (parsed.ec != std::errc()) return std::nullopt;
    for (unsigned k = 0; k < exponent; ++k) {
      if (value > std::numeric_limits<std::uint64_t>::max() / 10) return std::nullopt;
      value *= 10;
    }
  }
  if (parsed.ptr != end) return std::nullopt;
  return value;
}

std::optional<double> to_real(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

constexpr const char* count_syntax = "a whole number such as 1000000 or 1e6";
constexpr const char* real_syntax = "a finite number such as 1e-8";

std::string format(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

void validate(boost::any& out, const std::vector<std::string>& tokens, Count*, int) {
  po::validators::check_first_occurrence(out);
  const std::string& token = po::validators::get_single_string(tokens);
  const auto value = to_count(token);
  if (!value) reject(count_syntax, token);
  out = Count{*value};
}

void validate(boost::any& out, const std::vector<std::string>& tokens, Real*, int) {
  po::validators::check_first_occurrence(out);
  const std::string& token = po::validators::get_single_string(tokens);
  const auto value = to_real(token);
  if (!value) reject(real_syntax, token);
  out = Real{*value};
}

void validate(boost::any& out, const std::vector<std::string>& tokens, NameList*, int) {
  po::validators::check_first_occurrence(out);
  const std::string& token = po::validators::get_single_string(tokens);
  NameList list{split(token)};
  for (const std::string& item : list.values)
    if (item.empty()) reject("a comma-separated list without empty items", token);
  out = list;
}

void validate(boost::any& out, const std::vector<std::string>& tokens, CountList*, int) {
  po::validators::check_first_occurrence(out);
  const std::string& token = po::validators::get_single_string(tokens);
  CountList list;
  for (const std::string& item : split(token)) {
    const auto value = to_count(item);
    if (!value) reject(std::string("a comma-separated list of ") + count_syntax, token);
    list.values.push_back(*value);
  }
  out = list;
}

std::uint64_t parse_count(const std::string& text, const std::string& what) {
  const auto value = to_count(text);
  if (!value) throw UsageError(what + " expects " + count_syntax + ", got '" + text + "'");
  return *value;
}

double parse_real(const std::string& text, const std::string& what) {
  const auto value = to_real(text);
  if (!value) throw UsageError(what + " expects " + real_syntax + ", got '" + text + "'");
  return *value;
}

std::uint64_t check_range(const std::string& what, std::uint64_t value, std::uint64_t min, std::uint64_t max) {
  if (value < min || value > max)
    throw UsageError(what + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                     std::to_string(value));
  return value;
}

std::uint64_t count_in_range(const po::variables_map& args, const char* name, std::uint64_t min, std::uint64_t max) {
  return check_range(std::string("--") + name, args[name].as<Count>().value, min, max);
}

double real_in_range(const po::variables_map& args, const char* name, double min, double max, bool open_min,
                     bool open_max) {
  const double value = args[name].as<Real>().value;
  const bool below = open_min ? value <= min : value < min;
  const bool above = open_max ? value >= max : value > max;
  if (below || above)
    throw UsageError(std::string("--") + name + " must be " + (open_min ? "greater than " : "at least ") + format(min) +
                     " and " + (open_max ? "less than " : "at most ") + format(max) + ", got " + format(value));
  return value;
}

CommandLine::CommandLine(std::string app, std::string usage, std::string about)
    : app_(std::move(app)), usage_(std::move(usage)), about_(std::move(about)), options_("options") {
  options_.add_options()("help,h", "show this help and exit");
}

void CommandLine::add_device_options() {
  const char* device = std::getenv("CLCG_DEVICE");
  const char* platform = std::getenv("CLCG_PLATFORM");
  add()("device", po::value<std::string>()->default_value(device ? device : "auto"),
        "auto | gpu | cpu | <index> from cg-solve --list-devices (env CLCG_DEVICE)")
       ("platform", po::value<std::string>()->default_value(platform ? platform : ""),
        "only devices whose platform name contains this, case-insensitive (env CLCG_PLATFORM)");
}

std::optional<po::variables_map> CommandLine::parse(int argc, char** argv) const {
  po::variables_map args;
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(options_);
    // Only apps that take words: an empty description makes Boost misreport a missing value.
    if (positional_.max_total_count() > 0) parser.positional(positional_);
    po::store(parser.run(), args);
    po::notify(args);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (args.count("help")) {
    std::cout << help();
    return std::nullopt;
  }
  return args;
}

std::string CommandLine::help() const {
  std::ostringstream out;
  out << usage_line() << "\n" << about_ << "\n\n" << options_;
  if (!epilog_.empty()) out << "\n" << epilog_;
  return out.str();
}

}  // namespace clcg::apps
