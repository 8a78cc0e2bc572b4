#include "clcg/solver/distributed/fixed_order_sum.hpp"

namespace clcg::distributed {

double fixed_order_sum(std::span<const double> values) noexcept {
  if (values.size() <= 8) {
    double sum = 0;
    for (double v : values) sum += v;
    return sum;
  }
  const std::size_t half = values.size() / 2;
  return fixed_order_sum(values.first(half)) + fixed_order_sum(values.subspan(half));
}

}  // namespace clcg::distributed
