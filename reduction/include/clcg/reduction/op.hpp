#pragma once
// What a reduction computes and over which element type.
#include <cstddef>
#include <span>
#include <string_view>

namespace clcg::reduction {

// sum: Σx; dot: Σx·y; sumsq: Σx² (norm2 = sqrt); min/max: NaN propagates (any NaN -> NaN);
// argmin/argmax: the index of the extreme value, ties -> lowest index, and if any element is
// NaN the lowest index holding a NaN (numpy's rule). n = 0 gives the identity (0, +inf,
// -inf); argmin/argmax of n = 0 is an error.
enum class Op { sum, dot, sumsq, min, max, argmin, argmax };
enum class ElementType { f32, f64 };

std::string_view op_name(Op op) noexcept;
std::span<const Op> all_ops() noexcept;
Op parse_op(std::string_view name);  // std::invalid_argument listing the names
bool is_arg_op(Op op) noexcept;
bool takes_two_inputs(Op op) noexcept;  // dot

std::string_view type_name(ElementType type) noexcept;  // "float" / "double"
std::size_t element_size(ElementType type) noexcept;
double identity(Op op) noexcept;

// The -D options that specialise a reduction kernel for `op` over `type`.
std::string op_build_options(Op op, ElementType type);

}  // namespace clcg::reduction
