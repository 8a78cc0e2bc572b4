// mtx-read-bench: our Matrix Market reader against Eigen::loadMarket on one large
// `coordinate real general` file (Eigen does not expand symmetric files, so the
// comparison uses general storage). Both read from a warm page cache, both on one
// thread; each reports the best of --repeat runs. Results are compared entry by entry.
// Exit codes: 0 ok, 1 failure or mismatch, 2 bad usage.
#include "clcg/solver/generators.hpp"
#include "clcg/solver/matrix_market.hpp"

#include <unsupported/Eigen/SparseExtra>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char* usage_text =
    "usage: mtx-read-bench [--size-mb MB] [--file PATH] [--dir DIR] [--repeat R] [--keep]\n"
    "  --size-mb MB  size of the generated general file (default 100)\n"
    "  --file PATH   benchmark an existing coordinate general file instead\n"
    "  --dir DIR     where to generate the file (default: the temp directory)\n"
    "  --repeat R    runs of each reader, best taken (default 3)\n"
    "  --keep        keep the generated file\n";

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Reads the file once so both readers start from the page cache.
void warm_cache(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    }
}

bool identical(const clcg::solver::HostMatrix& a, const clcg::solver::HostMatrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nonZeros() != b.nonZeros()) return false;
    return std::equal(a.outerIndexPtr(), a.outerIndexPtr() + a.outerSize() + 1, b.outerIndexPtr()) &&
           std::equal(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros(), b.innerIndexPtr()) &&
           std::equal(a.valuePtr(), a.valuePtr() + a.nonZeros(), b.valuePtr());
}

}  // namespace

int main(int argc, char** argv) {
    using namespace clcg::solver;
    double size_mb = 100.0;
    std::string file;
    std::string dir = std::filesystem::temp_directory_path().string();
    int repeat = 3;
    bool keep = false;
    for (int k = 1; k < argc; ++k) {
        const std::string_view a = argv[k];
        auto value = [&]() -> std::string {
            if (k + 1 >= argc) {
                std::fprintf(stderr, "mtx-read-bench: %s needs a value\n", argv[k]);
                std::exit(2);
            }
            return argv[++k];
        };
        if (a == "-h" || a == "--help") {
            std::fputs(usage_text, stdout);
            return 0;
        } else if (a == "--size-mb") {
            size_mb = std::atof(value().c_str());
        } else if (a == "--file") {
            file = value();
        } else if (a == "--dir") {
            dir = value();
        } else if (a == "--repeat") {
            repeat = std::atoi(value().c_str());
        } else if (a == "--keep") {
            keep = true;
        } else {
            std::fprintf(stderr, "mtx-read-bench: unknown argument '%s'\n%s", argv[k], usage_text);
            return 2;
        }
    }
    if (size_mb <= 0.0 || repeat < 1) {
        std::fprintf(stderr, "mtx-read-bench: --size-mb and --repeat must be positive\n");
        return 2;
    }

    try {
        const bool generated = file.empty();
        if (generated) {
            // About 9 entries per row at ~34 bytes each in general storage.
            const int n = std::max(10, static_cast<int>(size_mb * 1e6 / (9 * 34.0)));
            file = dir + "/clcg_read_bench_" + std::to_string(::getpid()) + ".mtx";
            const auto t0 = Clock::now();
            const HostMatrix a = random_spd(n, 9, 2024);
            const double gen_s = seconds_since(t0);
            const auto t1 = Clock::now();
            write_matrix_market(file, a, false, "mtx-read-bench: random_spd(n, 9, 2024), general storage");
            const double write_s = seconds_since(t1);
            const double mb = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
            std::printf("generated %s: n = %d, nnz = %lld (%.1f s); written in %.2f s (%.0f MB/s)\n", file.c_str(),
                        n, static_cast<long long>(a.nonZeros()), gen_s, write_s, mb / write_s);
        }
        const double mb = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
        warm_cache(file);

        auto best_of = [&](auto&& run) {
            double best = 1e300;
            for (int r = 0; r < repeat; ++r) {
                const auto t0 = Clock::now();
                run();
                best = std::min(best, seconds_since(t0));
            }
            return best;
        };
        HostMatrix ours;
        const double ours_s = best_of([&] { ours = read_matrix_market(file); });
        HostMatrix eigen;
        const double eigen_s = best_of([&] {
            if (!Eigen::loadMarket(eigen, file)) throw std::runtime_error("Eigen::loadMarket failed on " + file);
            eigen.makeCompressed();
        });

        const bool same = identical(ours, eigen);
        std::printf("file: %s, %.1f MB, %lld x %lld, %lld nonzeros\n", file.c_str(), mb,
                    static_cast<long long>(ours.rows()), static_cast<long long>(ours.cols()),
                    static_cast<long long>(ours.nonZeros()));
        std::printf("clcg read_matrix_market: %7.3f s  %7.1f MB/s\n", ours_s, mb / ours_s);
        std::printf("Eigen::loadMarket:       %7.3f s  %7.1f MB/s\n", eigen_s, mb / eigen_s);
        std::printf("speed-up: %.1fx (best of %d runs each); results identical: %s\n", eigen_s / ours_s, repeat,
                    same ? "yes" : "NO");
        if (generated && !keep) std::filesystem::remove(file);
        return same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mtx-read-bench: %s\n", e.what());
        return 1;
    }
}
