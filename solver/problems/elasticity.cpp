#include "clcg/solver/problems/elasticity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "stencil.hpp"

namespace clcg::solver {
namespace {

// The stiffness of one unit Q1 cell, (2^d d)^2 values: K[(a d + i)(2^d d) + b d + j] couples
// corner a's displacement i with corner b's j (corner a at the bits of a: x, y, z). Isotropic,
// E = 1: K_ai,bj = integral of lambda N_a,i N_b,j + mu (N_a,j N_b,i + delta_ij grad N_a . grad N_b),
// by the 2^d-point Gauss rule (exact for Q1 on a box).
std::vector<double> cell_stiffness(unsigned d, double nu) {
  const double lambda = nu / ((1 + nu) * (1 - 2 * nu)), mu = 1 / (2 * (1 + nu));
  const unsigned corners = 1U << d, dofs = corners * d;
  std::vector<double> k(std::size_t(dofs) * dofs, 0.0);
  const double g = 1 / std::sqrt(3.0), det = std::pow(0.5, double(d));  // x = (xi + 1) / 2
  for (unsigned point = 0; point < corners; ++point) {
    double xi[3];
    for (unsigned c = 0; c < d; ++c) xi[c] = (point >> c & 1U) ? g : -g;
    std::vector<std::array<double, 3>> grad(corners);  // dN_a / dx_c
    for (unsigned a = 0; a < corners; ++a)
      for (unsigned c = 0; c < d; ++c) {
        double v = 2 * ((a >> c & 1U) ? 0.5 : -0.5);
        for (unsigned o = 0; o < d; ++o)
          if (o != c) v *= (1 + ((a >> o & 1U) ? xi[o] : -xi[o])) / 2;
        grad[a][c] = v;
      }
    for (unsigned a = 0; a < corners; ++a)
      for (unsigned b = 0; b < corners; ++b) {
        double dot = 0;
        for (unsigned c = 0; c < d; ++c) dot += grad[a][c] * grad[b][c];
        for (unsigned i = 0; i < d; ++i)
          for (unsigned j = 0; j < d; ++j)
            k[std::size_t(a * d + i) * dofs + b * d + j] +=
                det * (lambda * grad[a][i] * grad[b][j] + mu * (grad[a][j] * grad[b][i] + (i == j ? dot : 0.0)));
      }
  }
  return k;
}

ElasticBody elastic_body(const char* name, unsigned d, std::array<int, 3> cells, double nu, bool clamped) {
  for (unsigned c = 0; c < d; ++c) detail::require_positive(cells[c], c == 0 ? "nx" : c == 1 ? "ny" : "nz", name);
  if (!(nu > -1 && nu < 0.5))
    throw std::invalid_argument(std::string(name) + ": Poisson's ratio must lie in (-1, 0.5), got " + std::to_string(nu));
  std::array<std::int64_t, 3> nodes{1, 1, 1};  // along each axis
  for (unsigned c = 0; c < d; ++c) nodes[c] = std::int64_t(cells[c]) + 1;
  const std::int64_t first_x = clamped ? 1 : 0;  // the face x = 0 is removed when clamped
  const std::int64_t along_x = nodes[0] - first_x;
  const std::int64_t kept = along_x * nodes[1] * nodes[2];
  const int rows = detail::checked_size(kept * d, std::int64_t(d) * (d == 3 ? 27 : 9), name);
  const std::vector<double> k = cell_stiffness(d, nu);
  const unsigned dofs = (1U << d) * d;
  // Node f of the kept ones on the grid, and back (-1 where removed or outside).
  const auto place = [&](std::int64_t f) {
    return std::array<std::int64_t, 3>{f % along_x + first_x, f / along_x % nodes[1], f / along_x / nodes[1]};
  };
  const auto kept_index = [&](std::int64_t x, std::int64_t y, std::int64_t z) -> std::int64_t {
    if (x < first_x || x >= nodes[0] || y < 0 || y >= nodes[1] || z < 0 || z >= nodes[2]) return -1;
    return (x - first_x) + along_x * (y + nodes[1] * z);
  };
  const int reach_z = d == 3 ? 1 : 0;
  // Calls f(neighbour's kept index, its grid place) for the nodes sharing a cell with node
  // `at`, in increasing order.
  const auto for_each_neighbour = [&](const std::array<std::int64_t, 3>& at, auto&& f) {
    for (int dz = -reach_z; dz <= reach_z; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::array<std::int64_t, 3> m{at[0] + dx, at[1] + dy, at[2] + dz};
          const std::int64_t j = kept_index(m[0], m[1], m[2]);
          if (j >= 0) f(j, m);
        }
  };
  ElasticBody body;
  body.dimensions = d;
  body.stiffness = detail::stencil_csr(
      rows,
      [&](int row) {
        int count = 0;
        for_each_neighbour(place(row / int(d)), [&](std::int64_t, const auto&) { count += int(d); });
        return count;
      },
      [&](int row, detail::RowWriter w) {
        const unsigned i = unsigned(row) % d;
        const std::array<std::int64_t, 3> at = place(row / int(d));
        for_each_neighbour(at, [&](std::int64_t j, const std::array<std::int64_t, 3>& m) {
          for (unsigned jc = 0; jc < d; ++jc) {
            double v = 0;  // over the cells holding both nodes
            std::array<std::int64_t, 3> lo{0, 0, 0}, hi{0, 0, 0};
            for (unsigned c = 0; c < 3; ++c) {
              lo[c] = c < d ? std::max<std::int64_t>(std::max(at[c], m[c]) - 1, 0) : 0;
              hi[c] = c < d ? std::min<std::int64_t>(std::min(at[c], m[c]), cells[c] - 1) : 0;
            }
            for (std::int64_t cz = lo[2]; cz <= hi[2]; ++cz)
              for (std::int64_t cy = lo[1]; cy <= hi[1]; ++cy)
                for (std::int64_t cx = lo[0]; cx <= hi[0]; ++cx) {
                  const auto corner = [&](const std::array<std::int64_t, 3>& p) {
                    return unsigned((p[0] - cx) + 2 * (p[1] - cy) + 4 * (p[2] - cz));
                  };
                  v += k[std::size_t(corner(at) * d + i) * dofs + corner(m) * d + jc];
                }
            w.add(int(j * d + jc), v);
          }
        });
      });
  body.coordinates.resize(std::size_t(kept) * d);
  for (std::int64_t f = 0; f < kept; ++f) {
    const std::array<std::int64_t, 3> p = place(f);
    for (unsigned c = 0; c < d; ++c) body.coordinates[std::size_t(f) * d + c] = double(p[c]);
  }
  return body;
}

}  // namespace

ElasticBody elasticity_2d(int nx, int ny, double nu, bool clamped) {
  return elastic_body("elasticity_2d", 2, {nx, ny, 1}, nu, clamped);
}

ElasticBody elasticity_3d(int nx, int ny, int nz, double nu, bool clamped) {
  return elastic_body("elasticity_3d", 3, {nx, ny, nz}, nu, clamped);
}

}  // namespace clcg::solver
