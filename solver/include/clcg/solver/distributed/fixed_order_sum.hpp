#pragma once
// The sum of an array by a pairwise tree whose shape depends only on the array's length: the
// same array gives the same bits wherever it is summed. The distributed CG gathers the dot
// products' chunk partials (one per global chunk, the same values for any partition) onto
// every rank and sums them with this, so every rank, on any number of ranks, gets the same dot.
#include <span>

namespace clcg::distributed {

// Pairwise (halving) summation; blocks of up to 8 terms are added left to right. Its rounding
// error grows with log2 of the length, not with the length.
double fixed_order_sum(std::span<const double> values) noexcept;

}  // namespace clcg::distributed
