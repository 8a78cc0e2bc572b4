#include "clcg/reduction/op.hpp"

#include <array>
#include <cctype>
#include <limits>
#include <stdexcept>
#include <string>

namespace clcg::reduction {
namespace {
constexpr std::array<Op, 7> ops{Op::sum, Op::dot, Op::sumsq, Op::min, Op::max, Op::argmin, Op::argmax};
}

std::string_view op_name(Op op) noexcept {
  switch (op) {
    case Op::sum: return "sum";
    case Op::dot: return "dot";
    case Op::sumsq: return "sumsq";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::argmin: return "argmin";
    case Op::argmax: return "argmax";
  }
  return "?";
}

std::span<const Op> all_ops() noexcept { return ops; }

Op parse_op(std::string_view name) {
  std::string known;
  for (Op op : ops) {
    if (op_name(op) == name) return op;
    known += known.empty() ? "" : ", ";
    known += op_name(op);
  }
  throw std::invalid_argument("unknown reduction operation '" + std::string(name) + "' (known: " + known + ")");
}

bool is_arg_op(Op op) noexcept { return op == Op::argmin || op == Op::argmax; }
bool takes_two_inputs(Op op) noexcept { return op == Op::dot; }

std::string_view type_name(ElementType type) noexcept { return type == ElementType::f64 ? "double" : "float"; }
std::size_t element_size(ElementType type) noexcept { return type == ElementType::f64 ? 8 : 4; }

double identity(Op op) noexcept {
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case Op::min:
    case Op::argmin: return inf;
    case Op::max:
    case Op::argmax: return -inf;
    default: return 0.0;
  }
}

std::string op_build_options(Op op, ElementType type) {
  std::string macro(op_name(op));
  for (char& c : macro) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return std::string(type == ElementType::f64 ? "-D REAL=double -D REAL_IS_DOUBLE" : "-D REAL=float") + " -D OP_" +
         macro;
}

}  // namespace clcg::reduction
