#!/usr/bin/env bash
# CTest Package.Lintian: Debian's lintian finds no error and no warning in the package that
# Package.Build made (issue #44: embedded zlib, a Maintainer without an e-mail address, no
# copyright file, no changelog; hardening: bindnow, PIE, fortify). Informational tags are printed.
# It also checks what lintian does not: zlib and SQLite come from Debian's shared libraries (zlib
# linked, SQLite opened by its soname when first used: src/io/sqlite_library.h), and the changelog's
# version is the package's.
# Usage: tests/package/lintian_test.sh PACKAGE_DIR VERSION
# Skips (exit 77) without lintian (apt-get install lintian; ci/setup.sh --tests).
set -euo pipefail
package_dir=$1
version=$2
source "$(dirname "$0")/built_package.sh"
deb=$(built_package "$package_dir" "$version")
command -v lintian >/dev/null || { echo "SKIP: lintian is not installed"; exit 77; }
failures=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --tag-display-limit 0: every tag; -I: informational tags too, to see them; --fail-on: the gate.
if lintian --tag-display-limit 0 -I --fail-on error,warning "$deb" >"$work/lintian.out" 2>&1; then
  echo "ok: lintian: no errors, no warnings"
else
  echo "FAIL: lintian reports errors or warnings"
  failures=$((failures + 1))
fi
sed 's/^/    lintian: /' "$work/lintian.out"

dpkg-deb -x "$deb" "$work/root"
needed=$(objdump -p "$work/root/usr/bin/perfgate" | awk '$1 == "NEEDED" {print $2}')
# Into a file, not a pipe: under pipefail, `strings | grep -q` fails when grep stops reading early.
strings "$work/root/usr/bin/perfgate" >"$work/strings"
if grep -qx libz.so.1 <<<"$needed"; then echo "ok: perfgate links Debian's libz.so.1"; else
  echo "FAIL: perfgate does not link libz.so.1 (a copy in the binary?)"; failures=$((failures + 1)); fi
if grep -qx 'libsqlite3\.so\.0' "$work/strings"; then echo "ok: perfgate opens Debian's libsqlite3.so.0"; else
  echo "FAIL: perfgate does not name libsqlite3.so.0 (a copy in the binary?)"; failures=$((failures + 1)); fi
# zlib's notice and SQLite's own error messages (its file header and its function names are in
# perfgate too: the readers' sniff, and dlsym's arguments).
if grep -q 'deflate [0-9.]* Copyright\|unable to open database file\|database disk image is malformed' "$work/strings"; then
  echo "FAIL: the binary holds zlib's or SQLite's code"
  failures=$((failures + 1))
else
  echo "ok: no zlib or SQLite code in the binary"
fi
changelog_version=$(gzip -dc "$work/root/usr/share/doc/perfgate/changelog.gz" | sed -n '1s/^perfgate (\([^)]*\)).*/\1/p')
if [ "$changelog_version" = "$version" ]; then echo "ok: the changelog's version is $version"; else
  echo "FAIL: the changelog's version is '$changelog_version', the package's $version"; failures=$((failures + 1)); fi
depends=$(dpkg-deb -f "$deb" Depends)
for package in zlib1g libsqlite3-0; do
  if [[ $depends == *"$package"* ]]; then echo "ok: Depends names $package"; else
    echo "FAIL: Depends does not name $package: $depends"; failures=$((failures + 1)); fi
done
echo "$failures failed"
[ "$failures" = 0 ]
