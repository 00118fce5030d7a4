// CheckExecutable on real files: what exec would refuse is found before a
// trial starts, with a message that says what to fix.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/env.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;

class CheckExecutableTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text,
                    mode_t mode) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }
  std::string dir_ = testing::MakeTempDir();
};

TEST_F(CheckExecutableTest, RunnableProgramsPass) {
  EXPECT_TRUE(CheckExecutable("python3").ok());
  EXPECT_TRUE(CheckExecutable("/bin/sh").ok());
  EXPECT_TRUE(
      CheckExecutable(Write("ok.sh", "#!/bin/sh\nexit 0\n", 0755)).ok());
  EXPECT_TRUE(
      CheckExecutable(Write("env.py", "#!/usr/bin/env -S python3 -u\n", 0755))
          .ok());
  // A relative path is looked up in the replica's working directory.
  EXPECT_TRUE(CheckExecutable("./ok.sh", dir_).ok());
}

TEST_F(CheckExecutableTest, MissingProgramIsNotFound) {
  absl::Status status = CheckExecutable("no-such-trainer-program");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("no-such-trainer-program"));
  status = CheckExecutable("./ok.sh", dir_);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(dir_ + "/./ok.sh\" does not exist"));
}

TEST_F(CheckExecutableTest, MissingInterpreterIsNamed) {
  // exec says ENOENT here, as if the script were missing; this names the
  // interpreter.
  absl::Status status =
      CheckExecutable(Write("bad.py", "#!/usr/bin/python9\n", 0755));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(),
              HasSubstr("the interpreter \"/usr/bin/python9\""));
  status = CheckExecutable(Write("env.py", "#!/usr/bin/env python9\n", 0755));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("\"python9\" on PATH"));
}

TEST_F(CheckExecutableTest, NotExecutableSaysHowToFixIt) {
  absl::Status status =
      CheckExecutable(Write("task.py", "#!/usr/bin/env python3\n", 0644));
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(status.message(), HasSubstr("chmod +x"));
  status = CheckExecutable(Write("plain.py", "print(1)\n", 0755));
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(status.message(), HasSubstr("#!/usr/bin/env python3"));
}

// A directory or a FIFO named as the program is said to be no regular file
// (exec would refuse it), not mistaken for a script without its #! line.
TEST_F(CheckExecutableTest, WhatIsNoRegularFileIsNamedSo) {
  const std::string fifo = dir_ + "/trainer.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0755), 0);
  for (const std::string& program : {dir_, fifo}) {
    absl::Status status = CheckExecutable(program);
    EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << program;
    EXPECT_THAT(status.message(),
                HasSubstr("\"" + program + "\" is not a regular file"));
  }
}

}  // namespace
}  // namespace hptune
