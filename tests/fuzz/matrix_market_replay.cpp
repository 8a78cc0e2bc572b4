// Replays inputs through the fuzz target's entry point without libFuzzer: each argument
// is a file or a directory (its regular files, sorted). Prints one line per file and a
// total; a finding aborts (or is reported by a sanitizer), so the exit code tells.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    std::vector<fs::path> files;
    for (int k = 1; k < argc; ++k) {
        const fs::path arg = argv[k];
        if (fs::is_directory(arg)) {
            std::vector<fs::path> in_dir;
            for (const auto& e : fs::directory_iterator(arg)) {
                if (e.is_regular_file()) in_dir.push_back(e.path());
            }
            std::sort(in_dir.begin(), in_dir.end());
            files.insert(files.end(), in_dir.begin(), in_dir.end());
        } else if (fs::is_regular_file(arg)) {
            files.push_back(arg);
        } else {
            std::fprintf(stderr, "matrix_market_replay: %s: no such file or directory\n", argv[k]);
            return 2;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: matrix_market_replay <file or directory>...\n");
        return 2;
    }
    for (const fs::path& f : files) {
        std::ifstream in(f, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) {
            std::fprintf(stderr, "matrix_market_replay: %s: read error\n", f.c_str());
            return 2;
        }
        std::printf("%s (%zu bytes)\n", f.c_str(), bytes.size());
        std::fflush(stdout);  // the last name printed is the culprit if the next call aborts
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("replayed %zu inputs, no findings\n", files.size());
    return 0;
}
