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
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "clcg/cl/device.hpp"
#include "clcg/cl/env.hpp"
#include "clcg/cl/error.hpp"
#include "clcg/reduction/reduce.hpp"
#include "clcg/solver/krylov/host_matrix_solver.hpp"
#include "clcg/solver/krylov/settings.hpp"
#include "clcg/solver/precond/preconditioner.hpp"
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

// A CG solver for one matrix on one device (clcg::solver::HostMatrixSolver).
class Solver {
 public:
  Solver(const Array<std::int32_t>& indptr, const Array<std::int32_t>& indices, const Array<double>& data,
         std::int32_t n, const std::string& precond, const std::string& variant, const std::string& precision,
         const std::string& precond_precision, const std::string& device, const std::string& platform)
      : env_(env_for(device, platform)) {
    clcg::solver::HostCsr a;
    a.rows = a.cols = n;
    a.row_ptr.assign(indptr.data(), indptr.data() + indptr.size());
    a.col_idx.assign(indices.data(), indices.data() + indices.size());
    a.values.assign(data.data(), data.data() + data.size());
    clcg::solver::Settings settings;
    settings.preconditioner = clcg::solver::parse_preconditioner(precond);
    settings.variant = clcg::solver::parse_cg_variant(variant);
    if (precond_precision != "auto") settings.precond_options.precision = parse_precision(precond_precision);
    settings.stagnation_window = 0;  // SciPy's rule: run to the tolerance or the limit
    settings.divergence_factor = 0;
    settings.confirm_true_residual = false;
    const ElementType type = parse_precision(precision);
    py::gil_scoped_release unlocked;
    solver_ = std::make_unique<clcg::solver::HostMatrixSolver>(env_, std::move(a), type, settings);
  }

  // b (and x0) contiguous, of the solver's dtype. callback(xk) after each step, or None.
  py::dict solve(const py::array& b, const std::optional<py::array>& x0, double tolerance, std::int64_t max_iterations,
                 const py::object& callback) {
    const std::size_t n = solver_->rows();
    const bool f32 = solver_->type() == ElementType::f32;
    py::array x = f32 ? py::array(Array<float>(static_cast<py::ssize_t>(n))) : py::array(Array<double>(static_cast<py::ssize_t>(n)));
    if (x0) std::memcpy(x.mutable_data(), x0->data(), n * x.itemsize());
    clcg::solver::Settings& run = solver_->settings();
    run.tolerance = tolerance;
    run.max_iterations = max_iterations;
    run.record_history = true;
    std::optional<py::error_already_set> raised;  // Ctrl-C or the callback's exception
    std::size_t reported = 0;                       // steps the callback has seen
    run.should_stop = [&raised] {
      py::gil_scoped_acquire locked;
      if (!raised && PyErr_CheckSignals() != 0) raised.emplace();
      return raised.has_value();
    };
    run.on_iteration = nullptr;
    if (!callback.is_none()) {
      run.on_iteration = [&, f32](std::size_t k, double) {
        py::gil_scoped_acquire locked;
        if (raised) return;
        reported = k;
        try {
          py::array xk = f32 ? py::array(Array<float>(static_cast<py::ssize_t>(n))) : py::array(Array<double>(static_cast<py::ssize_t>(n)));
          clcg::cl::checked("reading x_k for the callback", [&] {
            if (n) env_.queue().enqueueReadBuffer(solver_->device_x(), CL_TRUE, 0, n * xk.itemsize(), xk.mutable_data());
          });
          callback(xk);
        } catch (py::error_already_set& e) {
          raised.emplace(std::move(e));
        }
      };
    }
    clcg::solver::SolveInfo info;
    double host_seconds = 0;  // b up, CG, x back: what a C++ caller of HostMatrixSolver waits for
    {
      py::gil_scoped_release unlocked;
      const auto start = std::chrono::steady_clock::now();
      info = solver_->solve(b.data(), x.mutable_data(), x0.has_value());
      host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    run.should_stop = nullptr;
    run.on_iteration = nullptr;
    // The loop's last step (converged, or at the limit) ends before on_iteration: SciPy calls
    // back after every step, the last one included.
    if (!raised && !callback.is_none() && info.iterations > reported) {
      try {
        callback(py::array(x).attr("copy")());
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
      }
    }
    if (raised) throw std::move(*raised);
    py::array_t<double> history(static_cast<py::ssize_t>(info.history.size()));
    for (std::size_t i = 0; i < info.history.size(); ++i) history.mutable_at(i) = info.history[i].residual;
    py::dict out;
    out["x"] = x;
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

  double setup_seconds() const { return solver_->setup_seconds(); }
  std::string preconditioner() const { return std::string(clcg::solver::preconditioner_name(solver_->resolved().preconditioner)); }
  std::string preconditioner_precision() const {
    const auto* report = solver_->preconditioner_report();
    return report ? report->precision : std::string();
  }
  std::string variant() const { return std::string(clcg::solver::cg_variant_name(solver_->resolved().variant)); }
  std::string device() const { return env_.info().name; }
  std::optional<std::string> setup_failure() const { return solver_->setup_failure(); }

 private:
  clcg::cl::Env env_;
  std::unique_ptr<clcg::solver::HostMatrixSolver> solver_;
};

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
  if (clcg::reduction::is_arg_op(op)) return py::int_(result.index);
  return py::float_(result.value);
}

}  // namespace

PYBIND11_MODULE(_clcg, m) {
  m.doc() = "clcg's C++ half; use the clcg package.";
  m.attr("__version__") = std::string(clcg::version());
  py::register_exception<clcg::cl::Error>(m, "DeviceError", PyExc_RuntimeError);
  m.def("devices", &devices);
  m.def("default_device", [] { return device_dict(env_for("", "").info(), 0); });
  m.def("reduce", &reduce, py::arg("x"), py::arg("y"), py::arg("op"), py::arg("device"), py::arg("platform"));
  py::class_<Solver>(m, "Solver")
      .def(py::init<const Array<std::int32_t>&, const Array<std::int32_t>&, const Array<double>&, std::int32_t,
                    const std::string&, const std::string&, const std::string&, const std::string&, const std::string&,
                    const std::string&>(),
           py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("n"), py::arg("precond"),
           py::arg("variant"), py::arg("precision"), py::arg("precond_precision"), py::arg("device"),
           py::arg("platform"))
      .def("solve", &Solver::solve, py::arg("b"), py::arg("x0"), py::arg("tolerance"), py::arg("max_iterations"),
           py::arg("callback"))
      .def_property_readonly("setup_seconds", &Solver::setup_seconds)
      .def_property_readonly("preconditioner", &Solver::preconditioner)
      .def_property_readonly("preconditioner_precision", &Solver::preconditioner_precision)
      .def_property_readonly("variant", &Solver::variant)
      .def_property_readonly("device", &Solver::device)
      .def_property_readonly("setup_failure", &Solver::setup_failure);
}
