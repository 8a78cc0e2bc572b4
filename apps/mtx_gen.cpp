// mtx-gen: writes the project's generated test matrices as Matrix Market files.
// Exit codes: 0 success, 1 write failure, 2 bad usage.
#include "clcg/solver/generators.hpp"
#include "clcg/solver/matrix_market.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char* usage_text =
    "usage: mtx-gen <kind> ARGS... -o FILE [--general]\n"
    "\n"
    "kinds:\n"
    "  poisson2d NX [NY]          5-point Laplacian on NX x NY (NY defaults to NX)\n"
    "  poisson3d N [NY NZ]        7-point Laplacian on N x N x N, or N x NY x NZ\n"
    "  aniso2d NX NY EPS          -EPS u_xx - u_yy, 5-point (EPS > 0)\n"
    "  random N NNZ_PER_ROW SEED  random SPD (strictly diagonally dominant), seeded\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  output file (required); replaced atomically\n"
    "  --general          store both triangles (default: symmetric, lower triangle)\n"
    "  -h, --help         show this help\n";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

int parse_int(std::string_view s, const char* what) {
    int v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        throw UsageError(std::string(what) + " must be an integer, got '" + std::string(s) + "'");
    }
    if (v < 1) throw UsageError(std::string(what) + " must be >= 1, got " + std::to_string(v));
    return v;
}

std::uint64_t parse_seed(std::string_view s) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        throw UsageError("SEED must be a non-negative integer, got '" + std::string(s) + "'");
    }
    return v;
}

double parse_positive_double(std::string_view s, const char* what) {
    double v = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v) || v <= 0.0) {
        throw UsageError(std::string(what) + " must be a positive number, got '" + std::string(s) + "'");
    }
    return v;
}

void expect_count(const std::string& kind, const std::vector<std::string>& args, std::size_t lo, std::size_t hi) {
    if (args.size() < lo || args.size() > hi) {
        throw UsageError(kind + " takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                         " arguments, got " + std::to_string(args.size()));
    }
}

}  // namespace

int main(int argc, char** argv) {
    using namespace clcg::solver;
    try {
        std::string output;
        bool general = false;
        std::vector<std::string> positional;
        for (int k = 1; k < argc; ++k) {
            const std::string_view a = argv[k];
            if (a == "-h" || a == "--help") {
                std::fputs(usage_text, stdout);
                return 0;
            }
            if (a == "-o" || a == "--output") {
                if (k + 1 >= argc) throw UsageError(std::string(a) + " needs a file name");
                output = argv[++k];
            } else if (a.substr(0, 9) == "--output=") {
                output = std::string(a.substr(9));
            } else if (a == "--general") {
                general = true;
            } else if (a.size() > 1 && a[0] == '-') {
                throw UsageError("unknown option '" + std::string(a) + "'");
            } else {
                positional.emplace_back(a);
            }
        }
        if (positional.empty()) throw UsageError("missing kind (poisson2d, poisson3d, aniso2d or random)");
        if (output.empty()) throw UsageError("missing -o FILE");
        const std::string kind = positional.front();
        const std::vector<std::string> args(positional.begin() + 1, positional.end());

        HostMatrix a;
        if (kind == "poisson2d") {
            expect_count(kind, args, 1, 2);
            const int nx = parse_int(args[0], "NX");
            a = poisson_2d(nx, args.size() > 1 ? parse_int(args[1], "NY") : nx);
        } else if (kind == "poisson3d") {
            if (args.size() == 2) throw UsageError("poisson3d takes N or N NY NZ, got 2 arguments");
            expect_count(kind, args, 1, 3);
            const int nx = parse_int(args[0], "N");
            a = args.size() == 3 ? poisson_3d(nx, parse_int(args[1], "NY"), parse_int(args[2], "NZ"))
                                 : poisson_3d(nx, nx, nx);
        } else if (kind == "aniso2d") {
            expect_count(kind, args, 3, 3);
            a = anisotropic_poisson_2d(parse_int(args[0], "NX"), parse_int(args[1], "NY"),
                                       parse_positive_double(args[2], "EPS"));
        } else if (kind == "random") {
            expect_count(kind, args, 3, 3);
            const int n = parse_int(args[0], "N");
            const int per_row = parse_int(args[1], "NNZ_PER_ROW");
            if (per_row > n) throw UsageError("NNZ_PER_ROW must not exceed N");
            a = random_spd(n, per_row, parse_seed(args[2]));
        } else {
            throw UsageError("unknown kind '" + kind + "' (poisson2d, poisson3d, aniso2d or random)");
        }

        // Provenance goes into the file itself.
        std::string comment = "generated by: mtx-gen";
        for (const auto& p : positional) comment += " " + p;
        if (general) comment += " --general";
        write_matrix_market(output, a, !general, comment);
        std::printf("wrote %s: %lld x %lld, %lld nonzeros (%s storage)\n", output.c_str(),
                    static_cast<long long>(a.rows()), static_cast<long long>(a.cols()),
                    static_cast<long long>(a.nonZeros()), general ? "general" : "symmetric");
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "mtx-gen: %s\nTry 'mtx-gen --help'.\n", e.what());
        return 2;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "mtx-gen: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mtx-gen: %s\n", e.what());
        return 1;
    }
}
