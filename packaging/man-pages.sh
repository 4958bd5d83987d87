#!/bin/sh
# Writes a man page per command of PERFGATE into OUTDIR, gzipped: perfgate.1.gz, perfgate-analyze.1.gz,
# perfgate-rules-check.1.gz, ... (one per --help text, as podman names its pages). help2man turns each
# command's --help into roff, so a page says exactly what the binary's help says; the commands are
# found from the "Subcommands:" sections, so a new command gets its page without a change here.
# The build runs this after linking perfgate (CMakeLists.txt, target perfgate-man).
# Usage: packaging/man-pages.sh PERFGATE OUTDIR VERSION
set -eu
perfgate=$1
out=$2
version=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rm -f "$out"/*.1 "$out"/*.1.gz

# The commands below COMMAND ("" for the top level), one per line: "rules check" etc.
subcommands() {
  # shellcheck disable=SC2086  # the command's words are meant to split
  "$perfgate" $1 --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {sub(/,$/, "", $1); print $1} on && /^$/ {exit}'
}
commands() {
  printf '%s\n' "$1"
  for sub in $(subcommands "$1"); do commands "${1:+$1 }$sub"; done
}

pages=$(commands "" | while read -r command; do echo "perfgate${command:+-$(echo "$command" | tr ' ' -)}"; done)

# SEE ALSO: every other page.
see_also() {
  echo "$pages" | grep -vx "$1" | sed 's/$/ (1)/; s/^/.BR /; $!s/$/,/'
}

commands "" | while read -r command; do
  page="perfgate${command:+-$(echo "$command" | tr ' ' -)}"
  # The first line of a command's help says what it does; the top level's is the program's summary.
  summary=$("$perfgate" $command --help | head -n 1 | sed 's/^perfgate: //')
  include=$(mktemp)
  if [ -z "$command" ]; then cat "$here/man-extra.h2m" >"$include"; fi
  printf '[SEE ALSO]\n%s\n' "$(see_also "$page")" >>"$include"
  help2man --no-info --name="$summary" --help-option="$command --help" --version-string="$page $version" \
    --source="perfgate $version" --manual="perfgate manual" --include="$include" "$perfgate" >"$out/$page.1"
  rm -f "$include"
  gzip -9n "$out/$page.1"
done
