#!/usr/bin/env bash
# CTest Package.InstallsAndRuns: the Debian package that Package.Build made installs, runs and
# goes away. As root (and with no perfgate package on the machine already) it is installed with
# `dpkg -i`, which also proves its dependencies are met, and removed with `dpkg -r` at the end
# whatever happened; else it is unpacked into a temporary root with `dpkg -x`. Then:
# - Depends names the packages of every library the binary links and of the four it loads by soname
#   (libxlsxwriter, libpq, SQLite, ISA-L), as found on this machine independently of the build;
# - the installed perfgate writes the same JSON report as the build's on the bundled example and on
#   a shared trace, writes a workbook (libxlsxwriter loads), records a history (SQLite loads) and
#   reaches libpq;
# - every command has a man page that man renders, with the command's options;
# - the rule files are installed as shipped, and are the rules the binary applies by name;
# - bash completion completes commands, options and choices.
# Usage: tests/package/deb_test.sh SOURCE_DIR BUILD_DIR PACKAGE_DIR VERSION
set -euo pipefail
source_dir=$1
build=$2
package_dir=$3
version=$4
source "$(dirname "$0")/built_package.sh"
deb=$(built_package "$package_dir" "$version")

work=$(mktemp -d)
failures=0
passes=0
pass() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # DESCRIPTION COMMAND...: passes when the command succeeds
  local what=$1
  shift
  if "$@" >"$work/check.out" 2>&1; then pass "$what"; else fail "$what"; sed 's/^/    /' "$work/check.out" | head -20; fi
}

# ---- install ----
installed_by_test=0
release_lock() { :; }
finish() {
  if [ "$installed_by_test" = 1 ]; then
    dpkg -r perfgate >"$work/remove.log" 2>&1 || { echo "FAIL: dpkg -r perfgate"; cat "$work/remove.log"; }
  fi
  release_lock
  rm -rf "$work"
}
trap finish EXIT
if [ "$(id -u)" = 0 ] && ! dpkg-query -W -f='${Status}' perfgate 2>/dev/null | grep -q installed; then
  # One install at a time on this machine (another checkout's suite may run this test too).
  exec 9>/var/lock/perfgate-package-test.lock
  flock -w 600 9
  release_lock() { flock -u 9; }
  # dpkg refuses while apt runs elsewhere: wait for its lock a while.
  for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
    if dpkg -i "$deb" >"$work/install.log" 2>&1; then installed_by_test=1; break; fi
    # A package installed but not configurable (a dependency missing) is still removed at the end.
    if dpkg-query -W -f='${Status}' perfgate 2>/dev/null | grep -q 'unpacked\|half'; then installed_by_test=1; fi
    grep -q 'lock' "$work/install.log" || break
    sleep 5
  done
  if [ "$installed_by_test" = 1 ] && dpkg-query -W -f='${Status}' perfgate | grep -qx 'install ok installed'; then
    pass "dpkg -i installs and configures $(basename "$deb") (its dependencies are met)"
  else
    fail "dpkg -i $(basename "$deb")"
    cat "$work/install.log"
    exit 1
  fi
  root=/
else
  if [ "$(id -u)" = 0 ]; then
    echo "note: a perfgate package is installed on this machine; it is left alone, and an unpacked copy is checked"
  else
    echo "note: not root: the package is unpacked with dpkg -x into a temporary root, not installed"
  fi
  root=$work/root
  dpkg -x "$deb" "$root"
  pass "dpkg -x unpacks $(basename "$deb")"
fi
prefix=${root%/}/usr
perfgate=$prefix/bin/perfgate
[ -x "$perfgate" ] || { echo "FAIL: no $perfgate"; exit 1; }

# ---- dependencies ----
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
owner() {  # the package that holds a library file (the path dpkg knows on a merged /usr)
  local path
  path=$(readlink -f "$1")
  { dpkg-query -S "$1" 2>/dev/null || dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "/usr$path" 2>/dev/null; } |
    head -1 | cut -d: -f1
}
needs_package() {  # SONAME: Depends names the package holding it
  local file package
  file=$(ldconfig -p | awk -v s="$1" '$1 == s && /x86-64|x86_64/ {print $NF; exit}')
  [ -n "$file" ] || file=$(ldconfig -p | awk -v s="$1" '$1 == s {print $NF; exit}')
  [ -n "$file" ] || { echo "$1 is not on this machine"; return 1; }
  package=$(owner "$file")
  [ -n "$package" ] || { echo "no package holds $file"; return 1; }
  echo "$1 is in $package"
  [[ ", $depends," == *", $package "* || ", $depends," == *", $package,"* ]]
}
for soname in $(objdump -p "$perfgate" | awk '$1 == "NEEDED" {print $2}'); do
  # ld-linux and libm come with libc6, which libc.so.6 already names.
  case $soname in ld-linux*) continue ;; esac
  check "Depends names the package of the linked $soname" needs_package "$soname"
done
# The libraries perfgate opens by soname, read from the binary's strings, not from the build.
for soname in $(strings "$perfgate" | grep -Eo '^lib(xlsxwriter|pq|sqlite3|isal)\.so\.[0-9]+$' | sort -u); do
  check "Depends names the package of the dlopen'd $soname" needs_package "$soname"
done
[ "$(strings "$perfgate" | grep -Ec '^lib(xlsxwriter|pq|sqlite3|isal)\.so\.[0-9]+$')" = 4 ] ||
  fail "the binary names libxlsxwriter's, libpq's, SQLite's and ISA-L's sonames (found: $(strings "$perfgate" | grep -E '^lib(xlsxwriter|pq|sqlite3|isal)\.so'))"
check "every library of the installed binary resolves" bash -c "! ldd '$perfgate' | grep 'not found'"

# ---- the installed binary runs ----
check "perfgate --version says $version" bash -c "[ \"\$('$perfgate' --version)\" = 'perfgate $version' ]"
example=$prefix/share/perfgate/examples/small_training.pt.trace.json.gz
check "the bundled example is installed as shipped" cmp "$example" "$source_dir/examples/small_training.pt.trace.json.gz"
# A clean environment: nothing from the build tree or the test's variables.
run_installed() { env -i PATH=/usr/bin:/bin HOME="$work" "$perfgate" "$@"; }
check "the installed perfgate analyses the example (exit 0: it passes with warnings)" \
  run_installed analyze "$example" -q --json "$work/example.json" --xlsx "$work/example.xlsx" --html "$work/example.html"
"$build/perfgate" analyze "$example" -q --json "$work/example-build.json" >/dev/null 2>&1 || true
check "its JSON report equals the build tree's perfgate's" cmp "$work/example.json" "$work/example-build.json"
check "its workbook is written (libxlsxwriter loads)" bash -c "[ \"\$(head -c 2 '$work/example.xlsx')\" = PK ]"
verdict_is_readmes() {  # the README's summary of the example: passes with 6 warnings
  tr -d ' \n' <"$1" |
    grep -q '"verdict":{"status":"warn","exit_code":0,"fail_on":"error","passed":20,"warnings":6,"failures":0,'
}
check "its verdict is README's: pass with 6 warnings" verdict_is_readmes "$work/example.json"
# SQLite loads: the example's report recorded into a new history file and listed back.
check "the installed perfgate records a SQLite history (SQLite loads)" \
  bash -c "env -i PATH=/usr/bin:/bin HOME='$work' '$perfgate' history import '$work/history.sqlite' '$work/example.json' &&
    env -i PATH=/usr/bin:/bin HOME='$work' '$perfgate' history list '$work/history.sqlite' | grep -q 'A100'"
# libpq loads: a closed port on this machine gives "cannot connect", not "cannot load libpq".
run_installed history list postgresql://127.0.0.1:1/none >"$work/pq.out" 2>&1 || true
check "the installed perfgate loads libpq (a refused connection, not a missing library)" grep -q 'cannot connect' "$work/pq.out"

shared=${PERFGATE_SHARED_TRACES:-$source_dir/../shared/traces}
trace=$shared/resnet50_v100_workers0.pt.trace.json.gz
if [ -f "$trace" ]; then
  run_installed analyze "$trace" -q --json "$work/shared.json" >/dev/null 2>&1 || true
  "$build/perfgate" analyze "$trace" -q --json "$work/shared-build.json" >/dev/null 2>&1 || true
  check "on the shared ResNet-50 trace it writes a report" test -s "$work/shared.json"
  check "equal to the build tree's perfgate's" cmp "$work/shared.json" "$work/shared-build.json"
else
  echo "SKIP: the shared-trace run: no $trace (shared/traces beside the checkout, or PERFGATE_SHARED_TRACES)"
fi

# ---- man pages ----
man_dir=$prefix/share/man/man1
if [ ! -d "$man_dir" ] || ! compgen -G "$man_dir/perfgate*" >/dev/null; then
  # dpkg may be set to leave man pages out (path-exclude, as in slim container images): read the package's.
  echo "note: dpkg installed no man pages here (path-exclude?): the package's own are checked"
  dpkg-deb -x "$deb" "$work/contents"
  man_dir=$work/contents/usr/share/man/man1
fi
commands() {  # every command path, as the binary's help lists them
  printf '%s\n' "$1"
  local sub
  for sub in $("$perfgate" $1 --help | awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {sub(/,$/, "", $1); print $1}'); do
    commands "${1:+$1 }$sub"
  done
}
man_checks() {  # COMMAND: its page renders, names the command and lists each of its options
  local command=$1 page text option
  page=$man_dir/perfgate${command:+-${command// /-}}.1.gz
  [ -f "$page" ] || { echo "no $page"; return 1; }
  text=$(MANWIDTH=200 man -l "$page" 2>&1)
  grep -q "^SYNOPSIS" <<<"$text" || { echo "no SYNOPSIS in $page"; return 1; }
  grep -q "perfgate $command" <<<"$text" || { echo "$page does not show 'perfgate $command'"; return 1; }
  for option in $("$perfgate" $command --help | grep -Eo '^  +(-[a-zA-Z],)?--[a-z0-9-]+' | sed 's/.*--/--/'); do
    grep -q -- "$option" <<<"$text" || { echo "$page lacks $option"; return 1; }
  done
  lexgrog "$page" >/dev/null || { echo "whatis cannot read the NAME of $page"; return 1; }
}
pages=0
while read -r command; do
  check "man page of 'perfgate $command' renders with every option" man_checks "$command"
  pages=$((pages + 1))
done < <(commands "")
check "one man page per command ($pages), no others" bash -c "[ \$(ls '$man_dir' | grep -c '^perfgate') = $pages ]"
check "perfgate(1) names its FILES and the other pages" bash -c \
  "MANWIDTH=200 man -l '$man_dir/perfgate.1.gz' | grep -q '/usr/share/perfgate/rules/default.yaml' &&
   MANWIDTH=200 man -l '$man_dir/perfgate.1.gz' | grep -q 'perfgate-analyze(1)'"
if [ "$man_dir" = /usr/share/man/man1 ]; then
  check "man finds perfgate's page" bash -c "[ \"\$(man -w perfgate)\" = /usr/share/man/man1/perfgate.1.gz ]"
fi

# ---- rules ----
rules_dir=$prefix/share/perfgate/rules
for file in "$source_dir"/rules/*.yaml; do
  name=$(basename "$file" .yaml)
  check "rules/$name.yaml is installed as shipped" cmp "$rules_dir/$name.yaml" "$file"
  check "the installed $name.yaml checks" run_installed rules check "$rules_dir/$name.yaml"
  # The same rules whether the binary takes the built-in set by name or the installed file (the
  # first line names the sources: "default, tb-plugin" or "default, /usr/share/.../tb-plugin.yaml").
  run_installed rules print --rules "$name" | tail -n +2 >"$work/by-name.yaml"
  run_installed rules print --rules "$rules_dir/$name.yaml" | tail -n +2 >"$work/by-file.yaml"
  check "'--rules $name' applies the installed $name.yaml" cmp "$work/by-name.yaml" "$work/by-file.yaml"
done
check "only the shipped rule files are installed" \
  bash -c "[ \"\$(ls '$rules_dir')\" = \"\$(cd '$source_dir/rules' && ls *.yaml)\" ]"

# ---- bash completion ----
completion=$prefix/share/bash-completion/completions/perfgate
complete_line() {  # WORDS...: what completing the last word offers, one line
  PATH="$prefix/bin:$PATH" bash -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _perfgate; echo "${COMPREPLY[*]}"' \
    "$completion" "$@"
}
expect_completion() {  # EXPECTED WORDS...
  local expected=$1 got
  shift
  got=$(complete_line "$@")
  [ "$got" = "$expected" ] || { echo "'$*' completes to '$got', expected '$expected'"; return 1; }
}
check "completion: commands" expect_completion "analyze analyse merge metrics events rules history mcp" perfgate ""
check "completion: a command's subcommands" expect_completion "check list print" perfgate rules ""
check "completion: options" expect_completion "--html --html-assets --html-rows" perfgate analyze --htm
check "completion: an option's choices" expect_completion "error warning inconclusive never" perfgate analyze --fail-on ""
check "completion: shipped rule names" expect_completion "tb-plugin" perfgate analyze --rules tb-
check "completion: files for a profile" expect_completion "$rules_dir/default.yaml" perfgate analyze "$rules_dir/def"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
