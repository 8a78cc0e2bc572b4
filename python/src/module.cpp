// clcg._clcg: the C++ half of the Python package. It takes arrays already checked and
// converted by clcg/__init__.py (CSR with int32 indices and double values, contiguous vectors
// of the solve's dtype) and offers the device list, a solver set up once per matrix, and the
// reduction. The GIL is released while the device works; Ctrl-C is checked once per CG step.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clcg/cl/device.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/io/host_threads.hpp"
#include "clcg/solver/krylov/host_matrix_solver.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/multigrid/near_nullspace.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
#include "clcg/solver/sparse/symmetry.hpp"
#include "clcg/solver/version.hpp"

namespace py = pybind11;

namespace {

using clcg::solver::ElementType;
template <class T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// One Env per (device, platform) selection for the life of the process, so that programs are
// built once per device and every solver and reduction shares the context.
const clcg::cl::Env& env_for(const std::string& device, const std::string& platform) {
  static std::map<std::pair<std::string, std::string>, clcg::cl::Env> envs;
  const auto key = std::make_pair(device, platform);
  auto found = envs.find(key);
  if (found == envs.end()) {
    const clcg::cl::DeviceSelector selector = device.empty() && platform.empty()
                                                  ? clcg::cl::DeviceSelector::from_environment()
                                                  : clcg::cl::DeviceSelector::parse(device.empty() ? "auto" : device, platform);
    found = envs.emplace(key, clcg::cl::Env::create(selector)).first;
  }
  return found->second;
}

ElementType parse_precision(const std::string& name) {
  if (name == "double") return ElementType::f64;
  if (name == "float") return ElementType::f32;
  throw std::invalid_argument("precision must be 'double' or 'float', got '" + name + "'");
}

py::dict device_dict(const clcg::cl::DeviceInfo& info, std::size_t index) {
  py::dict d;
  d["index"] = index;
  d["name"] = info.name;
  d["platform"] = info.platform_name;
  d["type"] = info.type_name();
  d["fp64"] = info.fp64;
  d["global_memory_bytes"] = info.global_memory_bytes;
  d["max_allocation_bytes"] = info.max_allocation_bytes;
  d["compute_units"] = info.compute_units;
  d["version"] = info.version;
  return d;
}

py::list devices() {
  py::list out;
  for (const clcg::cl::DeviceEntry& entry : clcg::cl::list_devices()) out.append(device_dict(entry.info, entry.index));
  return out;
}

// An Env on the caller's own in-order queue (a pyopencl CommandQueue's handle). Envs on one
// context and device share their program cache, so kernels are built once per context.
clcg::cl::Env env_for_queue(std::uintptr_t queue_handle) {
  static std::map<std::pair<cl_context, cl_device_id>, clcg::cl::Env> envs;
  return clcg::cl::checked("using the caller's OpenCL queue", [&] {
    ::cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_handle), /*retainObject=*/true);
    if (queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
      throw std::invalid_argument("the queue is out-of-order; clcg needs an in-order queue");
    const ::cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
    const ::cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
    const auto key = std::make_pair(context(), device());
    auto found = envs.find(key);
    if (found == envs.end()) found = envs.emplace(key, clcg::cl::Env(context, device, queue)).first;
    return found->second.with_queue(queue);
  });
}

clcg::cl::Env env_for(const std::string& device, const std::string& platform, std::uintptr_t queue_handle) {
  return queue_handle ? env_for_queue(queue_handle) : env_for(device, platform);
}

// A buffer the caller owns (a pyopencl Buffer's handle), retained while we use it.
::cl::Buffer caller_buffer(std::uintptr_t handle) { return ::cl::Buffer(reinterpret_cast<cl_mem>(handle), true); }

// A CG solver for one matrix on one device (clcg::solver::HostMatrixSolver).
// The index of the first NaN or Inf in `values`, or -1: on every host core (CLCG_THREADS), with
// the GIL released; the check every matrix from Python passes before it is uploaded.
std::int64_t first_non_finite(const Array<double>& values) {
  const double* v = values.data();
  const std::size_t n = std::size_t(values.size());
  const unsigned threads = clcg::solver::threads_for(n, std::size_t(1) << 20);
  std::vector<std::int64_t> first(threads, -1);
  py::gil_scoped_release unlocked;
  clcg::solver::parallel_ranges(n, threads, [&](std::size_t begin, std::size_t end, unsigned t) {
    for (std::size_t k = begin; k < end; ++k)
      if (!std::isfinite(v[k])) {
        first[t] = std::int64_t(k);
        return;
      }
  });
  for (std::int64_t k : first)
    if (k >= 0) return k;  // ranges are in order: the first range's find is the first
  return -1;
}

// AMG's near-null space from Python (clcg/__init__.py checked the shapes): vectors B (n x k), or
// coordinates X (nodes x d) for the rigid body modes, each 2-D and empty when not given; and
// the block size (0: X's d, else 1). std::invalid_argument (ValueError) where they cannot be.
void set_near_nullspace(clcg::solver::AmgOptions& amg, std::size_t n, const Array<double>& b, const Array<double>& x,
                        unsigned block_size) {
  if (b.size() > 0) {
    clcg::solver::NearNullspace space{std::size_t(b.shape(0)), std::size_t(b.shape(1)),
                                      std::vector<double>(b.data(), b.data() + b.size())};
    clcg::solver::check_near_nullspace(space, n);
    amg.near_nullspace = std::make_shared<const clcg::solver::NearNullspace>(std::move(space));
  }
  if (x.size() > 0) {
    const unsigned d = unsigned(x.shape(1));
    amg.near_nullspace = std::make_shared<const clcg::solver::NearNullspace>(
        clcg::solver::rigid_body_modes({x.data(), std::size_t(x.size())}, d));
    amg.block_size = d;
  }
  if (block_size > 0) amg.block_size = block_size;
  clcg::solver::check_block_options(amg, n);
}

class Solver {
 public:
  Solver(const Array<std::int32_t>& indptr, const Array<std::int32_t>& indices, const Array<double>& data,
         std::int32_t n, const std::string& precond, const std::string& variant, const std::string& precision,
         const std::string& precond_precision, const std::string& device, const std::string& platform,
         std::uintptr_t queue, const Array<double>& near_nullspace, const Array<double>& coordinates,
         unsigned block_size)
      : env_(env_for(device, platform, queue)), indptr_(indptr), indices_(indices), data_(data) {
    // A is read in place from the arrays (kept alive as members): no host copy.
    const clcg::solver::CsrView a(n, n, {indptr_.data(), std::size_t(indptr_.size())},
                                  {indices_.data(), std::size_t(indices_.size())}, {data_.data(), std::size_t(data_.size())});
    clcg::solver::Settings settings;
    settings.preconditioner = clcg::solver::parse_preconditioner(precond);
    settings.variant = clcg::solver::parse_cg_variant(variant);
    if (precond_precision != "auto") settings.precond_options.precision = parse_precision(precond_precision);
    set_near_nullspace(settings.precond_options.amg, std::size_t(n), near_nullspace, coordinates, block_size);
    settings.stagnation_window = 0;  // SciPy's rule: run to the tolerance or the limit
    settings.divergence_factor = 0;
    settings.confirm_true_residual = false;
    const ElementType type = parse_precision(precision);
    py::gil_scoped_release unlocked;
    solver_ = std::make_unique<clcg::solver::HostMatrixSolver>(env_, a, type, settings);
  }

  // b (and x0) contiguous host arrays of the solver's dtype; returns x in host memory.
  py::dict solve(const py::array& b, const std::optional<py::array>& x0, double tolerance, std::int64_t max_iterations,
                 const py::object& callback) {
    py::array x = host_vector();
    if (x0) std::memcpy(x.mutable_data(), x0->data(), solver_->rows() * x.itemsize());
    py::dict out = run(tolerance, max_iterations, callback, solver_->device_x(),
                       [&] { return solver_->solve(b.data(), x.mutable_data(), x0.has_value()); });
    out["x"] = x;
    return out;
  }

  // b and x: the caller's device buffers (handles) on this solver's context, x the guess when
  // use_guess; x is solved in place and nothing crosses to the host.
  py::dict solve_on_device(std::uintptr_t b, std::uintptr_t x, bool use_guess, double tolerance,
                           std::int64_t max_iterations, const py::object& callback) {
    const ::cl::Buffer b_buffer = caller_buffer(b), x_buffer = caller_buffer(x);
    return run(tolerance, max_iterations, callback, x_buffer,
               [&] { return solver_->solve(b_buffer, x_buffer, use_guess); });
  }

  // New values on the set-up's pattern (HostMatrixSolver::update_values checks it); the arrays
  // are read in place from now on, so they are kept alive in place of the old ones.
  void update_values(const Array<std::int32_t>& indptr, const Array<std::int32_t>& indices, const Array<double>& data) {
    const clcg::solver::CsrView& now = solver_->host();
    const clcg::solver::CsrView a(now.rows, now.cols, {indptr.data(), std::size_t(indptr.size())},
                                  {indices.data(), std::size_t(indices.size())}, {data.data(), std::size_t(data.size())});
    {
      py::gil_scoped_release unlocked;
      solver_->update_values(a);
    }
    indptr_ = indptr;
    indices_ = indices;
    data_ = data;
  }

  double setup_seconds() const { return solver_->setup_seconds(); }
  double update_seconds() const { return solver_->update_seconds(); }
  double upload_seconds() const { return solver_->upload_seconds(); }
  // io's symmetry check on the uploaded matrix (a double solver only): (largest |a_ij - a_ji|,
  // largest |a_ij|, row, col of the mismatch). A direct plan never uploads A (it is small: at
  // most krylov/plan.hpp's analyse_up_to_nnz nonzeros), so there io's own check runs on a copy.
  py::tuple symmetry() const {
    clcg::solver::SymmetryReport report;
    {
      py::gil_scoped_release unlocked;
      const clcg::solver::CsrView& a = solver_->host();
      if (solver_->plan().method == clcg::solver::Method::direct)
        report = clcg::solver::check_symmetry(clcg::solver::HostMatrix(Eigen::Map<const clcg::solver::HostMatrix>(
            a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), a.values.data())));
      else
        report = clcg::solver::device_symmetry(env_, solver_->device_matrix(), a);
    }
    return py::make_tuple(report.max_abs_mismatch, report.max_abs_entry, report.row, report.col);
  }
  std::string preconditioner() const { return std::string(clcg::solver::preconditioner_name(solver_->resolved().preconditioner)); }
  std::string preconditioner_precision() const {
    const auto* report = solver_->preconditioner_report();
    return report ? report->precision : std::string();
  }
  std::string variant() const { return std::string(clcg::solver::cg_variant_name(solver_->resolved().variant)); }
  std::string device() const { return env_.info().name; }
  std::uintptr_t context_handle() const { return reinterpret_cast<std::uintptr_t>(env_.context()()); }
  std::optional<std::string> setup_failure() const { return solver_->setup_failure(); }

 private:
  py::array host_vector() const {
    const auto n = static_cast<py::ssize_t>(solver_->rows());
    return solver_->type() == ElementType::f32 ? py::array(Array<float>(n)) : py::array(Array<double>(n));
  }

  // x as it is on the device now, copied to a new host array (for the callback).
  py::array read_x(const ::cl::Buffer& x) const {
    py::array xk = host_vector();
    clcg::cl::checked("reading x_k for the callback", [&] {
      if (xk.size()) env_.queue().enqueueReadBuffer(x, CL_TRUE, 0, xk.nbytes(), xk.mutable_data());
    });
    return xk;
  }

  // Runs `solve` (which returns SolveInfo) with the GIL released, Ctrl-C checked each step and
  // callback(xk) after each step, xk read from `x` on the device.
  template <class Solve>
  py::dict run(double tolerance, std::int64_t max_iterations, const py::object& callback, const ::cl::Buffer& x,
               Solve&& solve) {
    clcg::solver::Settings& settings = solver_->settings();
    settings.tolerance = tolerance;
    settings.max_iterations = max_iterations;
    settings.record_history = true;
    std::optional<py::error_already_set> raised;  // Ctrl-C or the callback's exception
    std::size_t reported = 0;                       // steps the callback has seen
    const auto call_back = [&] {
      try {
        callback(read_x(x));
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
      }
    };
    settings.should_stop = [&raised] {
      py::gil_scoped_acquire locked;
      if (!raised && PyErr_CheckSignals() != 0) raised.emplace();
      return raised.has_value();
    };
    settings.on_iteration = nullptr;
    if (!callback.is_none()) {
      settings.on_iteration = [&](std::size_t k, double) {
        py::gil_scoped_acquire locked;
        if (raised) return;
        reported = k;
        call_back();
      };
    }
    clcg::solver::SolveInfo info;
    double host_seconds = 0;  // what a C++ caller of HostMatrixSolver waits for
    {
      py::gil_scoped_release unlocked;
      const auto start = std::chrono::steady_clock::now();
      info = solve();
      host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    settings.should_stop = nullptr;
    settings.on_iteration = nullptr;
    // The loop's last step (converged, or at the limit) ends before on_iteration: SciPy calls
    // back after every step, the last one included.
    if (!raised && !callback.is_none() && info.iterations > reported) call_back();
    if (raised) throw std::move(*raised);
    py::array_t<double> history(static_cast<py::ssize_t>(info.history.size()));
    for (std::size_t i = 0; i < info.history.size(); ++i) history.mutable_at(i) = info.history[i].residual;
    py::dict out;
    out["status"] = std::string(clcg::solver::status_name(info.status));
    out["iterations"] = info.iterations;
    out["true_residual"] = info.true_residual;
    out["recursive_residual"] = info.recursive_residual;
    out["message"] = info.message;
    out["seconds"] = info.seconds;
    out["host_seconds"] = host_seconds;
    out["history"] = history;
    return out;
  }

  clcg::cl::Env env_;
  Array<std::int32_t> indptr_, indices_;  // A's arrays, which solver_ reads in place
  Array<double> data_;
  std::unique_ptr<clcg::solver::HostMatrixSolver> solver_;
};

py::object reduction_result(clcg::reduction::Op op, const clcg::reduction::Result& result) {
  if (clcg::reduction::is_arg_op(op)) return py::int_(result.index);
  return py::float_(result.value);
}

// reduce(x, y or None, op, device, platform): x and y contiguous float32 or float64 of one dtype.
py::object reduce(const py::array& x, const std::optional<py::array>& y, const std::string& op_name,
                  const std::string& device, const std::string& platform) {
  const clcg::reduction::Op op = clcg::reduction::parse_op(op_name);
  const bool f32 = x.dtype().is(py::dtype::of<float>());
  const ElementType type = f32 ? ElementType::f32 : ElementType::f64;
  const std::size_t n = static_cast<std::size_t>(x.size()), bytes = n * x.itemsize();
  const clcg::cl::Env& env = env_for(device, platform);
  clcg::reduction::Result result;
  {
    py::gil_scoped_release unlocked;
    clcg::cl::checked("reducing", [&] {
      const ::cl::Buffer xb(env.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(bytes, 1));
      if (n) env.queue().enqueueWriteBuffer(xb, CL_TRUE, 0, bytes, x.data());
      clcg::reduction::Reducer reducer(env, op, type);
      if (y) {
        const ::cl::Buffer yb(env.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(bytes, 1));
        if (n) env.queue().enqueueWriteBuffer(yb, CL_TRUE, 0, bytes, y->data());
        result = reducer.run(xb, 0, yb, 0, n);
      } else {
        result = reducer.run(xb, 0, n);
      }
    });
  }
  return reduction_result(op, result);
}

// reduce_on_device: the same over the caller's device buffers (handles, offsets in elements)
// on the caller's queue: only the per-group partials come back.
py::object reduce_on_device(std::uintptr_t x, std::size_t x_offset, std::optional<std::uintptr_t> y,
                            std::size_t y_offset, std::size_t n, bool f32, const std::string& op_name,
                            std::uintptr_t queue) {
  const clcg::reduction::Op op = clcg::reduction::parse_op(op_name);
  const clcg::cl::Env env = env_for_queue(queue);
  clcg::reduction::Result result;
  {
    py::gil_scoped_release unlocked;
    clcg::cl::checked("reducing", [&] {
      clcg::reduction::Reducer reducer(env, op, f32 ? ElementType::f32 : ElementType::f64);
      result = y ? reducer.run(caller_buffer(x), x_offset, caller_buffer(*y), y_offset, n)
                 : reducer.run(caller_buffer(x), x_offset, n);
    });
  }
  return reduction_result(op, result);
}

}  // namespace

PYBIND11_MODULE(_clcg, m) {
  m.doc() = "clcg's C++ half; use the clcg package.";
  m.attr("__version__") = std::string(clcg::version());
  py::register_exception<clcg::cl::Error>(m, "DeviceError", PyExc_RuntimeError);
  m.def("devices", &devices);
  m.def("default_device", [] { return device_dict(env_for("", "").info(), 0); });
  m.def("first_non_finite", &first_non_finite, py::arg("values"));
  m.def("reduce", &reduce, py::arg("x"), py::arg("y"), py::arg("op"), py::arg("device"), py::arg("platform"));
  m.def("reduce_on_device", &reduce_on_device, py::arg("x"), py::arg("x_offset"), py::arg("y"), py::arg("y_offset"),
        py::arg("n"), py::arg("f32"), py::arg("op"), py::arg("queue"));
  py::class_<Solver>(m, "Solver")
      .def(py::init<const Array<std::int32_t>&, const Array<std::int32_t>&, const Array<double>&, std::int32_t,
                    const std::string&, const std::string&, const std::string&, const std::string&, const std::string&,
                    const std::string&, std::uintptr_t, const Array<double>&, const Array<double>&, unsigned>(),
           py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("n"), py::arg("precond"),
           py::arg("variant"), py::arg("precision"), py::arg("precond_precision"), py::arg("device"),
           py::arg("platform"), py::arg("queue"), py::arg("near_nullspace"), py::arg("coordinates"),
           py::arg("block_size"))
      .def("solve", &Solver::solve, py::arg("b"), py::arg("x0"), py::arg("tolerance"), py::arg("max_iterations"),
           py::arg("callback"))
      .def("solve_on_device", &Solver::solve_on_device, py::arg("b"), py::arg("x"), py::arg("use_guess"),
           py::arg("tolerance"), py::arg("max_iterations"), py::arg("callback"))
      .def_property_readonly("context_handle", &Solver::context_handle)
      .def("update_values", &Solver::update_values, py::arg("indptr"), py::arg("indices"), py::arg("data"))
      .def_property_readonly("setup_seconds", &Solver::setup_seconds)
      .def_property_readonly("update_seconds", &Solver::update_seconds)
      .def_property_readonly("upload_seconds", &Solver::upload_seconds)
      .def("symmetry", &Solver::symmetry)
      .def_property_readonly("preconditioner", &Solver::preconditioner)
      .def_property_readonly("preconditioner_precision", &Solver::preconditioner_precision)
      .def_property_readonly("variant", &Solver::variant)
      .def_property_readonly("device", &Solver::device)
      .def_property_readonly("setup_failure", &Solver::setup_failure);
}
