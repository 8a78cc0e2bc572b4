#pragma once
// An exact accumulator for sums of doubles: every finite double is an integer multiple of
// 2^-1074, so a sum is held exactly as an integer in 32-bit digits kept in int64 slots (room
// for 2^31 additions without carrying). Sums of the same numbers in any order and grouping,
// on any number of ranks (adding the slots with MPI_SUM), give the same integer, hence the
// same double: what makes the distributed dot products independent of the rank count.
#include <array>
#include <cstdint>

namespace clcg::distributed {

class ExactSum {
 public:
  static constexpr int digits = 68;                // 2^(32*68) > 2^2098: every double, plus carries
  static constexpr int slots = digits + 3;          // + counts of NaN, +Inf, -Inf
  using Slots = std::array<std::int64_t, slots>;

  void add(double value) noexcept;
  void merge(const ExactSum& other) noexcept;
  // The sum rounded to a double (NaN if any term was NaN or +Inf and -Inf met, else +-Inf if
  // any term was infinite). Deterministic: a function of the exact sum only.
  double value() const noexcept;

  Slots& raw() noexcept { return slots_; }  // to add across ranks element by element (MPI_SUM)
  const Slots& raw() const noexcept { return slots_; }

 private:
  Slots slots_{};
};

}  // namespace clcg::distributed
