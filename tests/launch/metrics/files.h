// File helpers for the metric reader tests: whole-file writes as programs do
// them, appends as loggers do them.
#ifndef HPTUNE_TESTS_LAUNCH_METRICS_FILES_H_
#define HPTUNE_TESTS_LAUNCH_METRICS_FILES_H_

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace hptune::launch::testing {

// Truncates `path` and writes `text` (what open(path, 'w') then write does).
inline void WriteFile(const std::filesystem::path& path,
                      const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

inline void AppendFile(const std::filesystem::path& path,
                       const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

}  // namespace hptune::launch::testing

#endif  // HPTUNE_TESTS_LAUNCH_METRICS_FILES_H_
