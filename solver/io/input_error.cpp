#include "clcg/solver/io/input_error.hpp"

#include <utility>

namespace clcg::solver {
namespace {

std::string compose_message(const std::string& file, std::size_t line, const std::string& message) {
    std::string s = file;
    if (line != 0) {
        s += ':';
        s += std::to_string(line);
    }
    s += ": ";
    s += message;
    return s;
}

}  // namespace

InputError::InputError(std::string file, std::size_t line, const std::string& message)
    : std::runtime_error(compose_message(file, line, message)), file_(std::move(file)), line_(line) {}

}  // namespace clcg::solver
