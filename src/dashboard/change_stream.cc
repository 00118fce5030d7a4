#include "src/dashboard/change_stream.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::dashboard {
namespace {

// Event-log pages read per poll: a large log is indexed over several polls
// while the pages already answer.
constexpr int kEventPagesPerPoll = 20;
// The most trials one change message names.
constexpr size_t kMaxTrialsPerMessage = 500;

}  // namespace

ChangeStream::ChangeStream(store::Store& store,
                           std::unique_ptr<StudyCache> cache,
                           std::chrono::milliseconds poll_interval,
                           int max_streams, Env& env)
    : store_(store),
      cache_(std::move(cache)),
      poll_interval_(poll_interval),
      env_(env),
      feed_(max_streams, env) {}

ChangeStream::~ChangeStream() { Stop(); }

void ChangeStream::Start() {
  // Every study is read once at start, as the studies list would, beside
  // the poller's first reading of the event log: the first page opened is
  // then answered from memory (a 100,000-trial study takes about 0.7 s to
  // read; a request meanwhile waits for it, as it would have read it
  // itself). A failure leaves a study to its first request.
  warm_up_ = std::thread([this] { (void)cache_->All(); });
  poller_ = std::thread([this] { Poll(); });
}

void ChangeStream::Stop() {
  {
    MutexLock lock(&stop_mu_);
    stopping_ = true;
  }
  stop_cv_.SignalAll();
  feed_.Close();
  if (poller_.joinable()) poller_.join();
  if (warm_up_.joinable()) warm_up_.join();
}

void ChangeStream::AddRoutes(ApiRoutes& routes) {
  routes.Get("/api/events", [this](const httplib::Request&,
                                   httplib::Response& res) { Stream(res); });
}

absl::StatusOr<Changes> ChangeStream::Refresh() {
  HPTUNE_ASSIGN_OR_RETURN(Changes changes, cache_->Refresh());
  if (!changes.empty()) {
    Json trials = Json::array();
    for (const auto& [study, trial] : changes.trials) {
      if (trials.size() >= kMaxTrialsPerMessage) break;
      trials.push_back({{"study", study}, {"trial", trial}});
    }
    feed_.Publish(Json{{"event_id", changes.event_id},
                       {"studies", changes.studies},
                       {"trials", std::move(trials)}}
                      .dump());
  }
  return changes;
}

absl::StatusOr<std::shared_ptr<const StudySnapshot>> ChangeStream::Snapshot(
    const std::string& study) {
  HPTUNE_RETURN_IF_ERROR(Refresh().status());
  return cache_->Get(study);
}

void ChangeStream::Stream(httplib::Response& res) {
  if (!feed_.OpenStream()) {
    SendError(res, 503, "too many event streams are open; try again later");
    return;
  }
  auto seen = std::make_shared<uint64_t>(feed_.Head());
  res.set_header("Cache-Control", "no-store");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, seen](size_t offset, httplib::DataSink& sink) {
        if (offset == 0) {
          const std::string hello = "retry: 2000\n: connected\n\n";
          return sink.write(hello.data(), hello.size());
        }
        std::vector<std::string> messages;
        if (!feed_.Wait(seen.get(), std::chrono::seconds(15), &messages)) {
          sink.done();
          return true;
        }
        std::string out = messages.empty() ? ": ping\n\n" : "";
        for (const std::string& message : messages) {
          absl::StrAppend(&out, "event: change\ndata: ", message, "\n\n");
        }
        return sink.write(out.data(), out.size());
      },
      [this](bool) { feed_.CloseStream(); });
}

void ChangeStream::Poll() {
  while (true) {
    {
      MutexLock lock(&stop_mu_);
      if (stopping_) return;
    }
    // A database being written by another process, or briefly busy: the
    // next poll reads on.
    (void)Refresh();
    (void)events_.Advance(store_, kEventPagesPerPoll);
    const MonotonicTime next = env_.MonotonicNow() + poll_interval_;
    MutexLock lock(&stop_mu_);
    while (!stopping_) {
      if (!env_.WaitUntil(&stop_cv_, &stop_mu_, next)) break;
    }
  }
}

}  // namespace hptune::dashboard
