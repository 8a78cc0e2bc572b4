#pragma once
// The one command-line parser every clcg app uses: Boost.Program_options, with the same
// number syntax, range checks, --help and exit statuses everywhere.
//
//   clcg::apps::CommandLine cli("pi", "pi [options]", "Integrates 4/(1+x^2) ...");
//   cli.add()("n", po::value<Count>()->default_value(Count{100'000'000}, "1e8"), "intervals");
//   return clcg::apps::app_main(cli, argc, argv, [](const po::variables_map& args) { ... });
//
// --help prints the usage line, the description and the options on stdout and exits 0; an
// unknown option, a missing or malformed value exits 2 with "<app>: <what>" and the usage line.
#include <boost/program_options.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace clcg::apps {

namespace po = boost::program_options;

inline constexpr int exit_usage = 2;   // bad command line or input
inline constexpr int exit_device = 3;  // OpenCL or device error

// A bad command line found after parsing (a value out of range, options that clash): the app
// prints it with its usage line and exits 2.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A non-negative whole number, written "1000000" or "1e6" (exact: "1.5e3" and overflow are
// errors).
struct Count {
  std::uint64_t value = 0;
};
// A finite real number as C's strtod reads it ("1e-8", "+.5").
struct Real {
  double value = 0;
};
// "a,b,c": one or more items, none empty.
struct NameList {
  std::vector<std::string> values;
};
struct CountList {
  std::vector<std::uint64_t> values;
};

// Boost.Program_options validators (found by argument-dependent lookup).
void validate(boost::any& out, const std::vector<std::string>& tokens, Count*, int);
void validate(boost::any& out, const std::vector<std::string>& tokens, Real*, int);
void validate(boost::any& out, const std::vector<std::string>& tokens, NameList*, int);
void validate(boost::any& out, const std::vector<std::string>& tokens, CountList*, int);

// The same parsers for text that is not an option value (positional words); `what` names it.
std::uint64_t parse_count(const std::string& text, const std::string& what);
double parse_real(const std::string& text, const std::string& what);

// The value of option `name` within [min, max], else UsageError
// "--name must be between min and max, got v" (one wording in every app).
std::uint64_t count_in_range(const po::variables_map& args, const char* name, std::uint64_t min, std::uint64_t max);
double real_in_range(const po::variables_map& args, const char* name, double min, double max, bool open_min = false,
                     bool open_max = false);
// Checks a value taken from a list or a positional word the same way.
std::uint64_t check_range(const std::string& what, std::uint64_t value, std::uint64_t min, std::uint64_t max);

class CommandLine {
 public:
  // usage: the synopsis after "usage: ", e.g. "pi [options]"; about: what the app does.
  CommandLine(std::string app, std::string usage, std::string about);

  po::options_description_easy_init add() { return options_.add_options(); }
  // --device auto|gpu|cpu|<index> and --platform <substring>, defaulting to the environment's
  // CLCG_DEVICE / CLCG_PLATFORM (as the library and the tests read them), else auto / any.
  void add_device_options();
  // Positional words (e.g. mtx-gen's kind and sizes) collected under `name`.
  void positional(const char* name, int max_count = -1) { positional_.add(name, max_count); }
  // Text after the options in --help (exit statuses, examples).
  void epilog(std::string text) { epilog_ = std::move(text); }

  // Parses; nullopt when --help was given (the help is printed). Throws UsageError.
  std::optional<po::variables_map> parse(int argc, char** argv) const;

  const std::string& app() const noexcept { return app_; }
  std::string usage_line() const { return "usage: " + usage_; }
  std::string help() const;

 private:
  std::string app_, usage_, about_, epilog_;
  po::options_description options_;
  po::positional_options_description positional_;
};

}  // namespace clcg::apps
