#include "clcg/solver/problems/generators.hpp"

#include "clcg/solver/io/host_threads.hpp"
#include "stencil.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace clcg::detail {
namespace {

// Uniform in [0, m) by rejection: exact and identical on every platform, unlike
// std::uniform_int_distribution whose algorithm each library chooses.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t m) {
    const std::uint64_t threshold = (0 - m) % m;  // 2^64 mod m
    for (;;) {
        const std::uint64_t x = rng();
        if (x >= threshold) return x % m;
    }
}

// Uniform in [-1, 1) from the top 53 bits.
double uniform_signed(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; }

}  // namespace
}  // namespace clcg::detail

namespace clcg::solver {

HostMatrix poisson_2d(int nx, int ny) { return anisotropic_poisson_2d(nx, ny, 1.0); }

HostMatrix anisotropic_poisson_2d(int nx, int ny, double epsilon) {
    constexpr const char* name = "anisotropic_poisson_2d";
    detail::require_positive(nx, "nx", name);
    detail::require_positive(ny, "ny", name);
    if (!(epsilon > 0.0) || !std::isfinite(epsilon)) {
        throw std::invalid_argument(std::string(name) + ": epsilon must be positive and finite");
    }
    const int n = detail::checked_size(static_cast<std::int64_t>(nx) * ny, 5, name);
    const double diag = 2.0 * epsilon + 2.0;
    const auto length = [&](int row) {
        const int i = row % nx, j = row / nx;
        return 1 + (j > 0) + (i > 0) + (i < nx - 1) + (j < ny - 1);
    };
    return detail::stencil_csr(n, length, [&](int row, detail::RowWriter w) {
        const int i = row % nx, j = row / nx;
        if (j > 0) w.add(row - nx, -1.0);
        if (i > 0) w.add(row - 1, -epsilon);
        w.add(row, diag);
        if (i < nx - 1) w.add(row + 1, -epsilon);
        if (j < ny - 1) w.add(row + nx, -1.0);
    });
}

HostMatrix poisson_3d(int nx, int ny, int nz) {
    constexpr const char* name = "poisson_3d";
    detail::require_positive(nx, "nx", name);
    detail::require_positive(ny, "ny", name);
    detail::require_positive(nz, "nz", name);
    const int n = detail::checked_size(static_cast<std::int64_t>(nx) * ny * nz, 7, name);
    const int plane = nx * ny;
    const auto length = [&](int row) {
        const int i = row % nx, j = row / nx % ny, k = row / plane;
        return 1 + (k > 0) + (j > 0) + (i > 0) + (i < nx - 1) + (j < ny - 1) + (k < nz - 1);
    };
    return detail::stencil_csr(n, length, [&](int row, detail::RowWriter w) {
        const int i = row % nx, j = row / nx % ny, k = row / plane;
        if (k > 0) w.add(row - plane, -1.0);
        if (j > 0) w.add(row - nx, -1.0);
        if (i > 0) w.add(row - 1, -1.0);
        w.add(row, 6.0);
        if (i < nx - 1) w.add(row + 1, -1.0);
        if (j < ny - 1) w.add(row + nx, -1.0);
        if (k < nz - 1) w.add(row + plane, -1.0);
    });
}

HostMatrix random_spd(int n, int nnz_per_row, std::uint64_t seed) {
    constexpr const char* name = "random_spd";
    detail::require_positive(n, "n", name);
    detail::require_positive(nnz_per_row, "nnz_per_row", name);
    if (nnz_per_row > n) {
        throw std::invalid_argument(std::string(name) + ": nnz_per_row (" + std::to_string(nnz_per_row) +
                                    ") exceeds n (" + std::to_string(n) + ")");
    }
    detail::checked_size(n, nnz_per_row, name);
    const int picks = (nnz_per_row - 1) / 2;  // <= (n - 1) / 2, so rejection below is cheap

    std::mt19937_64 rng(seed);
    std::vector<Eigen::Triplet<double, int>> t;
    t.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(2 * picks + 1));
    std::vector<double> abs_sum(static_cast<std::size_t>(n), 0.0);
    std::vector<int> chosen;
    for (int i = 0; i < n; ++i) {
        chosen.clear();
        while (static_cast<int>(chosen.size()) < picks) {
            const int j = static_cast<int>(detail::uniform_below(rng, static_cast<std::uint64_t>(n)));
            if (j == i || std::find(chosen.begin(), chosen.end(), j) != chosen.end()) continue;
            chosen.push_back(j);
            const double v = detail::uniform_signed(rng);
            t.emplace_back(i, j, v);
            t.emplace_back(j, i, v);
            // Bound of the row sum even when another row's pick collides with this one.
            abs_sum[static_cast<std::size_t>(i)] += std::abs(v);
            abs_sum[static_cast<std::size_t>(j)] += std::abs(v);
        }
    }
    for (int i = 0; i < n; ++i) t.emplace_back(i, i, 1.0 + abs_sum[static_cast<std::size_t>(i)]);
    HostMatrix a(n, n);
    a.setFromTriplets(t.begin(), t.end());
    a.makeCompressed();
    return a;
}

}  // namespace clcg::solver
