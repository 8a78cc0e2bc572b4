#include "wall_time.hpp"

#include <vector>

#include "report.hpp"

namespace cg_solve {
namespace {

// The parts in the order a run goes through them; `reference` only when it ran.
std::vector<std::pair<std::string, double>> parts(const WallTime& time) {
  std::vector<std::pair<std::string, double>> out;
  if (time.distributed) out.emplace_back("mpi_init", time.mpi_init);
  out.insert(out.end(), {{time.generated ? "generate" : "read", time.read},
                         {"device_open", time.device_open},
                         {"upload", time.upload},
                         {"build", time.build},
                         {"setup", time.setup},
                         {"solve", time.solve}});
  if (time.reference > 0) out.emplace_back("reference", time.reference);
  out.emplace_back("write", time.write);
  out.emplace_back("other", time.other());
  return out;
}

}  // namespace

nlohmann::json wall_time_json(const WallTime& time) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [name, seconds] : parts(time)) json[name + "_seconds"] = seconds;
  json["wall_seconds"] = time.wall;
  return json;
}

std::string wall_time_text(const WallTime& time) {
  std::string text = seconds_text(time.wall) + " wall =";
  const char* separator = " ";
  for (const auto& [name, seconds] : parts(time)) {
    text += separator + seconds_text(seconds) + " " + (name == "device_open" ? "device open" : name == "mpi_init" ? "MPI start" : name);
    separator = " + ";
  }
  return text;
}

}  // namespace cg_solve
