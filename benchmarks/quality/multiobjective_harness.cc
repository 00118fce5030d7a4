// multiobjective_harness: hypervolume regret of hptune's designers on the
// multi-objective and constrained problems (multiobjective_problems.h),
// over seeds, sequential and with simulated asynchronous workers, driven
// as the engine drives designers (designer_run.h's RunStudy).
//
// Usage: multiobjective_harness [--problems=a,b] [--designers=gp,random]
//          [--seeds=20] [--budgets=50,100] [--workers=1,4] [--threads=2]
// Prints one tab-separated line per (problem, designer, workers, seed,
// budget): the hypervolume regret (the true front's hypervolume minus that
// of the feasible trials, against the problem's reference point), the
// fraction of trials after the first kSeedingTrials that are feasible (for
// a constrained problem; "-" otherwise) and the run's seconds.
// benchmarks/multiobjective_compare.py runs it beside Optuna and
// summarises both.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "benchmarks/quality/designer_run.h"
#include "benchmarks/quality/multiobjective_problems.h"
#include "algorithms/multiobjective/pareto.h"

namespace hptune::quality {
namespace {

// The first trials of a run that are not counted in the feasible fraction:
// the GP designer's seeding for the 2-D constrained problem
// (InitialPoints(2, 100) = 6); the same cut for every designer and Optuna.
constexpr int kSeedingTrials = 6;

struct Flags {
  std::vector<std::string> problems, designers;
  int seeds = 20;
  std::vector<int> budgets = {50, 100};
  std::vector<int> workers = {1, 4};
  int threads = 2;
};

std::vector<int> Ints(const std::string& text) {
  std::vector<int> out;
  for (const std::string& part :
       std::vector<std::string>(absl::StrSplit(text, ','))) {
    int v = 0;
    if (!absl::SimpleAtoi(part, &v) || v < 1) return {};
    out.push_back(v);
  }
  return out;
}

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (const MultiObjectiveProblem& p : MultiObjectiveSuite()) {
    flags.problems.push_back(p.name);
  }
  flags.designers = {"gp", "random"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "--problems") {
      flags.problems = std::vector<std::string>(absl::StrSplit(value, ','));
    } else if (key == "--designers") {
      flags.designers = std::vector<std::string>(absl::StrSplit(value, ','));
    } else if (key == "--seeds" && Ints(value).size() == 1) {
      flags.seeds = Ints(value)[0];
    } else if (key == "--budgets" && !Ints(value).empty()) {
      flags.budgets = Ints(value);
      std::sort(flags.budgets.begin(), flags.budgets.end());
    } else if (key == "--workers" && !Ints(value).empty()) {
      flags.workers = Ints(value);
    } else if (key == "--threads" && Ints(value).size() == 1) {
      flags.threads = Ints(value)[0];
    } else {
      std::fprintf(stderr, "multiobjective_harness: bad flag %s\n",
                   arg.c_str());
      return false;
    }
  }
  for (const std::string& d : flags.designers) {
    if (d != "gp" && d != "random") {
      std::fprintf(stderr,
                   "multiobjective_harness: --designers: gp or random, got "
                   "%s\n",
                   d.c_str());
      return false;
    }
  }
  return true;
}

struct Job {
  const MultiObjectiveProblem* problem;
  std::string designer;
  int workers;
  uint64_t seed;
  std::vector<Trial> trials;
  double seconds = 0;
};

// The study hptune is given: f1..fk minimised, c1..cm at most 0.
StudySpec SpecOf(const MultiObjectiveProblem& p, const std::string& designer) {
  StudySpec spec;
  spec.search_space = p.space;
  std::vector<MetricSpec> metrics;
  for (int i = 1; i <= p.objectives; ++i) {
    metrics.push_back({.id = "f" + std::to_string(i), .goal = Goal::kMinimize});
  }
  const std::vector<double> probe(p.space.parameters().size(), 0.0);
  const size_t constraints = p.constraints ? p.constraints(probe).size() : 0;
  for (size_t i = 1; i <= constraints; ++i) {
    metrics.push_back({.id = "c" + std::to_string(i),
                       .goal = Goal::kMinimize,
                       .safety_threshold = 0});
  }
  spec.SetMetrics(std::move(metrics));
  spec.algorithm =
      designer == "gp" ? Algorithm::kUnspecified : Algorithm::kRandomSearch;
  return spec;
}

// The trial's x1, x2, ... in order (names sort so up to x9).
std::vector<double> Point(const Trial& t) {
  std::vector<double> x;
  for (const auto& [name, value] : t.parameters) x.push_back(value.AsDouble());
  return x;
}

bool Feasible(const Trial& t) {
  for (const auto& [name, value] : t.final_measurement->metrics) {
    if (name[0] == 'c' && value > 0) return false;
  }
  return true;
}

// Reference hypervolume minus that of the feasible trials among the first
// `budget` (maximised form: both negated).
double Regret(const MultiObjectiveProblem& p, const std::vector<Trial>& trials,
              int budget) {
  std::vector<std::vector<double>> points;
  for (int i = 0; i < budget; ++i) {
    if (!Feasible(trials[i])) continue;
    std::vector<double> y;
    for (int k = 1; k <= p.objectives; ++k) {
      y.push_back(
          -trials[i].final_measurement->metrics.at("f" + std::to_string(k)));
    }
    points.push_back(std::move(y));
  }
  std::vector<double> reference;
  for (double r : p.reference) reference.push_back(-r);
  return p.optimal_hypervolume -
         algorithms::Hypervolume(points, reference).value_or(0);
}

}  // namespace

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) return 2;
  std::vector<Job> jobs;
  for (const std::string& name : flags.problems) {
    const MultiObjectiveProblem* problem = nullptr;
    for (const MultiObjectiveProblem& p : MultiObjectiveSuite()) {
      if (p.name == name) problem = &p;
    }
    if (problem == nullptr) {
      std::fprintf(stderr, "multiobjective_harness: unknown problem %s\n",
                   name.c_str());
      return 2;
    }
    for (const std::string& designer : flags.designers) {
      for (int workers : flags.workers) {
        for (int seed = 1; seed <= flags.seeds; ++seed) {
          jobs.push_back(
              {problem, designer, workers, static_cast<uint64_t>(seed)});
        }
      }
    }
  }
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::string error;
  auto work = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      Job& job = jobs[i];
      const MultiObjectiveProblem& p = *job.problem;
      const auto start = std::chrono::steady_clock::now();
      const TrialEvaluator evaluate = [&p](const Trial& t) {
        const std::vector<double> x = Point(t);
        std::map<std::string, double> metrics;
        const std::vector<double> f = p.evaluate(x);
        for (size_t k = 0; k < f.size(); ++k) {
          metrics["f" + std::to_string(k + 1)] = f[k];
        }
        if (p.constraints) {
          const std::vector<double> c = p.constraints(x);
          for (size_t k = 0; k < c.size(); ++k) {
            metrics["c" + std::to_string(k + 1)] = c[k];
          }
        }
        return metrics;
      };
      auto trials = RunStudy(SpecOf(p, job.designer), p.name, job.seed,
                             flags.budgets.back(), job.workers, {}, evaluate);
      if (!trials.ok()) {
        std::lock_guard<std::mutex> lock(mutex);
        error = std::string(trials.status().message());
        return;
      }
      job.trials = *std::move(trials);
      job.seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < flags.threads; ++i) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  if (!error.empty()) {
    std::fprintf(stderr, "multiobjective_harness: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "problem\tdesigner\tworkers\tseed\tbudget\thv_regret\tfeasible_after_"
      "seeding\tseconds\n");
  for (const Job& job : jobs) {
    for (int budget : flags.budgets) {
      std::string feasible = "-";
      if (job.problem->constraints) {
        int n = 0, ok = 0;
        for (int i = kSeedingTrials; i < budget; ++i, ++n) {
          ok += Feasible(job.trials[i]) ? 1 : 0;
        }
        feasible = std::to_string(static_cast<double>(ok) / n);
      }
      std::printf("%s\t%s\t%d\t%llu\t%d\t%.9g\t%s\t%.3f\n",
                  job.problem->name.c_str(), job.designer.c_str(), job.workers,
                  static_cast<unsigned long long>(job.seed), budget,
                  Regret(*job.problem, job.trials, budget), feasible.c_str(),
                  job.seconds);
    }
  }
  return 0;
}

}  // namespace hptune::quality

int main(int argc, char** argv) { return hptune::quality::Main(argc, argv); }
