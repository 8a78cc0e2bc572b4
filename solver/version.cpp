#include "clcg/solver/version.hpp"

namespace clcg {
std::string_view version() noexcept { return CLCG_VERSION_STRING; }
}  // namespace clcg
