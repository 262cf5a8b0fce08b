#!/usr/bin/env bash
# Installs locaudit for a host that runs it from cron or systemd: a release binary, the saved
# queries, the man pages and the shell completions, under a prefix (default /usr/local):
#
#   PREFIX/bin/locaudit
#   PREFIX/share/locaudit/queries/*.sql          (`locaudit query` finds them beside the binary)
#   PREFIX/share/man/man1/locaudit*.1
#   PREFIX/share/bash-completion/completions/locaudit
#   PREFIX/share/zsh/site-functions/_locaudit
#   PREFIX/share/fish/vendor_completions.d/locaudit.fish
#   PREFIX/share/locaudit/install-manifest       (what was installed: --uninstall removes exactly that)
#
#   scripts/install.sh [--prefix DIR] [--binary FILE]
#   scripts/install.sh [--prefix DIR] --uninstall
#
# It builds with `swift build -c release` (run scripts/setup.sh first on a fresh machine);
# --binary FILE installs a locaudit already built instead. Installing again replaces the
# earlier installation (what it installed and this one does not is removed). --uninstall
# removes the files of the manifest, then the folders it made that are now empty; nothing
# else. Exit 0 done, 1 failed (the message says why), 2 usage error.
set -euo pipefail

usage() { echo "usage: scripts/install.sh [--prefix DIR] [--binary FILE] [--uninstall]" >&2; exit 2; }

prefix=/usr/local
binary=
uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] && [ -n "$2" ] || usage; prefix=$2; shift 2 ;;
    --prefix=?*) prefix=${1#--prefix=}; shift ;;
    --binary) [ $# -ge 2 ] && [ -n "$2" ] || usage; binary=$2; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[ "$uninstall" = 1 ] && [ -n "$binary" ] && usage

fail() { echo "install: $*" >&2; exit 1; }

# The prefix as an absolute path (made if missing, when installing), without a trailing slash.
case "$prefix" in /*) ;; *) prefix=$PWD/$prefix ;; esac
prefix=${prefix%/}
[ -n "$prefix" ] || fail "the prefix cannot be / (give a folder such as /usr/local or \$HOME/.local)"
manifest=$prefix/share/locaudit/install-manifest

# Removes what a manifest lists: `file PATH` lines, then `dir PATH` lines (deepest first) when
# empty. A line naming a path outside the prefix is refused (a manifest edited by hand).
remove_installed() {
  local kind path
  while IFS=' ' read -r kind path; do
    case "$path" in "$prefix"/*) ;; *) echo "install: $manifest names $path, outside $prefix; left alone" >&2; continue ;; esac
    [ "$kind" = file ] || continue
    if [ -e "$path" ] || [ -L "$path" ]; then rm -f -- "$path"; fi
  done <<<"$manifest_lines"
  # Folders last, deepest first; a folder that holds anything else stays.
  grep '^dir ' <<<"$manifest_lines" | cut -c5- | sort -r | while IFS= read -r path; do
    case "$path" in "$prefix"/*) rmdir -- "$path" 2>/dev/null || true ;; esac
  done
}

# The manifest's lines, read before its files (the manifest among them) are removed.
read_manifest() { manifest_lines=$(cat -- "$manifest") || fail "cannot read $manifest."; }

if [ "$uninstall" = 1 ]; then
  [ -f "$manifest" ] || fail "nothing to uninstall under $prefix: no $manifest (scripts/install.sh --prefix $prefix writes it)."
  read_manifest
  count=$(($(grep -c "^file " <<<"$manifest_lines" || true) - 1))
  remove_installed
  echo "install: removed locaudit from $prefix ($count files)"
  exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$binary" ]; then
  command -v swift >/dev/null 2>&1 || fail "swift is not on PATH: install Swift 6 (swift.org), or give --binary FILE."
  echo "install: building a release binary (swift build -c release; a first build takes a while)" >&2
  (cd "$root" && swift build -c release --product locaudit >&2) || fail "the release build failed (see above); scripts/setup.sh installs what a build needs."
  binary=$(cd "$root" && swift build -c release --show-bin-path)/locaudit
fi
[ -f "$binary" ] && [ -x "$binary" ] || fail "$binary is not an executable file."
"$binary" --version >/dev/null 2>&1 || fail "$binary does not run (\`$binary --version\` failed)."
scratch=$(mktemp -d)
trap 'rm -rf -- "$scratch"' EXIT
# A copy first: --binary may name the installed binary, which the next step removes.
cp -- "$binary" "$scratch/locaudit" || fail "cannot copy $binary."
binary=$scratch/locaudit

# An earlier installation is replaced: what it installed goes first.
if [ -f "$manifest" ]; then read_manifest; remove_installed; fi

installed=()
made=()
# mkdir -p, remembering each folder it made (deepest last).
make_dir() {
  local dir=$1 missing=()
  while [ ! -d "$dir" ]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
  for dir in "${missing[@]}"; do mkdir -- "$dir" || fail "cannot make the folder $dir (permission? run as root for $prefix, or give --prefix \$HOME/.local)."; made+=("$dir"); done
}
# put MODE SOURCE TARGET: writes under a temporary name, then renames (a binary in use is replaced whole).
put() {
  make_dir "$(dirname "$3")"
  local temporary
  temporary="$(dirname "$3")/.$(basename "$3").install"
  cp -- "$2" "$temporary" && chmod "$1" "$temporary" && mv -f -- "$temporary" "$3" \
    || { rm -f -- "$temporary"; fail "cannot write $3 (permission? run as root for $prefix, or give --prefix \$HOME/.local)."; }
  installed+=("$3")
}

put 755 "$binary" "$prefix/bin/locaudit"
for query in "$root"/queries/*.sql; do
  put 644 "$query" "$prefix/share/locaudit/queries/$(basename "$query")"
done
for page in "$root"/docs/man/*.1; do
  put 644 "$page" "$prefix/share/man/man1/$(basename "$page")"
done
for shell in bash zsh fish; do
  "$prefix/bin/locaudit" --generate-completion-script "$shell" > "$scratch/$shell" \
    || fail "locaudit --generate-completion-script $shell failed."
done
put 644 "$scratch/bash" "$prefix/share/bash-completion/completions/locaudit"
put 644 "$scratch/zsh" "$prefix/share/zsh/site-functions/_locaudit"
put 644 "$scratch/fish" "$prefix/share/fish/vendor_completions.d/locaudit.fish"

make_dir "$(dirname "$manifest")"
{
  for path in "${installed[@]}"; do echo "file $path"; done
  echo "file $manifest"
  for dir in "${made[@]}"; do echo "dir $dir"; done
} > "$manifest.new" && mv -f -- "$manifest.new" "$manifest" || fail "cannot write $manifest."

echo "install: installed locaudit $("$prefix/bin/locaudit" --version) in $prefix (${#installed[@]} files; the list: $manifest)"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "install: $prefix/bin is not on PATH; add it, or run $prefix/bin/locaudit" >&2 ;; esac
