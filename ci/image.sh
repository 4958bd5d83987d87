#!/usr/bin/env bash
# Builds perfgate's container image (Containerfile) as localhost/perfgate:VERSION with buildah, no
# daemon (--isolation=chroot), from the Debian package of the build in build/ (cpack), and
# smoke-tests it: `buildah run` of `perfgate analyze` on the bundled example as the image's
# non-root user, its entry point and user, and its size; then the GitHub Action's image on top of it
# (ci/action.Containerfile, localhost/perfgate:VERSION-action), run as GitHub runs a container action. The base image is Debian's
# debian:bookworm-slim when a registry answers, else one made here from Debian's packages with
# mmdebstrap (minbase, without docs, man pages and locales, as the slim image) and kept as
# localhost/perfgate-base:bookworm for the next run. Prints how long each part took.
# Needs `ci/setup.sh --image` (buildah, mmdebstrap; run here) and the build's Debian packages.
# Usage: ci/image.sh [--archive FILE]   FILE: the image as a docker-archive too, for `docker load`,
#                                       `podman load` or `kind load image-archive`.
# Not part of ci/test.sh: it downloads Debian's packages (docs/install.md has a measured run).
set -euo pipefail
cd "$(dirname "$0")/.."
archive=""
case "${1:-}" in
  --archive) archive=$(realpath -m "${2:?usage: ci/image.sh [--archive FILE]}") ;;
  "") ;;
  *) echo "usage: ci/image.sh [--archive FILE]" >&2; exit 2 ;;
esac

started=$(date +%s%N)
last=$started
phase() {  # what just finished, and its time
  local now
  now=$(date +%s%N)
  printf 'ci/image.sh: %-52s %7.1f s\n' "$1" "$(((now - last) / 1000000))e-3" >&2
  last=$now
}

ci/setup.sh --image
export BUILDAH_ISOLATION=chroot
work=$(mktemp -d)
containers=()
cleanup() {
  for c in "${containers[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
phase "setup (ci/setup.sh --image)"

# ---- the package ----
[ -f build/CMakeCache.txt ] || { echo "ci/image.sh: no build/ (run ci/build.sh first)" >&2; exit 1; }
cmake --build build --target perfgate perfgate-man perfgate-changelog
mkdir -p "$work/context"
cpack -G DEB --config build/CPackConfig.cmake -B "$work/package" >/dev/null
cp "$work"/package/perfgate_*.deb "$work/context/"
deb=$(basename "$work"/context/perfgate_*.deb)
version=$(dpkg-deb -f "$work/context/$deb" Version)
phase "package $deb"

# ---- the base ----
base=docker.io/library/debian:bookworm-slim
if buildah inspect --type image "$base" >/dev/null 2>&1; then
  phase "base $base (already here)"
elif timeout 60 buildah pull -q "$base" >/dev/null 2>&1; then
  phase "base $base (pulled)"
else
  base=localhost/perfgate-base:bookworm
  if buildah inspect --type image "$base" >/dev/null 2>&1; then
    phase "base $base (made earlier)"
  else
    echo "ci/image.sh: no registry answers: making $base with mmdebstrap" >&2
    # merged-usr: /usr merged as debootstrap does it, not with the usrmerge package (which needs perl).
    mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' --aptopt='Acquire::Languages "none"' \
      bookworm "$work/base.tar" >"$work/mmdebstrap.log" 2>&1 || {
      tail -n 30 "$work/mmdebstrap.log" >&2
      exit 1
    }
    # Keep the exclusions for what the image installs later, as debian:bookworm-slim does.
    mkdir -p "$work/dpkg/etc/dpkg/dpkg.cfg.d"
    printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/info/*' \
      >"$work/dpkg/etc/dpkg/dpkg.cfg.d/slim"
    c=$(buildah from scratch)
    containers+=("$c")
    buildah add "$c" "$work/base.tar" / >/dev/null
    buildah add "$c" "$work/dpkg/etc/dpkg/dpkg.cfg.d/slim" /etc/dpkg/dpkg.cfg.d/slim >/dev/null
    buildah config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$c"
    buildah commit -q --rm "$c" "$base" >/dev/null
    containers=()
    phase "base $base (mmdebstrap, $(du -m "$work/base.tar" | cut -f1) MB tar)"
  fi
fi

# ---- the image ----
image=localhost/perfgate:$version
buildah build --quiet --isolation=chroot --layers=false --build-arg BASE="$base" --build-arg VERSION="$version" \
  -f Containerfile -t "$image" "$work/context" >"$work/build.log" 2>&1 || {
  tail -n 30 "$work/build.log" >&2
  exit 1
}
buildah tag "$image" localhost/perfgate:latest
phase "image $image (buildah build)"

# ---- smoke test ----
failed=0
expect() {  # DESCRIPTION ACTUAL EXPECTED
  if [ "$2" = "$3" ]; then echo "ok: $1" >&2; else echo "FAIL: $1: got '$2', expected '$3'" >&2; failed=1; fi
}
expect "entry point" "$(buildah inspect --type image --format '{{.OCIv1.Config.Entrypoint}}' "$image")" '[perfgate]'
expect "user" "$(buildah inspect --type image --format '{{.OCIv1.Config.User}}' "$image")" 10001:10001
c=$(buildah from "$image")
containers+=("$c")
expect "runs as uid 10001" "$(buildah run "$c" -- id -u)" 10001
expect "perfgate --version" "$(buildah run "$c" -- perfgate --version)" "perfgate $version"
code=0
buildah run "$c" -- perfgate analyze /usr/share/perfgate/examples/small_training.pt.trace.json.gz \
  --json report.json --html report.html --xlsx report.xlsx >"$work/analyze.txt" 2>&1 || code=$?
sed 's/^/  | /' "$work/analyze.txt" | tail -3 >&2
expect "perfgate analyze on the example exits 0" "$code" 0
expect "its verdict" "$(grep '^Verdict' "$work/analyze.txt" | cut -c14-31)" "PASS with warnings"
expect "the reports are written in the user's home" \
  "$(buildah run "$c" -- sh -c 'cd /home/perfgate && ls report.json report.html report.xlsx' | tr '\n' ' ')" \
  "report.html report.json report.xlsx "
phase "smoke test (buildah run)"

# ---- the documented run: rootless podman as the caller, into the caller's folder ----
# The README's command, run by a non-root user from that user's own folder: the reports must
# appear there, owned by the caller. Without --userns=keep-id --user the same run must fail
# (uid 10001 owns nothing on the host), which is why the docs give both flags. As root, the
# run is made by a throw-away user (PERFGATE_IMAGE_USER, default perfgate-ci, created with its
# subordinate ids when missing); as a non-root caller, by the caller.
podman_user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  podman_user=${PERFGATE_IMAGE_USER:-perfgate-ci}
  id "$podman_user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$podman_user"
fi
as_user() {  # COMMAND...: run as the podman user, in a login shell (its own XDG_RUNTIME_DIR, storage)
  if [ "$(id -un)" = "$podman_user" ]; then (cd "$HOME" && "$@"); else runuser -l "$podman_user" -c "$(printf '%q ' "$@")"; fi
}
shared_tar=$(mktemp /tmp/perfgate-image-XXXXXX.tar)
rm -f "$shared_tar"
buildah push -q "$image" "docker-archive:$shared_tar:localhost/perfgate:$version" >/dev/null
chmod 0644 "$shared_tar"
as_user podman load -q -i "$shared_tar" >/dev/null 2>&1
rm -f "$shared_tar"
# Hosts differ in what rootless containers may use: some (containers in containers, cgroup v1 or
# hybrid hierarchies, no /dev/net/tun) need runc with cgroupfs and no network. perfgate needs no
# network; the first set of podman options that starts the image is used and printed.
podman_opts=()
for opts in "" "--runtime runc --cgroup-manager=cgroupfs"; do
  read -r -a try <<<"$opts"
  if as_user podman "${try[@]}" run --rm --network=none "$image" --version >/dev/null 2>&1; then
    podman_opts=("${try[@]}")
    echo "ci/image.sh: rootless podman as $podman_user${opts:+ with $opts}" >&2
    break
  fi
  [ -n "$opts" ] && { echo "FAIL: rootless podman cannot start the image as $podman_user:" >&2
    as_user podman "${try[@]}" run --rm --network=none "$image" --version 2>&1 | tail -3 >&2; failed=1; }
done
if ((failed == 0)); then
  folder=$(as_user mktemp -d)
  # A folder as a user's usually is: readable by all, writable by its owner only.
  as_user chmod 0755 "$folder"
  install -m 0644 -o "$podman_user" examples/small_training.pt.trace.json.gz "$folder/"
  run_documented() {  # [PODMAN RUN FLAGS...]: the README's command in $folder, as the caller
    as_user sh -c 'cd "$1" && shift && exec podman "$@"' sh "$folder" "${podman_opts[@]}" run --rm --network=none \
      "$@" -v "$folder:/data:Z" -w /data "$image" analyze small_training.pt.trace.json.gz -q --no-progress \
      --html report.html --json report.json --xlsx report.xlsx
  }
  code=0
  run_documented >"$work/plain.txt" 2>&1 || code=$?
  expect "without --user: the container's uid 10001 cannot write the caller's folder (exit 3)" "$code" 3
  expect "  and says why (Permission denied)" "$(grep -q 'Permission denied' "$work/plain.txt" && echo yes)" yes
  code=0
  run_documented --userns=keep-id --user "$(as_user id -u):$(as_user id -g)" >"$work/caller.txt" 2>&1 || code=$?
  sed 's/^/  | /' "$work/caller.txt" | tail -2 >&2
  expect "--userns=keep-id --user: the documented run exits 0" "$code" 0
  expect "its reports are in the caller's folder, owned by the caller" \
    "$(cd "$folder" && stat -c '%n:%U' report.html report.json report.xlsx | tr '\n' ' ')" \
    "report.html:$podman_user report.json:$podman_user report.xlsx:$podman_user "
  rm -rf "$folder"
fi
phase "the documented run (rootless podman as $podman_user)"

# ---- the Action's image (ci/action.Containerfile), run as GitHub runs a container action ----
# The workspace and the file-command folder mounted, the inputs as INPUT_<NAME> (hyphens kept), the
# image's root user mapped to the caller who owns the workspace (as the runner's user owns it).
action_image=localhost/perfgate:$version-action
buildah build --quiet --isolation=chroot --layers=false --build-arg IMAGE="$image" -f ci/action.Containerfile \
  -t "$action_image" ci >"$work/action-build.log" 2>&1 || { tail -n 30 "$work/action-build.log" >&2; exit 1; }
if ((failed == 0)); then
  shared_tar=$(mktemp /tmp/perfgate-action-XXXXXX.tar)
  rm -f "$shared_tar"
  buildah push -q "$action_image" "docker-archive:$shared_tar:$action_image" >/dev/null
  chmod 0644 "$shared_tar"
  as_user podman load -q -i "$shared_tar" >/dev/null 2>&1
  rm -f "$shared_tar"
  job=$(as_user mktemp -d)
  # (One line each: as_user quotes for the user's /bin/sh, which reads no $'...\n...'.)
  as_user sh -c 'mkdir "$1/ws" "$1/files" && cp "$2" "$1/ws/" && cd "$1/files" && touch out env summary && echo "{}" >event.json' \
    sh "$job" "$PWD/examples/small_training.pt.trace.json.gz"
  code=0
  as_user podman "${podman_opts[@]}" run --rm --network=none -v "$job/ws:/github/workspace" -w /github/workspace \
    -v "$job/files:/github/file_commands" -e GITHUB_OUTPUT=/github/file_commands/out \
    -e GITHUB_ENV=/github/file_commands/env -e GITHUB_STEP_SUMMARY=/github/file_commands/summary \
    -e GITHUB_EVENT_PATH=/github/file_commands/event.json -e INPUT_PROFILES=small_training.pt.trace.json.gz \
    -e INPUT_HTML=reports/report.html -e INPUT_PR-COMMENT=reports/pr-comment.md -e INPUT_HISTORY=perfgate.db \
    -e INPUT_RECORD=true -e 'INPUT_ARGS=--label=script=train loop.py' -e INPUT_GITHUB-TOKEN=unused \
    -e INPUT_COMMENT=true "$action_image" run >"$work/action.txt" 2>&1 || code=$?
  sed 's/^/  | /' "$work/action.txt" | tail -2 >&2
  expect "the Action's image: exit 0 (the example passes with warnings)" "$code" 0
  expect "  its outputs" "$(grep -E '^(verdict|warnings)=' "$job/files/out" | tr '\n' ' ')" "verdict=warn warnings=6 "
  expect "  its reports in the workspace, owned by its owner" \
    "$(cd "$job/ws" && stat -c '%n:%U' reports/report.html reports/pr-comment.md | tr '\n' ' ')" \
    "reports/report.html:$podman_user reports/pr-comment.md:$podman_user "
  expect "  the run recorded, its label one argument with its space" \
    "$(build/perfgate history list "$job/ws/perfgate.db" | grep -c 'script=train loop.py')" 1
  expect "  the posting script ran with the image's Python (a push: no comment)" \
    "$(grep -c 'not a pull request: no comment' "$work/action.txt")" 1
  rm -rf "$job"
fi
phase "the Action's image $action_image (a container action's run)"

sizes=$(buildah images --format '{{.Size}}' "$image")
size=${sizes%%$'\n'*}
echo "ci/image.sh: $image: $size" >&2
if [ -n "$archive" ]; then
  rm -f "$archive"
  buildah push -q "$image" "docker-archive:$archive:localhost/perfgate:$version" >/dev/null
  phase "archive $archive ($(du -m "$archive" | cut -f1) MB)"
fi
printf 'ci/image.sh: total %.1f s\n' "$((($(date +%s%N) - started) / 1000000))e-3" >&2
exit "$failed"
