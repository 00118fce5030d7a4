#!/usr/bin/env bash
# Builds the tests' OCI image offline, with no registry: a root file system
# of this machine's python3 (its standard library and the libraries it
# loads), dash as /bin/sh, and cluster_trainer.py as /app/, imported into
# podman's local storage with `podman import`.
#   build_test_image.sh [IMAGE]    default localhost/hptune-test/python:1
# With --stdlib-trainer, the image examples/vertex/container_job.yaml runs
# (what examples/vertex/Containerfile builds from a registry's python):
# examples/stdlib_trainer/trainer and python/src/hypertune under /app, on
# PYTHONPATH.
#   build_test_image.sh --stdlib-trainer [IMAGE]
#                                  default localhost/hptune-test/stdlib-trainer:1
# With --all, the three images the tests use, one after the other (ctest's
# fixture containers.test_images).
# An image whose inputs (this script, the trainers, python, the name) are
# unchanged is kept, not built again. Builds hold a lock on podman's
# storage, which races when images are imported and removed at once.
# Exits 77 (ctest: skipped) where podman is missing or this is not root.
set -euo pipefail
if [ "${1:-}" = --all ]; then
  "$0" && "$0" localhost/hptune-test/python-b:1 && "$0" --stdlib-trainer
  exit $?
fi
stdlib_trainer=false
if [ "${1:-}" = --stdlib-trainer ]; then
  stdlib_trainer=true
  shift
fi
default_image=localhost/hptune-test/python:1
$stdlib_trainer && default_image=localhost/hptune-test/stdlib-trainer:1
image=${1:-$default_image}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../../.." && pwd)
if ! command -v podman >/dev/null; then
  echo "podman is not installed (scripts/setup test installs it)" >&2
  exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "the container tests run as root" >&2
  exit 77
fi
python=$(readlink -f /usr/bin/python3)
version=$(basename "$python")  # python3.11
trainer_files() {
  $stdlib_trainer || return 0
  find "$source_dir/examples/stdlib_trainer/trainer" \
    "$source_dir/python/src/hypertune" -type f -not -path '*/__pycache__/*' |
    LC_ALL=C sort
}
inputs=$({
  echo "$image"
  cat "$0" "$here/cluster_trainer.py" "$python"
  trainer_files | xargs -r cat
} | sha256sum | cut -d' ' -f1)
exec 9>"${TMPDIR:-/tmp}/hptune-test-images.lock"
flock 9
built_from=$(podman image inspect --format '{{index .Labels "hptune.test.inputs"}}' \
  "$image" 2>/dev/null || true)
if [ "$built_from" = "$inputs" ]; then
  echo "$image is current"
  exit 0
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/usr/bin "$root"/usr/lib "$root"/usr/lib64 "$root"/tmp \
  "$root"/app "$root"/etc "$root"/proc "$root"/sys "$root"/dev
chmod 1777 "$root/tmp"
ln -s usr/bin "$root/bin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# A program and every library ldd says it loads, at the paths ldd names
# (through the usr-merged links above).
copy_with_libraries() {
  local file lib
  for file in "$@"; do
    for lib in $(ldd "$file" 2>/dev/null | grep -o '/[^ ]*' || true); do
      if [ ! -e "$root$lib" ]; then
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
      fi
    done
  done
}

cp "$python" "$root/usr/bin/$version"
ln -s "$version" "$root/usr/bin/python3"
cp "$(readlink -f /bin/sh)" "$root/usr/bin/dash"
ln -s dash "$root/usr/bin/sh"
copy_with_libraries "$python" /bin/sh
# glibc loads libgcc_s when a thread exits by unwinding (pthread_exit: a
# daemon thread at the interpreter's exit); ldd does not list it, and
# without it such a trainer aborts, as it would not in a real image.
libgcc_s=$(/sbin/ldconfig -p | awk '/libgcc_s\.so\.1 / && !n++ {print $NF}')
mkdir -p "$root$(dirname "$libgcc_s")"
cp -L "$libgcc_s" "$root$libgcc_s"
tar -C /usr/lib -c --exclude=__pycache__ --exclude="$version/test" \
  --exclude="$version/idlelib" --exclude="$version/tkinter" \
  --exclude="$version/lib2to3" --exclude="$version/ensurepip" \
  --exclude="$version/site-packages" --exclude="$version/dist-packages" \
  "$version" | tar -C "$root/usr/lib" -x
copy_with_libraries "$root/usr/lib/$version"/lib-dynload/*.so
cp "$here/cluster_trainer.py" "$root/app/"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
# HPTUNE_TEST_IMAGE names the image a container runs, so that a test tells
# which of two images (built from the same files) a replica ran.
changes=(--change 'WORKDIR /app' --change 'ENV PYTHONUNBUFFERED=1'
  --change "ENV HPTUNE_TEST_IMAGE=$image"
  --change "LABEL hptune.test.inputs=$inputs")
if $stdlib_trainer; then
  cp -r "$source_dir/examples/stdlib_trainer/trainer" "$root/app/trainer"
  cp -r "$source_dir/python/src/hypertune" "$root/app/hypertune"
  find "$root/app" -name __pycache__ -prune -exec rm -rf {} +
  changes+=(--change 'ENV PYTHONPATH=/app')
fi

# The image this replaces, removed once the new one holds the tag, so that
# rebuilding does not leave an untagged copy behind each time.
old_id=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
tar -C "$root" -c . |
  podman import --quiet "${changes[@]}" - "$image" >/dev/null
new_id=$(podman image inspect --format '{{.Id}}' "$image")
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
  podman rmi "$old_id" >/dev/null 2>&1 || true  # In use: kept.
fi
echo "built $image"
