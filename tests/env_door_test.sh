#!/usr/bin/env bash
# Keeps Env (include/hptune/env/env.h) the one door between hptune and the
# machine -- clock, sleeps, files, permissions, process ids, entropy -- as
# docs/architecture.md ("Env: the one door") says:
#   1. no Env or Clock is a default argument or member initialiser: the
#      composition root hands it in;
#   2. DefaultEnv() and SystemClock() are called only in src/env and in the
#      composition roots (src/cli's runtime and commands);
#   3. outside src/env, a direct call to the clock, sleep, files,
#      permissions, process ids or entropy appears only where
#      tests/env_door.allow allows it, no more often than it says, and no
#      less (so the list stays true as calls move behind Env);
#   4. outside src/env, std::filesystem has no namespace alias and no using
#      directive: a call spelled fs::exists would slip past rule 3 (a
#      using-declaration of a type, such as std::filesystem::path, is fine).
# Prints each offending line and exits 1 when a rule is broken. With
# --counts, prints the per-file counts of rule 3 instead (to refresh the
# allow-list after moving calls behind Env).
set -u
root=${1:?usage: env_door_test.sh SOURCE_DIR [--counts]}
cd "$root" || exit 2
allow=tests/env_door.allow
failed=0

# Lines of code only: a comment line says nothing about what runs.
code_only() { grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|\*)'; }

# A direct call: the clock, a sleep, a file or directory operation (POSIX
# or std::filesystem, streams on files), permissions, process and user ids,
# entropy. A local alias of a std::chrono clock counts as a call: it is
# there to call now(). Method calls (x.open(), p->read()) and names that
# merely end so (Thread(), ReadNew()) do not match.
posix='open|openat|close|pread|pwrite|stat|fstat|lstat|fstatat|statx|statfs|fstatfs|rename|renameat|link|linkat|symlink|symlinkat|unlink|unlinkat|mkdir|mkdirat|rmdir|chmod|fchmod|chown|fchown|lchown|fsync|fdatasync|truncate|ftruncate|access|faccessat|readlink|realpath|opendir|fopen|mkstemp|mkdtemp|poll|ppoll|epoll_wait|getpid|getppid|getuid|geteuid|getgid|getegid|getrandom|arc4random|rand|srand|time|clock_gettime|gettimeofday|nanosleep|usleep|sleep'
fsops='exists|remove|remove_all|rename|create_directory|create_directories|file_size|is_[a-z_]+|status|symlink_status|canonical|weakly_canonical|absolute|permissions|directory_iterator|recursive_directory_iterator|last_write_time|temp_directory_path|current_path|copy|copy_file|resize_file|space|read_symlink'
pattern="(system|steady|high_resolution|utc|tai|gps|file)_clock::now|using [A-Za-z_]+ = std::chrono::[a-z_]+_clock\\b|sleep_for|sleep_until|random_device|std::[io]?fstream|std::filesystem::($fsops)\b|(^|[^A-Za-z0-9_.>:])(::)?($posix)\(|::($posix)\(|(^|[^A-Za-z0-9_.>:])(::)?(read|write)\([^\"*]"
counts=$(grep -rnE "$pattern" src include --include='*.cc' --include='*.h' |
  grep -vE '^(src/env/|include/hptune/env/)' | code_only |
  cut -d: -f1 | sort | uniq -c | awk '{print $2, $1}')
if [ "${2:-}" = "--counts" ]; then
  echo "$counts"
  exit 0
fi


hits=$(grep -rnE --include='*.h' '=[[:space:]]*&?(DefaultEnv|SystemClock)\(\)' \
  include src | code_only)
if [ -n "$hits" ]; then
  echo "env door: an Env or Clock is handed in, never defaulted"
  echo "$hits"
  failed=1
fi

# The composition roots, and the one process-wide probe no Env reaches:
# the cgroup support detected once per process (trial_cgroup.cc).
roots='^(src/env/|include/hptune/env/|src/cli/runtime\.cc:|src/cli/commands/|src/launch/local/trial_cgroup\.cc:)'
hits=$(grep -rnE '\b(DefaultEnv|SystemClock)\(\)' include src | code_only |
  grep -vE "$roots")
if [ -n "$hits" ]; then
  echo "env door: DefaultEnv() and SystemClock() belong to composition roots"
  echo "$hits"
  failed=1
fi

hits=$(grep -rnE --include='*.cc' --include='*.h' \
  'namespace[[:space:]]+[A-Za-z_]+[[:space:]]*=[[:space:]]*(::)?std::filesystem|using[[:space:]]+namespace[[:space:]]+(::)?std::filesystem' \
  src include | grep -vE '^(src/env/|include/hptune/env/)' | code_only)
if [ -n "$hits" ]; then
  echo "env door: spell std::filesystem out, so its calls are seen (rule 4)"
  echo "$hits"
  failed=1
fi

# The allow-list: "FILE COUNT" lines; # starts a comment.
allowed=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$allow" | awk '{print $1, $2}' | sort)
while read -r file count; do
  [ -z "$file" ] && continue
  limit=$(echo "$allowed" | awk -v f="$file" '$1 == f {print $2}')
  if [ -z "$limit" ]; then
    echo "env door: $file calls the machine directly ($count); go through Env"
    grep -nE "$pattern" "$file" | grep -vE '^[0-9]+:[[:space:]]*(//|\*)' | sed "s|^|$file:|"
    failed=1
  elif [ "$count" -gt "$limit" ]; then
    echo "env door: $file has $count direct calls, $limit allowed; go through Env"
    grep -nE "$pattern" "$file" | grep -vE '^[0-9]+:[[:space:]]*(//|\*)' | sed "s|^|$file:|"
    failed=1
  elif [ "$count" -lt "$limit" ]; then
    echo "env door: $file has $count direct calls, fewer than the $limit of $allow: lower it"
    failed=1
  fi
done <<< "$counts"
while read -r file limit; do
  [ -z "$file" ] && continue
  if ! echo "$counts" | awk -v f="$file" '$1 == f {found=1} END {exit !found}'; then
    echo "env door: $file has no direct call left: remove it from $allow"
    failed=1
  fi
done <<< "$allowed"

if [ "$failed" -eq 0 ]; then echo "env door: holds"; fi
exit "$failed"
