#!/usr/bin/env bash
# Keeps the dependency arrows of docs/architecture.md true by reading #include lines:
#   cli ──► runner ──► engine ──► algorithms (interfaces) ──► core
#   runner, engine ──► store and launch interfaces only, never their
#   implementations; the engine (ask/tell) never uses the runner
#   algorithms ──► core (+ Eigen, NLopt); no I/O, clock, store or engine
#   core ──► standard library + absl (+ yaml-cpp/nlohmann in config parsing)
#   read (study answers) ──► core, algorithms' public headers, Store
#   interface; engine, server, dashboard, cli ──► read
#   api (wire conversion) ──► core, proto (+ store/engine public headers)
#   cli ──► api, never server (but `hptune serve`'s composition)
#   server, jobs ──► launch's public headers only
#   dashboard ──► store interface, core, algorithms; no server, engine, gRPC
#   rest (AI Platform's REST API) ──► api, proto, gRPC; no server internals
#   frontends (server, jobs, dashboard, cli, api) ──► algorithms' public headers
#   engine, runner, jobs, server, dashboard ──► files and time through Env only
# and that every lock is an annotated hptune::Mutex and the config parser
# reads only user text.
# Prints each offending line and exits 1 when any arrow is broken.
set -u
root=${1:?usage: layering_test.sh SOURCE_DIR}
cd "$root" || exit 2
failed=0

# forbid DIRS PATTERN WHY [EXCEPT...]: no file under DIRS may include what
# PATTERN matches; EXCEPT are file-name globs (grep --exclude) let off.
forbid() {
  local dirs=$1 pattern=$2 why=$3 hits except=()
  shift 3
  for glob in "$@"; do except+=("--exclude=$glob"); done
  # A folder that moved would otherwise be checked by no rule at all.
  for dir in $dirs; do
    if [ ! -d "$dir" ]; then
      echo "layering: no folder $dir"
      failed=1
    fi
  done
  # shellcheck disable=SC2086
  hits=$(grep -rnE ${except[@]+"${except[@]}"} "^#include [<\"]($pattern)" $dirs 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "layering: $why"
    echo "$hits"
    failed=1
  fi
}

core="include/hptune/core src/core"
forbid "$core" 'hptune/(algorithms|store|engine|runner|env|launch|server)/|src/(store|engine|runner|cli|server|launch|env)/|algorithms/' \
  "core depends on nothing else of hptune"
forbid "$core" 'sqlite3|grpc|google/protobuf|Eigen|nlopt|unistd|sys/' \
  "core never uses SQLite, gRPC, protobuf, Eigen, NLopt or the OS"
forbid "include/hptune/algorithms algorithms" \
  'hptune/(store|engine|runner|env|launch|server)/|src/(core|env|store|launch|engine|runner|jobs|api|server|dashboard|cli)/|sqlite3|grpc|fstream|iostream|unistd|sys/|chrono>|random>|thread>' \
  "algorithms are pure: no store, engine, clock, I/O or global randomness"
forbid "include/hptune/store src/store" 'hptune/(algorithms|engine|runner|launch|server)/|src/(engine|runner|cli|server)' \
  "the store knows only core and env"
forbid "include/hptune/engine src/engine include/hptune/runner src/runner" \
  'hptune/store/open_store|src/store/|src/cli/|src/server/|algorithms/(sampling|grid|quasi_random|gp|encoding|common)/|sqlite3|grpc' \
  "the engine and the runner see interfaces only; concrete parts are chosen in composition roots"
forbid "include/hptune/read src/read" \
  'hptune/(engine|runner|env|launch|server)/|hptune/store/open_store|src/(core|env|store|launch|engine|runner|jobs|api|server|dashboard|cli)/|algorithms/|sqlite3|grpc|google/protobuf' \
  "the read side computes study answers from core, the algorithms' public headers and the Store interface"
forbid "include/hptune/engine src/engine" 'hptune/runner/|src/runner/' \
  "the engine is ask/tell: the runner uses it, never the other way"
forbid "include/hptune" 'src/|algorithms/|tests/' \
  "public headers never include private ones"
forbid "src/api" \
  'src/(core|env|store|launch|engine|runner|server|cli)/|algorithms/|hptune/(algorithms|env|launch|runner)/' \
  "api converts between the wire and core: no server, CLI or private parts"
forbid "src/rest" \
  'src/(core|env|store|launch|engine|runner|jobs|server|dashboard|cli)/|algorithms/|hptune/(algorithms|engine|env|launch|runner|store)/|sqlite3' \
  "the REST gateway reaches the server through gRPC and src/api only: one code path behind both"
forbid "src/cli" 'src/rest/' \
  "only serve composes the REST gateway" \
  'serve_command.*' 'serve_fronts.*'
forbid "src/cli" 'src/server/' \
  "the CLI's commands reach a server through src/api; only serve composes it" \
  'serve_command.*' 'serve_fronts.*'
forbid "src/dashboard" 'src/(server|cli|jobs|engine|runner|launch)/|hptune/(engine|runner|launch)/|sqlite3|grpc' \
  "the dashboard reads the Store interface; its owner hands it what may change"
forbid "src/cli" 'src/dashboard/' \
  "only serve and dashboard compose the web dashboard" \
  'serve_command.*' 'serve_fronts.*' 'dashboard_command.*'
forbid "src/server src/jobs" 'src/launch/' \
  "the server and job control use launch's public headers only"
forbid "src/server src/jobs src/dashboard src/cli src/api" 'algorithms/' \
  "frontends use the algorithms' public headers (hptune/algorithms/) only"

# Determinism needs more than include lines: no clock or entropy reads.
hits=$(grep -rnE '(system|steady|high_resolution)_clock::now|random_device|[^a-z_]s?rand\(|getenv' \
  include/hptune/algorithms algorithms include/hptune/core src/core 2>/dev/null)
if [ -n "$hits" ]; then
  echo "layering: algorithms and core read no clock, entropy or environment"
  echo "$hits"
  failed=1
fi

# Env (include/hptune/env/env.h) is the one door to files and time for the
# engine, the job runner and take-over, the server and the dashboard, so
# FakeEnv's clock and in-memory files can stand in for the machine: no
# streams on files, no std::filesystem call (its path type is fine), no
# sleeping outside Env::SleepFor.
hits=$(grep -rnE '<fstream>|std::[io]?fstream|std::filesystem::[a-z_]+\(|std::filesystem::(directory_iterator|recursive_directory_iterator|exists|remove|rename|create_director|file_size|is_[a-z_]+|status|canonical|absolute|permissions)\b|sleep_for|sleep_until|[^a-z_]u?sleep\(' \
  src/engine src/runner src/jobs src/server src/dashboard 2>/dev/null |
  grep -vE 'std::filesystem::path\(' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//')
if [ -n "$hits" ]; then
  echo "layering: engine, jobs, server and dashboard reach files and time through Env"
  echo "$hits"
  failed=1
fi

# Every lock is hptune's Mutex (include/hptune/core/mutex.h), whose guarded
# members clang's -Wthread-safety checks (make check-thread-safety); a plain
# std::mutex (or absl::Mutex) would escape the check.
hits=$(grep -rnE '(std::(recursive_|timed_|recursive_timed_|shared_|shared_timed_)?mutex|absl::Mutex)\b' \
  include src algorithms 2>/dev/null |
  grep -vE '^include/hptune/core/mutex\.h:|^[^:]+:[0-9]+:[[:space:]]*//')
if [ -n "$hits" ]; then
  echo "layering: locks are hptune::Mutex, checked by clang's -Wthread-safety"
  echo "$hits"
  failed=1
fi

# The config parser reads user text: a file (src/runner/config_file.cc),
# `hptune validate`'s input, a
# SubmitJobRequest's vertex_job (src/api/vertex_job_reading.cc, whose one
# job that is), a REST create's body (src/rest/job_body_reading.cc). A
# request's messages are read field by field; what hptune
# wrote itself is decoded (hptune/core/stored_spec.h); a typed job is judged
# by ValidateJob, never written out to be parsed back.
hits=$(grep -rnE '\b(ParseJobConfig|ParseJobResource|ParseStudySpecJson)\(' src 2>/dev/null |
  grep -vE '^src/core/config/parser\.cc:|^src/cli/commands/validate_command\.cc:|^src/api/vertex_job_reading\.cc:|^src/rest/job_body_reading\.cc:|^src/runner/config_file\.cc:' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//')
if [ -n "$hits" ]; then
  echo "layering: the config parser reads user text only; decode what hptune wrote"
  echo "$hits"
  failed=1
fi

if [ "$failed" -eq 0 ]; then echo "layering: all arrows hold"; fi
exit "$failed"
