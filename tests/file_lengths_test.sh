#!/usr/bin/env bash
# Keeps the product's files small (docs/architecture.md, "Conventions"): no
# C++ file (.h, .cc) under src/, algorithms/ or include/, nor a JavaScript
# file of the dashboard, over 600 lines. A file that outgrows it is split by
# what it does, one purpose a file, not cut in halves.
# Prints each file over the limit with its line count and exits 1 when there
# is one.
set -u
root=${1:?usage: file_lengths_test.sh SOURCE_DIR}
cd "$root" || exit 2
limit=600
dirs=(src algorithms include)
failed=0

# A folder that moved would otherwise be checked by nothing.
for dir in "${dirs[@]}"; do
  if [ ! -d "$dir" ]; then
    echo "file_lengths: no folder $dir"
    failed=1
  fi
done

# One wc for all files (a line each, "N PATH"; wc adds a total per batch).
over=$(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.cc' -o -name '*.js' \) \
  -print0 2>/dev/null | sort -z | xargs -0 wc -l |
  awk -v limit="$limit" '$2 != "total" && $1 > limit {
    printf "file_lengths: %s has %d lines, more than %d; split it by what it does\n", $2, $1, limit
  }')
if [ -n "$over" ]; then
  echo "$over"
  failed=1
fi

if [ "$failed" -eq 0 ]; then echo "file_lengths: no file over $limit lines"; fi
exit "$failed"
