#pragma once
// A problem with the user's input (a file, a size): cg-solve maps it to exit code 2.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace clcg::solver {

class InputError : public std::runtime_error {
public:
    // line == 0 means "no line applies" and is left out of what().
    InputError(std::string file, std::size_t line, const std::string& message);
    const std::string& file() const noexcept { return file_; }
    std::size_t line() const noexcept { return line_; }

private:
    std::string file_;
    std::size_t line_;
};

}  // namespace clcg::solver
