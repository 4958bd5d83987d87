# shellcheck shell=bash
# Sourced by the package tests: the .deb that Package.Build made.
# built_package PACKAGE_DIR VERSION: prints its path, or says on stderr that there is none and fails.
built_package() {
  local debs=("$1"/perfgate_"$2"_*.deb)
  if [ ! -f "${debs[0]}" ]; then
    echo "FAIL: no package $1/perfgate_${2}_*.deb (Package.Build makes it)" >&2
    return 1
  fi
  printf '%s\n' "${debs[0]}"
}
