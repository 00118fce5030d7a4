// A Vizier-style ask/tell client of `hptune serve`, run as a separate
// process by serve_study_test.cc.
//
//   ask_tell_client ADDRESS STUDY CLIENT_ID MODE [COUNT]
//
// MODE take:   asks for COUNT trials (default 2), prints "trial <id>" for
//              each, and exits without completing them.
// MODE hang:   the same, then waits to be killed (a client that dies).
// MODE finish: until the study is done, asks for one trial, reports three
//              measurements of "loss" = sum of (value - 0.5)^2 over the
//              numeric parameters, completes it, and prints
//              "completed <id>".
// Exit status 0, or 1 with the gRPC error on stderr.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "hptune/v1/study_service.grpc.pb.h"

namespace {

using hptune::v1::StudyService;

// The server's token, as any client of this user finds it: the default
// token file under $HPTUNE_CONFIG_DIR (set by ctest).
std::string Token() {
  const char* dir = std::getenv("HPTUNE_CONFIG_DIR");
  if (dir == nullptr) return "";
  std::ifstream in(std::string(dir) + "/token");
  std::string token;
  in >> token;
  return token;
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(30));
  context->AddMetadata("authorization", "Bearer " + Token());
  return context;
}

int Fail(const std::string& what, const grpc::Status& status) {
  std::cerr << "ask_tell_client: " << what << ": " << status.error_code() << " "
            << status.error_message() << "\n";
  return 1;
}

double Loss(const hptune::v1::Trial& trial) {
  double loss = 0;
  for (const auto& [name, value] : trial.parameters()) {
    double v = value.has_double_value()
                   ? value.double_value()
                   : static_cast<double>(value.int_value());
    if (value.has_string_value()) continue;
    loss += (v - 0.5) * (v - 0.5);
  }
  return loss;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: ask_tell_client ADDRESS STUDY CLIENT_ID "
                 "take|hang|finish [COUNT]\n";
    return 64;
  }
  const std::string study = argv[2], client = argv[3], mode = argv[4];
  const int count = argc > 5 ? std::stoi(argv[5]) : 2;
  auto stub = StudyService::NewStub(
      grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials()));

  if (mode == "take" || mode == "hang") {
    hptune::v1::SuggestTrialsRequest request;
    request.set_study(study);
    request.set_suggestion_count(count);
    request.set_client_id(client);
    hptune::v1::SuggestTrialsResponse reply;
    grpc::Status status = stub->SuggestTrials(Context().get(), request, &reply);
    if (!status.ok()) return Fail("SuggestTrials", status);
    for (const auto& trial : reply.trials()) {
      std::cout << "trial " << trial.id() << "\n";
    }
    std::cout.flush();
    if (mode == "hang") {
      while (true) pause();
    }
    return 0;
  }

  if (mode != "finish") {
    std::cerr << "ask_tell_client: unknown mode " << mode << "\n";
    return 64;
  }
  while (true) {
    hptune::v1::SuggestTrialsRequest request;
    request.set_study(study);
    request.set_suggestion_count(1);
    request.set_client_id(client);
    hptune::v1::SuggestTrialsResponse reply;
    grpc::Status status = stub->SuggestTrials(Context().get(), request, &reply);
    if (!status.ok()) return Fail("SuggestTrials", status);
    if (reply.trials().empty()) break;
    for (const auto& trial : reply.trials()) {
      const double loss = Loss(trial);
      for (int step = 1; step <= 3; ++step) {
        hptune::v1::AddMeasurementRequest add;
        add.set_study(study);
        add.set_trial_id(trial.id());
        add.mutable_measurement()->set_step(step);
        (*add.mutable_measurement()->mutable_metrics())["loss"] =
            loss + 1.0 / step;
        hptune::v1::AddMeasurementResponse added;
        status = stub->AddMeasurement(Context().get(), add, &added);
        if (!status.ok()) return Fail("AddMeasurement", status);
      }
      hptune::v1::CompleteTrialRequest complete;
      complete.set_study(study);
      complete.set_trial_id(trial.id());
      hptune::v1::Trial done;
      status = stub->CompleteTrial(Context().get(), complete, &done);
      if (!status.ok()) return Fail("CompleteTrial", status);
      std::cout << "completed " << trial.id() << "\n";
    }
  }
  return 0;
}
