#include "clcg/solver/io/host_threads.hpp"

#include <cstdlib>
#include <string>

#include "clcg/solver/io/input_error.hpp"

namespace clcg::solver {

unsigned host_threads() {
    constexpr unsigned most = 1024;
    if (const char* text = std::getenv("CLCG_THREADS"); text != nullptr && *text != '\0') {
        char* end = nullptr;
        const unsigned long value = std::strtoul(text, &end, 10);
        if (*end != '\0' || value < 1 || value > most || text[0] == '-' || text[0] == '+')
            throw InputError("CLCG_THREADS", 0,
                             "'" + std::string(text) + "' is not a thread count (a whole number from 1 to " +
                                 std::to_string(most) + ")");
        return static_cast<unsigned>(value);
    }
    return std::max(1U, std::thread::hardware_concurrency());
}

unsigned threads_for(std::size_t work, std::size_t grain, unsigned requested) {
    const unsigned threads = requested == 0 ? host_threads() : requested;
    const std::size_t useful = std::max<std::size_t>(1, work / std::max<std::size_t>(1, grain));
    return static_cast<unsigned>(std::min<std::size_t>(threads, useful));
}

}  // namespace clcg::solver
