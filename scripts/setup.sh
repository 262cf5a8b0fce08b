#!/usr/bin/env bash
# Makes a machine with only Swift ready to build and run locaudit, and with --test to run
# its tests: installs what is missing with apt-get when run as root on Debian or Ubuntu,
# else says exactly what to install. Quiet when nothing is missing; exit 0 when all is
# there (or now installed), 1 when something is missing and could not be installed.
#
#   scripts/setup.sh          SQLite, zlib and ISA-L headers (the build), gzip
#   scripts/setup.sh --test   and what the tests run: python3, chromium (the HTML reports),
#                             postgresql and openssl (the push tests' own throwaway server, with TLS),
#                             python3-jsonschema (the SARIF report checked against its schema)
set -euo pipefail

case "${1-}" in
  "") test=0 ;;
  --test) test=1 ;;
  *) echo "usage: scripts/setup.sh [--test]" >&2; exit 2 ;;
esac

# Debian packages, found by dpkg; commands, found on PATH (a Debian package of the same name
# provides each). Without dpkg (not Debian: macOS has the headers with its SDK) only the
# commands are checked.
libraries=(libsqlite3-dev zlib1g-dev libisal-dev)
commands=(gzip)
if [ "$test" = 1 ]; then libraries+=(postgresql); commands+=(python3 chromium openssl); fi

missing=()
if command -v dpkg >/dev/null 2>&1; then
  for package in "${libraries[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
fi
for name in "${commands[@]}"; do
  command -v "$name" >/dev/null 2>&1 || missing+=("$name")
done
# Python modules, found by importing them; Debian's python3-NAME package provides each (pip3
# install NAME elsewhere).
if [ "$test" = 1 ]; then
  for module in jsonschema; do
    python3 -c "import $module" >/dev/null 2>&1 || missing+=("python3-$module")
  done
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing: ${missing[*]}. This system has no apt-get: install them (Debian names;" \
    "the SQLite 3, zlib and ISA-L development headers; python3-jsonschema is \`pip3 install jsonschema\`)" \
    "with its package manager, then run this again." >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup: missing: ${missing[*]}. Install them as root, then run this again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "setup: installing ${missing[*]} (apt-get)" >&2
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; }; then
  echo "setup: apt-get could not install ${missing[*]} (see its message above); fix that, then run this again." >&2
  exit 1
fi
