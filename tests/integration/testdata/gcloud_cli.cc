#include "tests/integration/testdata/gcloud_cli.h"

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace hptune::testing {

std::string FindGcloud() {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path == nullptr ? "" : path, ':', absl::SkipEmpty())) {
    const std::string candidate = std::string(dir) + "/gcloud";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

int RestPort(const ServeProcess& server, std::string_view scheme) {
  const std::string marker =
      "REST API on " + std::string(scheme) + "://127.0.0.1:";
  int port = 0;
  PollUntil(
      [&] {
        const std::string out = server.Output();
        const size_t at = out.find(marker);
        if (at == std::string::npos) return false;
        port = std::stoi(out.substr(at + marker.size()));
        return true;
      },
      std::chrono::seconds(30));
  return port;
}

Gcloud::Gcloud(const std::string& dir, int port, Setup setup)
    : config_dir_(dir + "/gcloud"), port_(port) {
  env_ = {"CLOUDSDK_CONFIG=" + config_dir_, "CLOUDSDK_CORE_PROJECT=p1"};
  std::ofstream(dir + "/access_token") << DefaultToken();
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(port) + "/";
  for (const std::vector<std::string>& setting :
       std::vector<std::vector<std::string>>{
           {"api_endpoint_overrides/ml", endpoint},
           {"api_endpoint_overrides/aiplatform", endpoint},
           {"api_endpoint_overrides/storage", endpoint},
           {"auth/access_token_file", dir + "/access_token"},
           {"core/disable_usage_reporting", "true"},
           {"component_manager/disable_update_check", "true"}}) {
    if (setup == Setup::kEnvironment) {
      // api_endpoint_overrides/ml is CLOUDSDK_API_ENDPOINT_OVERRIDES_ML.
      env_.push_back(absl::StrCat(
          "CLOUDSDK_",
          absl::StrReplaceAll(absl::AsciiStrToUpper(setting[0]), {{"/", "_"}}),
          "=", setting[1]));
      continue;
    }
    ProcessResult set = Run({"config", "set", setting[0], setting[1]});
    EXPECT_EQ(set.exit_code, 0) << set.err;
  }
}

ProcessResult Gcloud::Run(std::vector<std::string> args) const {
  args.insert(args.begin(), FindGcloud());
  args.push_back("--quiet");
  return RunProcessWithEnv(args, env_);
}

nlohmann::json Gcloud::Json(std::vector<std::string> args) const {
  args.push_back("--format=json");
  ProcessResult result = Run(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out, nullptr, false);
}

nlohmann::json Gcloud::JsonOnceIn(std::vector<std::string> args,
                                  const std::string& path,
                                  const std::set<std::string>& states,
                                  std::chrono::seconds timeout) const {
  httplib::Client client("127.0.0.1", port_);
  const httplib::Headers headers = {
      {"Authorization", "Bearer " + DefaultToken()}};
  std::string seen;
  const bool reached = PollUntil(
      [&] {
        httplib::Result got = client.Get(path, headers);
        if (!got) return false;
        seen = got->body;
        const nlohmann::json body = nlohmann::json::parse(seen, nullptr, false);
        return body.is_object() && states.contains(body.value("state", ""));
      },
      timeout);
  EXPECT_TRUE(reached) << "GET " << path << " still answers " << seen;
  return Json(std::move(args));
}

}  // namespace hptune::testing
