#include "clcg/reduction/reduce.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "clcg/cl/error.hpp"
#include "clcg/cl/launch_policy.hpp"

namespace clcg::reduction {
namespace {

constexpr std::uint64_t no_index = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t default_work_group = 256;
// Grid-stride layouts launch this many groups per compute unit: enough to fill the device,
// few enough that reading the partials back stays cheap (a few KB).
// 4 groups of 256 per compute unit fill the H100 for a streaming reduction (10^8 doubles: the
// same GB/s as 8 or 16), and fewer groups mean fewer partials to read back and finish.
constexpr std::size_t groups_per_compute_unit = 4;
constexpr std::size_t elements_per_work_item = 64;

std::size_t floor_power_of_two(std::size_t value) { return value == 0 ? 0 : std::bit_floor(value); }

// Bytes of one local-memory slot: REAL, or the (REAL value, ulong index) struct.
std::size_t accumulator_size(Op op, ElementType type) { return is_arg_op(op) ? 16 : element_size(type); }

void require_fp64(const cl::Env& env, ElementType type, const std::string& task) {
  if (type == ElementType::f64 && !env.info().fp64)
    throw cl::DeviceCapabilityError(task, "device " + env.info().name +
                                              " has no double precision (cl_khr_fp64); use float (--precision float)");
}

std::size_t fixed_work_group(const cl::Env& env, const Options& options) {
  return options.work_group_size ? options.work_group_size
                                 : floor_power_of_two(std::min(default_work_group, env.info().max_work_group_size));
}

double neumaier_sum(std::span<const double> values) {
  double sum = 0, compensation = 0;
  for (double v : values) {
    const double t = sum + v;
    compensation += std::abs(sum) >= std::abs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  return std::isfinite(sum) ? sum + compensation : sum;  // inf/NaN: the compensation is meaningless
}

// Copies raw float/double partials into doubles.
std::vector<double> widen(const std::vector<unsigned char>& raw, ElementType type, std::size_t count) {
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (type == ElementType::f64) {
      std::memcpy(&values[i], raw.data() + 8 * i, 8);
    } else {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      values[i] = f;
    }
  }
  return values;
}

}  // namespace

void finish_partial_runs(Op op, const unsigned char* raw, ElementType type, std::size_t groups,
                         std::span<double> results, std::vector<double>& widened) {
  const double* values = reinterpret_cast<const double*>(raw);  // pinned or vector memory: aligned
  if (type == ElementType::f32) {
    widened.resize(results.size() * groups);
    for (std::size_t i = 0; i < widened.size(); ++i) {
      float f;
      std::memcpy(&f, raw + i * sizeof(float), sizeof f);
      widened[i] = f;
    }
    values = widened.data();
  }
  for (std::size_t k = 0; k < results.size(); ++k)
    results[k] = finish_partials(op, {values + k * groups, groups}, {}).value;
}

LaunchShape choose_launch_shape(const cl::DeviceInfo& device, const VariantInfo& variant, std::size_t n,
                                const Options& options, std::size_t kernel_max) {
  const std::size_t limit = std::min(device.max_work_group_size, kernel_max);
  LaunchShape shape;
  const bool blocked = variant.layout == Layout::contiguous_block;  // CPU-shaped: groups of one
  shape.work_group_size = options.work_group_size ? options.work_group_size
                          : blocked               ? 1
                                                  : floor_power_of_two(std::min(default_work_group, limit));
  const std::size_t wg = shape.work_group_size;
  if (wg > limit)
    throw std::invalid_argument("work-group size " + std::to_string(wg) + " exceeds the limit " +
                                std::to_string(limit) + " of reduction variant '" + std::string(variant.name) +
                                "' on " + device.name);
  if (variant.needs_power_of_two && !std::has_single_bit(wg))
    throw std::invalid_argument("work-group size " + std::to_string(wg) + " is not a power of two, which variant '" +
                                std::string(variant.name) + "' needs");
  if (n == 0) return shape;
  const std::size_t covering = (n - 1) / wg + 1;  // groups with one element per work-item
  if (variant.layout == Layout::element_per_work_item) {
    shape.groups = covering;
  } else if (blocked) {
    shape.groups = options.groups ? options.groups : std::min(covering, cl::cpu_blocks(device, n));
  } else {
    // Enough groups to fill the device, but no more than keep >= elements_per_work_item
    // elements per work-item: past that, more partials only lengthen the read-back.
    const std::size_t fill = groups_per_compute_unit * device.compute_units;
    const std::size_t busy = (n - 1) / (wg * elements_per_work_item) + 1;
    const std::size_t chosen = std::min({covering, fill, std::max<std::size_t>(busy, device.compute_units)});
    shape.groups = options.groups ? options.groups : chosen;
  }
  return shape;
}

Result finish_partials(Op op, std::span<const double> values, std::span<const std::uint64_t> indices) {
  Result result{identity(op), 0};
  switch (op) {
    case Op::sum:
    case Op::dot:
    case Op::sumsq:
      result.value = neumaier_sum(values);
      break;
    case Op::min:
    case Op::max:
      for (double v : values) {
        if (std::isnan(result.value)) break;
        if (std::isnan(v) || (op == Op::min ? v < result.value : v > result.value)) result.value = v;
      }
      break;
    case Op::argmin:
    case Op::argmax: {
      result.index = no_index;
      for (std::size_t g = 0; g < values.size(); ++g) {
        if (indices[g] == no_index) continue;  // a group that saw no element
        const double v = values[g];
        const bool better =
            result.index == no_index ||
            (std::isnan(v) ? (!std::isnan(result.value) || indices[g] < result.index)
                           : (!std::isnan(result.value) &&
                              ((op == Op::argmin ? v < result.value : v > result.value) ||
                               (v == result.value && indices[g] < result.index))));
        if (better) result = Result{v, indices[g]};
      }
      break;
    }
  }
  return result;
}

PendingResult::~PendingResult() {
  if (event_()) clWaitForEvents(1, &event_());  // no throwing from a destructor
}

PendingResult& PendingResult::operator=(PendingResult&& other) noexcept {
  if (this != &other) {
    if (event_()) clWaitForEvents(1, &event_());
    op_ = other.op_;
    type_ = other.type_;
    atomic_ = other.atomic_;
    count_ = other.count_;
    event_ = std::move(other.event_);
    queue_ = std::move(other.queue_);
    x_ = std::move(other.x_);
    x_offset_ = other.x_offset_;
    values_ = std::move(other.values_);
    indices_ = std::move(other.indices_);
  }
  return *this;
}

Result PendingResult::wait() {
  if (count_ == 0) return Result{identity(op_), 0};  // nothing was launched (n = 0)
  if (event_()) {
    event_.wait();
    event_ = ::cl::Event();
  }
  const std::vector<double> values = widen(*values_, type_, count_);
  if (is_arg_op(op_) && atomic_) {
    // The device left only the winning index; fetch the one element it points at.
    const std::uint64_t index = (*indices_)[0] & 0xFFFFFFFFu;
    Result result{0, index};
    std::vector<unsigned char> element(element_size(type_));
    queue_.enqueueReadBuffer(x_, CL_TRUE, (x_offset_ + index) * element.size(), element.size(), element.data());
    result.value = widen(element, type_, 1)[0];
    return result;
  }
  return finish_partials(op_, values, is_arg_op(op_) ? std::span<const std::uint64_t>(*indices_)
                                                     : std::span<const std::uint64_t>());
}

Reducer::Reducer(const cl::Env& env, Op op, ElementType type, Options options)
    : env_(env),
      op_(op),
      type_(type),
      options_(options),
      variant_(options.variant.empty() ? &default_variant(env.info()) : &find_variant(options.variant)) {
  const std::string task = "reduction " + std::string(op_name(op)) + " (" + std::string(variant_->name) + ", " +
                           std::string(type_name(type)) + ")";
  require_fp64(env, type, task);
  if (variant_->finish == Finish::device && type == ElementType::f64 && !is_arg_op(op) && !env.info().int64_atomics)
    throw cl::DeviceCapabilityError(task, "device " + env.info().name +
                                              " has no 64-bit atomics (cl_khr_int64_base_atomics)");
  std::string build_options = op_build_options(op, type);
  if (variant_->fixed_size_tree) {
    options_.work_group_size = fixed_work_group(env, options);
    if (!std::has_single_bit(options_.work_group_size) || options_.work_group_size > 4096)
      throw std::invalid_argument("work-group size " + std::to_string(options_.work_group_size) +
                                  " must be a power of two up to 4096 for variant '" + std::string(variant_->name) +
                                  "'");
    build_options += " -D WG_SIZE=" + std::to_string(options_.work_group_size);
  }
  kernel_ = cl::CachedKernel(env.kernel(variant_->source, "reduce_partials", build_options));
  kernel_max_work_group_ = cl::checked(task, [&] {
    return kernel_.kernel().getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device());
  });
  choose_launch_shape(env.info(), *variant_, 0, options_, kernel_max_work_group_);  // rejects a bad size now
}

LaunchShape Reducer::shape(std::size_t n) const {
  return choose_launch_shape(env_.info(), *variant_, n, options_, kernel_max_work_group_);
}

void Reducer::check_buffer(const ::cl::Buffer& buffer, std::size_t offset, std::size_t n, const char* which) const {
  const std::size_t bytes = buffer.getInfo<CL_MEM_SIZE>();
  const std::size_t available = bytes / element_size(type_);
  if (offset > available || n > available - offset)
    throw std::invalid_argument(std::string("reduction input ") + which + " holds " + std::to_string(available) + " " +
                                std::string(type_name(type_)) + " elements, but offset " + std::to_string(offset) +
                                " + count " + std::to_string(n) + " reaches past its end");
}

void Reducer::ensure_partials(std::size_t groups) {
  if (groups <= partial_capacity_) return;
  const std::string task = "allocating reduction partials";
  partial_values_ = cl::checked(task, [&] {
    return ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, groups * element_size(type_));
  });
  partial_indices_ = cl::checked(task, [&] {
    return ::cl::Buffer(env_.context(), CL_MEM_READ_WRITE, groups * sizeof(std::uint64_t));
  });
  pinned_ = cl::PinnedBuffer(env_, groups * element_size(type_));  // run()'s reads land here
  partial_capacity_ = groups;
}

std::size_t Reducer::launch(const ::cl::CommandQueue& queue, const ::cl::Buffer& x, std::size_t x_offset,
                            const ::cl::Buffer* y, std::size_t y_offset, std::size_t n,
                            const std::vector<::cl::Event>* wait_for) {
  if (takes_two_inputs(op_) && y == nullptr) throw std::invalid_argument("reduction dot needs a second input");
  if (is_arg_op(op_) && n == 0)
    throw std::invalid_argument(std::string(op_name(op_)) + " of an empty range is undefined");
  const bool atomic = variant_->finish == Finish::device;
  if (is_arg_op(op_) && atomic && n >= 0xFFFFFFFFu)
    throw std::invalid_argument("variant 'atomic' holds arg indices in 32 bits: n must be below 2^32 - 1");
  check_buffer(x, x_offset, n, "x");
  if (y) check_buffer(*y, y_offset, n, "y");
  const LaunchShape launch = shape(n);
  if (launch.groups == 0) return 0;  // n = 0: the identity, nothing to launch
  const std::size_t count = atomic ? 1 : launch.groups;
  ensure_partials(count);
  const auto task = [&] {
    return "reduction " + std::string(op_name(op_)) + " (" + std::string(variant_->name) + ") n=" +
           std::to_string(n) + " wg=" + std::to_string(launch.work_group_size) + " groups=" +
           std::to_string(launch.groups) + " on " + env_.info().name;
  };
  cl::checked(task, [&] {
    // The queue is in order: the kernel follows whatever the caller enqueued, and the reads
    // follow the kernel, so no events are needed except the caller's and the last read's.
    const std::vector<::cl::Event>* waits = wait_for && !wait_for->empty() ? wait_for : nullptr;
    if (atomic) {
      // The result slot starts as the identity ("no index yet" for arg operations).
      if (is_arg_op(op_)) {
        queue.enqueueFillBuffer(partial_indices_, static_cast<cl_uchar>(0xFF), 0, sizeof(std::uint64_t), waits);
      } else if (type_ == ElementType::f64) {
        queue.enqueueFillBuffer(partial_values_, identity(op_), 0, sizeof(double), waits);
      } else {
        queue.enqueueFillBuffer(partial_values_, static_cast<float>(identity(op_)), 0, sizeof(float), waits);
      }
      waits = nullptr;
    }
    kernel_.set(0, x);
    kernel_.set(1, static_cast<cl_ulong>(x_offset));
    kernel_.set(2, y ? *y : x);
    kernel_.set(3, static_cast<cl_ulong>(y ? y_offset : x_offset));
    kernel_.set(4, static_cast<cl_ulong>(n));
    kernel_.set(5, partial_values_);
    kernel_.set(6, partial_indices_);
    kernel_.set(7, ::cl::Local(launch.work_group_size * accumulator_size(op_, type_)));
    queue.enqueueNDRangeKernel(kernel_.kernel(), ::cl::NullRange, ::cl::NDRange(launch.groups * launch.work_group_size),
                               ::cl::NDRange(launch.work_group_size), waits);
  });
  return count;
}

PendingResult Reducer::enqueue(const ::cl::CommandQueue& queue, const ::cl::Buffer& x, std::size_t x_offset,
                               const ::cl::Buffer* y, std::size_t y_offset, std::size_t n,
                               const std::vector<::cl::Event>* wait_for) {
  PendingResult pending;
  pending.op_ = op_;
  pending.type_ = type_;
  pending.atomic_ = variant_->finish == Finish::device;
  const std::size_t count = launch(queue, x, x_offset, y, y_offset, n, wait_for);
  if (count == 0) return pending;
  pending.count_ = count;
  pending.values_ = std::make_shared<std::vector<unsigned char>>(count * element_size(type_));
  pending.indices_ = std::make_shared<std::vector<std::uint64_t>>(count);
  pending.queue_ = queue;
  pending.x_ = x;
  pending.x_offset_ = x_offset;
  // Non-blocking reads into the result's own memory, finished by wait() on the event.
  cl::checked("reading reduction partials", [&] {
    if (is_arg_op(op_)) {
      if (!pending.atomic_)
        queue.enqueueReadBuffer(partial_values_, CL_FALSE, 0, pending.values_->size(), pending.values_->data());
      queue.enqueueReadBuffer(partial_indices_, CL_FALSE, 0, count * sizeof(std::uint64_t), pending.indices_->data(),
                              nullptr, &pending.event_);
    } else {
      queue.enqueueReadBuffer(partial_values_, CL_FALSE, 0, pending.values_->size(), pending.values_->data(), nullptr,
                              &pending.event_);
    }
  });
  return pending;
}

Result Reducer::run_blocking(const ::cl::Buffer& x, std::size_t x_offset, const ::cl::Buffer* y, std::size_t y_offset,
                             std::size_t n) {
  // Arg operations and the device-finished variant go the general way.
  if (is_arg_op(op_) || variant_->finish == Finish::device)
    return enqueue(env_.queue(), x, x_offset, y, y_offset, n).wait();
  const ::cl::CommandQueue& queue = env_.queue();
  const std::size_t count = launch(queue, x, x_offset, y, y_offset, n, nullptr);
  if (count == 0) return Result{identity(op_), 0};
  // One round trip into pinned memory (no staging copy), finished from there with no
  // allocation: non-blocking read + finish(), on the H100 1-2 us sooner than a blocking read.
  cl::checked("reading reduction partials", [&] {
    queue.enqueueReadBuffer(partial_values_, CL_FALSE, 0, count * element_size(type_), pinned_.data());
    queue.finish();
  });
  double value = 0;
  finish_partial_runs(op_, pinned_.data(), type_, count, {&value, 1}, widened_);
  return Result{value, 0};
}

Result Reducer::run(const ::cl::Buffer& x, std::size_t x_offset, std::size_t n) {
  return run_blocking(x, x_offset, nullptr, 0, n);
}

Result Reducer::run(const ::cl::Buffer& x, std::size_t x_offset, const ::cl::Buffer& y, std::size_t y_offset,
                    std::size_t n) {
  return run_blocking(x, x_offset, &y, y_offset, n);
}

Result reduce(const cl::Env& env, Op op, ElementType type, const ::cl::Buffer& x, std::size_t offset, std::size_t n,
              Options options) {
  return Reducer(env, op, type, options).run(x, offset, n);
}

double dot(const cl::Env& env, ElementType type, const ::cl::Buffer& x, std::size_t x_offset, const ::cl::Buffer& y,
           std::size_t y_offset, std::size_t n, Options options) {
  return Reducer(env, Op::dot, type, options).run(x, x_offset, y, y_offset, n).value;
}

}  // namespace clcg::reduction
