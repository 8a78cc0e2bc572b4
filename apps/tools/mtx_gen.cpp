// mtx-gen: writes the project's generated test matrices as Matrix Market files.
#include <cstdio>
#include <string>
#include <vector>

#include "clcg/solver/io/matrix_market.hpp"
#include "clcg/solver/problems/elasticity.hpp"
#include "clcg/solver/problems/generators.hpp"
#include "common/app_main.hpp"
#include "common/command_line.hpp"

namespace {

namespace po = clcg::apps::po;
using clcg::apps::UsageError;

clcg::apps::CommandLine command_line() {
  clcg::apps::CommandLine cli("mtx-gen", "mtx-gen <kind> ARGS... -o FILE [--general]",
                              "Writes one of the project's generated test matrices as a Matrix Market file.\n\n"
                              "kinds:\n"
                              "  poisson2d NX [NY]          5-point Laplacian on NX x NY (NY defaults to NX)\n"
                              "  poisson3d N [NY NZ]        7-point Laplacian on N x N x N, or N x NY x NZ\n"
                              "  aniso2d NX NY EPS          -EPS u_xx - u_yy, 5-point (EPS > 0)\n"
                              "  random N NNZ_PER_ROW SEED  random SPD (strictly diagonally dominant), seeded\n"
                              "  elasticity2d NX NY NU      Q1 plane-strain elasticity on NX x NY unit cells, clamped at x = 0\n"
                              "  elasticity3d NX NY NZ NU   Q1 elasticity on NX x NY x NZ unit cells, clamped at x = 0\n"
                              "                             (both also write the nodes' coordinates to FILE's name with\n"
                              "                             .coords.mtx for .mtx: cg-solve --coordinates)");
  cli.add()
      ("output,o", po::value<std::string>(), "output file (required); replaced atomically")
      ("general", "store both triangles (default: symmetric, lower triangle)")
      ("words", po::value<std::vector<std::string>>(), "the kind and its arguments");
  cli.positional("words");
  cli.epilog("exit status: 0 written, 1 the file could not be written, 2 bad usage.\n");
  return cli;
}

int size(const std::string& text, const char* what) {
  return static_cast<int>(clcg::apps::check_range(what, clcg::apps::parse_count(text, what), 1, 1u << 30));
}

void expect_count(const std::string& kind, const std::vector<std::string>& args, std::size_t lo, std::size_t hi) {
  if (args.size() < lo || args.size() > hi)
    throw UsageError(kind + " takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                     " arguments, got " + std::to_string(args.size()));
}

// A generated matrix, and the coordinates of its nodes where it has them (nodes x d).
struct Generated {
  clcg::solver::HostMatrix a;
  Eigen::MatrixXd coordinates;
};

Generated elastic(const clcg::solver::ElasticBody& body) {
  const Eigen::Index nodes = Eigen::Index(body.coordinates.size() / body.dimensions);
  return {body.stiffness, Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                              body.coordinates.data(), nodes, Eigen::Index(body.dimensions))};
}

Generated generate(const std::string& kind, const std::vector<std::string>& args) {
  using namespace clcg::solver;
  const auto ratio = [](const std::string& text) {
    const double nu = clcg::apps::parse_real(text, "NU");
    if (!(nu > -1 && nu < 0.5)) throw UsageError("NU (Poisson's ratio) must lie in (-1, 0.5), got '" + text + "'");
    return nu;
  };
  if (kind == "elasticity2d") {
    expect_count(kind, args, 3, 3);
    return elastic(elasticity_2d(size(args[0], "NX"), size(args[1], "NY"), ratio(args[2])));
  }
  if (kind == "elasticity3d") {
    expect_count(kind, args, 4, 4);
    return elastic(elasticity_3d(size(args[0], "NX"), size(args[1], "NY"), size(args[2], "NZ"), ratio(args[3])));
  }
  if (kind == "poisson2d") {
    expect_count(kind, args, 1, 2);
    const int nx = size(args[0], "NX");
    return {poisson_2d(nx, args.size() > 1 ? size(args[1], "NY") : nx), {}};
  }
  if (kind == "poisson3d") {
    if (args.size() == 2) throw UsageError("poisson3d takes N or N NY NZ, got 2 arguments");
    expect_count(kind, args, 1, 3);
    const int nx = size(args[0], "N");
    return {args.size() == 3 ? poisson_3d(nx, size(args[1], "NY"), size(args[2], "NZ")) : poisson_3d(nx, nx, nx), {}};
  }
  if (kind == "aniso2d") {
    expect_count(kind, args, 3, 3);
    const double epsilon = clcg::apps::parse_real(args[2], "EPS");
    if (epsilon <= 0) throw UsageError("EPS must be a positive number, got '" + args[2] + "'");
    return {anisotropic_poisson_2d(size(args[0], "NX"), size(args[1], "NY"), epsilon), {}};
  }
  if (kind == "random") {
    expect_count(kind, args, 3, 3);
    const int n = size(args[0], "N");
    const int per_row = size(args[1], "NNZ_PER_ROW");
    if (per_row > n) throw UsageError("NNZ_PER_ROW must not exceed N");
    return {random_spd(n, per_row, clcg::apps::parse_count(args[2], "SEED")), {}};
  }
  throw UsageError("unknown kind '" + kind + "' (poisson2d, poisson3d, aniso2d, random, elasticity2d or elasticity3d)");
}

int run(const po::variables_map& vm) {
  if (!vm.count("words")) throw UsageError("missing kind (poisson2d, poisson3d, aniso2d, random, elasticity2d or elasticity3d)");
  if (!vm.count("output")) throw UsageError("missing -o FILE");
  const std::vector<std::string> words = vm["words"].as<std::vector<std::string>>();
  const std::string output = vm["output"].as<std::string>();
  const bool general = vm.count("general") > 0;
  const Generated generated = generate(words.front(), {words.begin() + 1, words.end()});
  const clcg::solver::HostMatrix& a = generated.a;
  const std::string stem = output.size() > 4 && output.ends_with(".mtx") ? output.substr(0, output.size() - 4) : output;
  const std::string coordinates = stem + ".coords.mtx";
  if (generated.coordinates.size() > 0 && coordinates == output)
    throw UsageError("-o " + output + " is where the coordinates go: name the matrix another way");
  // Provenance goes into the file itself.
  std::string comment = "generated by: mtx-gen";
  for (const auto& w : words) comment += " " + w;
  if (general) comment += " --general";
  clcg::solver::write_matrix_market(output, a, !general, comment);
  std::printf("wrote %s: %lld x %lld, %lld nonzeros (%s storage)\n", output.c_str(), static_cast<long long>(a.rows()),
              static_cast<long long>(a.cols()), static_cast<long long>(a.nonZeros()), general ? "general" : "symmetric");
  if (generated.coordinates.size() > 0) {
    clcg::solver::write_dense_market(coordinates, generated.coordinates);
    std::printf("wrote %s: %lld nodes x %lld coordinates\n", coordinates.c_str(),
                static_cast<long long>(generated.coordinates.rows()), static_cast<long long>(generated.coordinates.cols()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return clcg::apps::app_main(command_line(), argc, argv, run); }
