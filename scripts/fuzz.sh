#!/usr/bin/env bash
# Fuzzes every parser that reads untrusted bytes, with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh [SECONDS]    runs each target for SECONDS (default 60)
#   scripts/fuzz.sh --check      exit 0 if the sanitizer runtimes are here, 3 (and why) if not
#
# Builds fuzz/FuzzTargets.swift together with every source of LocAuditNormalise, LocAuditRead
# and LocAuditModel, every file of those targets (one module, their
# `import LocAudit…` lines dropped: no package build, no GRDB, no internals made public) with
# `swiftc -parse-as-library -sanitize=fuzzer,address`, into $FUZZ_OUT (default .build-fuzz,
# git-ignored); rebuilt only when a source changed. The targets (fuzz/FuzzTargets.swift):
# each container's record parser (idevicesyslog, log-show, log-syslog, log-ndjson,
# log-json, privacy-report, console, pymobiledevice3, pymobiledevice3-json, bsd-syslog,
# mobile-installation, message-only, sysdiagnose with its tar reader, log-compact, xcode-console) with the built-in catalog,
# message-fields, timestamps, vis, json-unescape, info-plist, ideviceinfo, detect, detect-parse (detection with the test
# tools' wrappers, then every line read or counted as skipped), gzip, message-template.
#
# Seeds: samples/, Tests/LocAuditKitTests/Fixtures/real/, Tests/LocAuditKitTests/Fixtures/wrappers/ and fuzz/seeds/ (inputs that once broke a
# parser: info-plist-bomb.plist, nine levels of shared references) (gzip inflated, cut at line
# ends into pieces of at most 4 KiB), read at run time; each target keeps the inputs it finds in
# $FUZZ_OUT/corpus/TARGET. Prints the inputs executed per target and in total; exits 1 on
# any crash, with the crashing input under $FUZZ_OUT/crashes/ and the command that replays it.
# Environment: FUZZ_OUT, FUZZ_TARGETS (a space-separated subset), FUZZ_MAX_LEN (default 8192),
# FUZZ_JOBS (targets fuzzed at once, and the build's threads; default: the number of cores).

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${FUZZ_OUT:-.build-fuzz}
JOBS=${FUZZ_JOBS:-$(nproc)}
MAX_LEN=${FUZZ_MAX_LEN:-8192}
ALL_TARGETS="idevicesyslog log-show log-syslog log-ndjson log-json privacy-report console pymobiledevice3 pymobiledevice3-json bsd-syslog mobile-installation message-only sysdiagnose log-compact xcode-console message-fields timestamps vis json-unescape info-plist ideviceinfo detect detect-parse gzip message-template"
TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}

die() { echo "fuzz: $*" >&2; exit "${2:-1}"; }

command -v swiftc >/dev/null || die "swiftc is not on PATH" 3
RESOURCES=$(swiftc -print-target-info | sed -n 's/.*"runtimeResourcePath": *"\([^"]*\)".*/\1/p' | head -n 1)
RUNTIME_DIR="$RESOURCES/clang/lib/linux"
for lib in fuzzer asan; do
    ls "$RUNTIME_DIR"/libclang_rt.$lib-*.a >/dev/null 2>&1 ||
        die "no libFuzzer/AddressSanitizer runtime (libclang_rt.$lib) in $RUNTIME_DIR: this Swift toolchain cannot fuzz" 3
done
if [[ ${1:-} == --check ]]; then
    echo "fuzz: runtimes in $RUNTIME_DIR"
    exit 0
fi
SECONDS_EACH=${1:-60}
[[ $SECONDS_EACH =~ ^[0-9]+$ && $SECONDS_EACH -gt 0 ]] || die "SECONDS must be a positive whole number (got '$SECONDS_EACH')" 2
for t in $TARGETS; do
    [[ " $ALL_TARGETS " == *" $t "* ]] || die "unknown target '$t' (targets: $ALL_TARGETS)" 2
done

# ---------------------------------------------------------------- build
# Every source of the package's targets the parsers are made of: all the Swift files under
# each target's folder, as SwiftPM takes them (Package.swift gives these targets no path and
# no exclusions), so a file added to one of them is fuzzed with no change here. (Not
# `swift package describe`: under `swift test` it waits for the lock the test run holds.)
# And the one file of LocAuditStore they use.
FUZZED_TARGETS="LocAuditModel LocAuditRead LocAuditNormalise"
PACKAGE_SOURCES=()
for target in $FUZZED_TARGETS; do
    mapfile -t -O "${#PACKAGE_SOURCES[@]}" PACKAGE_SOURCES < <(find "Sources/$target" -name '*.swift' | LC_ALL=C sort)
done
[[ ${#PACKAGE_SOURCES[@]} -gt 0 ]] || die "no sources found under Sources/ for $FUZZED_TARGETS"
SOURCES=("${PACKAGE_SOURCES[@]}" Sources/LocAuditStore/MessageTemplate.swift fuzz/FuzzTargets.swift fuzz/SHA256Stub.swift)
# Their resources compiled into the code (Package.swift's `.embedInCode`: everything under a
# target's Resources folder), as SwiftPM generates them: PackageResources.<name with _ for . and ->.
RESOURCES_IN=()
for target in $FUZZED_TARGETS; do
    [[ -d Sources/$target/Resources ]] || continue
    mapfile -t -O "${#RESOURCES_IN[@]}" RESOURCES_IN < <(find "Sources/$target/Resources" -type f | LC_ALL=C sort)
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BIN="$OUT/locaudit-fuzz"
STAMP=$(cat "${SOURCES[@]}" "${RESOURCES_IN[@]}" "$0" | sha256sum | cut -d' ' -f1)
if [[ ! -x $BIN || ! -f $OUT/.stamp || $(cat "$OUT/.stamp") != "$STAMP" ]]; then
    echo "fuzz: building $BIN" >&2
    # (ld.gold's "Cannot export local symbol '__asan_...'" warnings are harmless: in the log only.)
    # One module: the layers' `import LocAudit…` lines go, `package` stays (-package-name).
    rm -rf "$OUT/src" && mkdir -p "$OUT/src"
    # ByteStream's SHA-256 (swift-crypto, a package) is stubbed: the fuzzer checks the inflate.
    for f in "${SOURCES[@]}"; do sed '/^import LocAudit/d; /^import Crypto/d' "$f" >"$OUT/src/$(basename "$f")"; done
    {
        echo "struct PackageResources {"
        for f in "${RESOURCES_IN[@]}"; do
            name=$(basename "$f" | tr '.-' '__')
            echo "static let $name: [UInt8] = [$(od -An -v -tu1 "$f" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')]"
        done
        echo "}"
    } >"$OUT/src/embedded_resources.swift"
    ISAL=()
    [[ -f /usr/include/isa-l/igzip_lib.h ]] && ISAL=(-I "$ROOT/Sources/CIsal")
    # Whole-module, on every core: a third less time than file by file. It leaves module files
    # in the working folder, so it runs in $OUT.
    (cd "$OUT" && swiftc -parse-as-library -sanitize=fuzzer,address -O -g -wmo -num-threads "$JOBS" \
        -module-name LocAuditFuzz -package-name locaudit -I "$ROOT/Sources/CZlib" "${ISAL[@]}" \
        -o "locaudit-fuzz.$$" src/*.swift) >"$OUT/build.log" 2>&1 || { grep -v 'Cannot export local symbol' "$OUT/build.log" | tail -n 40 >&2; die "the fuzz build failed (log: $OUT/build.log)"; }
    mv -f "$BIN.$$" "$BIN"
    echo "$STAMP" >"$OUT/.stamp"
fi

# ---------------------------------------------------------------- seeds
# (A directory of this run's own, so that two runs at once do not trip over each other.)
SEEDS=$(mktemp -d "$OUT/seeds.XXXXXX")
trap 'rm -rf "$SEEDS"' EXIT
n=0
while IFS= read -r -d '' f; do
    n=$((n + 1))
    case $f in
        *.gz) gzip -dc "$f" 2>/dev/null | split -C 4096 - "$SEEDS/$n-" || true
              [[ $(stat -c %s "$f") -le $MAX_LEN ]] && cp "$f" "$SEEDS/$n-gz" ;;  # for the gzip target
        *) split -C 4096 "$f" "$SEEDS/$n-" ;;
    esac
done < <(find samples Tests/LocAuditKitTests/Fixtures/real Tests/LocAuditKitTests/Fixtures/wrappers fuzz/seeds -type f ! -name '*.md' -print0 2>/dev/null | sort -z)
echo "fuzz: $(ls "$SEEDS" | wc -l) seed inputs from $n files of samples/, Tests/LocAuditKitTests/Fixtures/{real,wrappers}/ and fuzz/seeds/" >&2

# ---------------------------------------------------------------- run
mkdir -p "$OUT/crashes" "$OUT/logs"
# One process runs at most ROUND seconds, then the next goes on from the corpus: Foundation
# leaks a CFError on every unreadable property list (LeakSanitizer shows it), so info-plist's
# memory grows by about 1 GB a minute and would end in libFuzzer's 4 GB out-of-memory stop.
ROUND=180
# Fuzzes target $1 for SECONDS_EACH; writes "inputs seconds exit-status" to $OUT/logs/$1.result.
fuzz_one() {
    local t=$1 log="$OUT/logs/$1.log" rc=0 runs=0 left=$SECONDS_EACH slice n start
    mkdir -p "$OUT/corpus/$t"
    start=$(date +%s)
    while ((left > 0 && rc == 0)); do
        slice=$((left < ROUND ? left : ROUND))
        left=$((left - slice))
        LOCAUDIT_FUZZ_TARGET=$t ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
            "$BIN" -max_total_time="$slice" -max_len="$MAX_LEN" -timeout=20 -rss_limit_mb=4096 \
            -print_final_stats=1 -artifact_prefix="$OUT/crashes/$t-" "$OUT/corpus/$t" "$SEEDS" >"$log" 2>&1 || rc=$?
        n=$(awk '/^stat::number_of_executed_units:/ { print $NF }' "$log" | tail -n 1)
        runs=$((runs + ${n:-0}))
    done
    echo "$runs $(( $(date +%s) - start )) $rc" >"$OUT/logs/$t.result"
}
# FUZZ_JOBS targets at a time (default: one per core; each libFuzzer process uses one).
running=0
for t in $TARGETS; do
    rm -f "$OUT/logs/$t.result"
    if ((running >= JOBS)); then wait -n || true; running=$((running - 1)); fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait
TOTAL=0 CRASHES=0 RAN=0
printf '%-20s %12s  %s\n' target inputs seconds
for t in $TARGETS; do
    read -r runs took rc <"$OUT/logs/$t.result" || { runs=0 took=0 rc=1; }
    TOTAL=$((TOTAL + runs))
    RAN=$((RAN + 1))
    printf '%-20s %12s  %s\n' "$t" "$runs" "$took"
    if ((rc != 0)); then
        CRASHES=$((CRASHES + 1))
        log="$OUT/logs/$t.log"
        artifact=$(grep -o "Test unit written to .*" "$log" | tail -n 1 | sed 's/Test unit written to //')
        echo "fuzz: $t CRASHED (exit $rc); input: ${artifact:-see $log}" >&2
        echo "fuzz:   replay: LOCAUDIT_FUZZ_TARGET=$t $BIN ${artifact:-CRASH-FILE}; log: $log" >&2
        grep -m 5 -E "ERROR: |Fatal error|SUMMARY" "$log" >&2 || true
    fi
done
echo "total: $TOTAL inputs in $RAN targets, $SECONDS_EACH s each, $CRASHES crashed"
((CRASHES == 0)) || exit 1
