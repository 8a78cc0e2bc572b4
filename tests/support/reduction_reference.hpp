#pragma once
// Host references for reduction tests: random data on the device and the long double answer
// with an error bound derived from the summation order of the variant.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "clcg/reduction/reduce.hpp"

namespace clcg::test {

// Mixed signs and magnitudes over six decades: x = ±u · 10^e, u in [0.5, 1), e in [-3, 3].
// Uses its own mapping from mt19937_64 so every standard library gives the same numbers.
inline std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> values(n);
  for (double& v : values) {
    const std::uint64_t bits = engine();
    const double unit = 0.5 + 0.5 * static_cast<double>(bits >> 11) * 0x1.0p-53;
    const int exponent = static_cast<int>((bits >> 3) % 7) - 3;
    v = ((bits & 1) ? -unit : unit) * std::pow(10.0, exponent);
  }
  return values;
}

// x and y on the host (already rounded to the element type) and on the device.
struct DeviceData {
  DeviceData(const cl::Env& env, reduction::ElementType type, std::size_t n, std::uint64_t seed)
      : type(type), x_host(random_values(n, seed)), y_host(random_values(n, seed + 1)) {
    x = upload(env, x_host);
    y = upload(env, y_host);
  }
  ::cl::Buffer upload(const cl::Env& env, std::vector<double>& host) const {
    if (type == reduction::ElementType::f64)
      return ::cl::Buffer(env.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.size() * 8, host.data());
    std::vector<float> narrow(host.begin(), host.end());
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = narrow[i];  // the reference sees what the device sees
    return ::cl::Buffer(env.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, narrow.size() * 4, narrow.data());
  }
  reduction::ElementType type;
  std::vector<double> x_host, y_host;
  ::cl::Buffer x, y;
};

struct Reference {
  long double value = 0;
  long double magnitude = 0;  // Σ|term|, scales the rounding bound
  std::uint64_t index = 0;
};

inline Reference reference(reduction::Op op, const std::vector<double>& x, const std::vector<double>& y,
                           std::size_t x_offset, std::size_t y_offset, std::size_t n) {
  using reduction::Op;
  Reference r;
  r.value = static_cast<long double>(reduction::identity(op));
  for (std::size_t i = 0; i < n; ++i) {
    const long double a = x[x_offset + i];
    switch (op) {
      case Op::sum: r.value += a; r.magnitude += std::fabs(a); break;
      case Op::dot: {
        const long double t = a * static_cast<long double>(y[y_offset + i]);
        r.value += t;
        r.magnitude += std::fabs(t);
        break;
      }
      case Op::sumsq: r.value += a * a; r.magnitude += a * a; break;
      case Op::min: if (std::isnan(a) || a < r.value) { if (!std::isnan(r.value)) r.value = a; } break;
      case Op::max: if (std::isnan(a) || a > r.value) { if (!std::isnan(r.value)) r.value = a; } break;
      case Op::argmin:
      case Op::argmax: {
        const bool better = i == 0 || (std::isnan(a) ? !std::isnan(r.value)
                                                     : (!std::isnan(r.value) && (op == Op::argmin ? a < r.value : a > r.value)));
        if (better) { r.value = a; r.index = i; }
        break;
      }
    }
  }
  return r;
}

// Longest chain of roundings any term goes through: its strided slice in one work-item, the
// tree (or work-item 0's loop for `serial`), the product for dot/sumsq, and the host's
// compensated finish (about one more rounding).
inline double rounding_chain(const reduction::VariantInfo& variant, const reduction::LaunchShape& shape, std::size_t n,
                             reduction::Op op) {
  const std::size_t threads = std::max<std::size_t>(1, shape.groups * shape.work_group_size);
  const double per_item = std::ceil(static_cast<double>(n) / threads);
  const double tree = variant.name == "serial" ? shape.work_group_size : std::ceil(std::log2(shape.work_group_size)) + 1;
  const double product = (op == reduction::Op::dot || op == reduction::Op::sumsq) ? 1 : 0;
  return per_item + tree + product + 2;
}

// Asserts |result - exact| <= γ_k · Σ|terms| (γ_k = k·u / (1 - k·u), Higham's bound for
// recursive summation with k roundings per term) for sums, and exact equality otherwise.
inline void expect_matches_reference(reduction::Op op, reduction::ElementType type, const DeviceData& data,
                                     std::size_t x_offset, std::size_t y_offset, std::size_t n,
                                     const reduction::LaunchShape& shape, const reduction::VariantInfo& variant,
                                     const reduction::Result& result) {
  using reduction::Op;
  const Reference r = reference(op, data.x_host, data.y_host, x_offset, y_offset, n);
  if (op == Op::sum || op == Op::dot || op == Op::sumsq) {
    const double u = type == reduction::ElementType::f64 ? 0x1.0p-53 : 0x1.0p-24;
    const double k = rounding_chain(variant, shape, n, op);
    const double bound = (k * u / (1 - k * u)) * static_cast<double>(r.magnitude);
    EXPECT_LE(std::fabs(static_cast<long double>(result.value) - r.value), bound)
        << "got " << result.value << " expected " << static_cast<double>(r.value) << " bound " << bound;
  } else if (reduction::is_arg_op(op)) {
    EXPECT_EQ(result.index, r.index);
    EXPECT_EQ(result.value, static_cast<double>(r.value));
  } else {
    EXPECT_EQ(result.value, static_cast<double>(r.value));
  }
}

}  // namespace clcg::test
