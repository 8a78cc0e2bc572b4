#include "clcg/solver/distributed/exact_sum.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace clcg::distributed {
namespace {
constexpr int nan_slot = ExactSum::digits, plus_inf_slot = ExactSum::digits + 1, minus_inf_slot = ExactSum::digits + 2;
constexpr std::int64_t digit_base = std::int64_t(1) << 32;

// Floor division by 2^32 for negative values too (arithmetic shift).
std::int64_t carry_of(std::int64_t v) noexcept { return v >> 32; }
}  // namespace

void ExactSum::add(double value) noexcept {
  if (!std::isfinite(value)) {
    ++slots_[std::isnan(value) ? nan_slot : (value > 0 ? plus_inf_slot : minus_inf_slot)];
    return;
  }
  if (value == 0) return;
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const bool negative = bits >> 63;
  const int biased = int((bits >> 52) & 0x7ff);
  std::uint64_t mantissa = bits & ((std::uint64_t(1) << 52) - 1);
  int position;  // value = mantissa * 2^(position - 1074)
  if (biased == 0) {
    position = 0;  // subnormal: mantissa * 2^-1074
  } else {
    mantissa |= std::uint64_t(1) << 52;
    position = biased - 1;
  }
  const int digit = position / 32, shift = position % 32;
  // mantissa << shift spans up to 85 bits: three digits.
  const std::uint64_t low = mantissa << shift, high = shift ? mantissa >> (64 - shift) : 0;
  const std::int64_t sign = negative ? -1 : 1;
  slots_[digit] += sign * std::int64_t(low & 0xffffffffu);
  slots_[digit + 1] += sign * std::int64_t(low >> 32);
  slots_[digit + 2] += sign * std::int64_t(high);
}

void ExactSum::merge(const ExactSum& other) noexcept {
  for (int i = 0; i < slots; ++i) slots_[i] += other.slots_[i];
}

double ExactSum::value() const noexcept {
  const bool nan = slots_[nan_slot] > 0 || (slots_[plus_inf_slot] > 0 && slots_[minus_inf_slot] > 0);
  if (nan) return std::numeric_limits<double>::quiet_NaN();
  if (slots_[plus_inf_slot] > 0) return std::numeric_limits<double>::infinity();
  if (slots_[minus_inf_slot] > 0) return -std::numeric_limits<double>::infinity();
  // Normalise: digits 0 .. digits-2 in [0, 2^32), the sign in the top digit.
  std::array<std::int64_t, digits> d{};
  for (int i = 0; i < digits; ++i) d[i] = slots_[i];
  for (int i = 0; i + 1 < digits; ++i) {
    const std::int64_t carry = carry_of(d[i]);
    d[i] -= carry * digit_base;
    d[i + 1] += carry;
  }
  const bool negative = d[digits - 1] < 0;
  if (negative) {  // magnitude: negate and normalise again
    for (auto& v : d) v = -v;
    for (int i = 0; i + 1 < digits; ++i) {
      const std::int64_t carry = carry_of(d[i]);
      d[i] -= carry * digit_base;
      d[i + 1] += carry;
    }
  }
  int top = digits - 1;
  while (top >= 0 && d[top] == 0) --top;
  if (top < 0) return 0.0;
  // The top three digits (up to 96 bits) in long double, a sticky bit for anything below, then
  // scaled: a fixed function of the normalised digits, within an ulp or two of the exact sum.
  long double magnitude = 0;
  for (int i = top; i >= std::max(0, top - 2); --i) magnitude = magnitude * 4294967296.0L + (long double)d[i];
  bool sticky = false;
  for (int i = top - 3; i >= 0; --i) sticky = sticky || d[i] != 0;
  if (sticky) magnitude += 0.25L;  // below the lowest kept digit: breaks ties away from it
  const int lowest = std::max(0, top - 2);
  const double result = double(std::ldexp(magnitude, 32 * lowest - 1074));
  return negative ? -result : result;
}

}  // namespace clcg::distributed
