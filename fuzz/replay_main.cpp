// main() for a fuzz target built without a fuzzing engine (GCC, ctest): runs LLVMFuzzerTestOneInput
// once on every file named and on every file under every folder named (recursively, in sorted
// order, leaving out names that begin with a dot), as libFuzzer runs inputs it is given. A finding
// aborts the process; the handler below first names the input, which the abort message cannot.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

namespace fs = std::filesystem;

// The input being run, for the abort handler (set before each run, never freed).
const char* volatile current_input = nullptr;

extern "C" void name_the_input(int signal) {
  const char* path = current_input;
  if (path != nullptr) {
    constexpr char kPrefix[] = "fuzz replay: the input was ";
    [[maybe_unused]] ssize_t n = write(2, kPrefix, sizeof kPrefix - 1);
    n = write(2, path, std::strlen(path));
    n = write(2, "\n", 1);
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

bool hidden(const fs::path& path) {
  return path.filename().string().starts_with(".");
}

// The files a path names, or an error message in `error`.
std::vector<fs::path> inputs_of(const fs::path& path, std::string& error) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  if (!fs::is_directory(path, ec)) {
    error = path.string() + ": no such file or folder";
    return {};
  }
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (hidden(it->path())) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(it->path());
  }
  if (ec) error = path.string() + ": " + ec.message();
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " FILE_OR_FOLDER...\n"
              << "Runs the fuzz target once on each input (no fuzzing: no engine is linked).\n";
    return 2;
  }
  std::signal(SIGABRT, name_the_input);
  std::size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    std::string error;
    const std::vector<fs::path> files = inputs_of(argv[i], error);
    if (!error.empty()) {
      std::cerr << argv[0] << ": " << error << "\n";
      return 2;
    }
    for (const fs::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      if (!in.good() && !in.eof()) {
        std::cerr << argv[0] << ": " << file.string() << ": cannot read\n";
        return 2;
      }
      const std::string name = file.string();
      current_input = name.c_str();
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      current_input = nullptr;
      ++ran;
    }
  }
  // Nothing to run is a broken setup (seeds not made), not a pass.
  if (ran == 0) {
    std::cerr << argv[0] << ": no inputs found\n";
    return 1;
  }
  std::cout << argv[0] << ": " << ran << " inputs, no finding\n";
  return 0;
}
