#!/usr/bin/env bash
# The ingest benchmark: ratios to a reference on the same machine, not absolute times.
#
#   scripts/bench.sh [SIZE]        SIZE: bytes or K/M/G suffix (powers of 1024), default 1G
#
# 1. builds `swift build -c release` and uses .build/release/locaudit
#    (LOCAUDIT_BIN=/path/to/locaudit skips the build and uses that binary);
# 2. generates, once, under bench/out/ (git-ignored): a single fleet file of SIZE (8% of
#    its lines location events), one of SIZE at 2%, one of 2xSIZE, and a 4-device set of
#    SIZE/4 each (scripts/generate_fleet.py; regenerated when the generator or the arguments
#    change);
# 3. measures wall time and peak RSS of the references, run in this invocation: `gzip -dc`,
#    zlib inflating in-process and counting lines (scripts/bench/zcount.c, compiled here with
#    gcc against zlib) and `igzip -dc` (ISA-L) when installed; and of locaudit: a fresh ingest
#    (8% and 2%), the 2xSIZE ingest, a re-ingest, the 4 files with --jobs 1 and --jobs 2,
#    `locaudit run` on the 4-device inbox with --jobs 1 and --jobs 2 (and again, with nothing
#    new), and an audit; and the store's bytes per event on disk;
# 4. push (when PostgreSQL's programs are installed: scripts/setup.sh --test): starts a
#    throwaway cluster (initdb in a temporary folder, Unix socket only, stopped at the end
#    even on failure), `locaudit push`es the audited 1x store into it, then, as the reference,
#    loads the same events (the local `events` view exported in COPY's text format, not timed)
#    with `psql \copy` into an empty table of the same columns; prints rows/s of both and the
#    ratio (and, for information, \copy into a table with the central events' indexes);
# 4b. the fleet's audit (with PostgreSQL): BENCH_NIGHTS (default 6) nights of a 4-device fleet,
#    3/16 of SIZE each (192 MiB at 1G), pushed night after night into a throwaway cluster, each
#    followed by a timed `audit --db postgresql://…`; the last night's against a local audit of that
#    night alone (median of 3, fresh copies): target <= 1.5x, whatever the history; then
#    `prune --db postgresql://…` of all but the last two nights and the audit after it;
# 5. before and after (LOCAUDIT_BEFORE_BIN=/path/to/an/older/locaudit): each binary ingests the
#    1x fleet file into its own store (untimed: neither opens the other's schema), audits it once
#    untimed (warm-up), then the two audits are timed alternately, before then after,
#    BENCH_AUDIT_RUNS times each (default 5); prints each one's median time, events/s (of its
#    own store's events), peak RSS (the largest of its runs) and events/s after / before
#    (target >= 0.90). The two may find different things (rules change): this compares speed
#    only; each audit must exit 0 or 1 (1 = findings). When the generator has changed what it
#    writes since the before binary, the two stores hold different events (the old binary skips
#    lines it does not know): BENCH_GENERATOR=the before commit's generate_fleet.py writes a file
#    both read alike;
# 6. prints `name  value  target  ok/MISS` per figure and a summary line.
#
# A MISS does not change the exit status (this is a report); a failing command does (exit 1).
# Environment: LOCAUDIT_BIN (skip the build), BENCH_OUT (default bench/out), BENCH_SEED (default 1),
# BENCH_TIME_BIN (default /usr/bin/time; a missing one switches to /proc polling),
# BENCH_ONLY=push (only the push: ingests and audits the 1x store untimed, then step 4),
# BENCH_ONLY=central (only step 4b), BENCH_NIGHTS (default 6),
# LOCAUDIT_BEFORE_BIN (step 5, after the audit), BENCH_AUDIT_RUNS (default 5),
# BENCH_GENERATOR (default scripts/generate_fleet.py; another's needs its locsynth.py beside it:
# use another BENCH_OUT, or the cached fleets are regenerated),
# BENCH_AUDIT_LARGE=SIZE (with BENCH_ONLY=audit): memory flat in the size of the logs: a single fleet
# file of SIZE too (generated once, like the others), ingested and audited once by this binary;
# prints its peak RSS, against the 1x audit's (target: <= 150 MB and at most 1.1x the 1x figure),
# and its events/s; and the peak RSS of its ingest against the 1x file's (the same targets),
# BENCH_ONLY=audit (only step 5, on the 1x fleet alone; needs LOCAUDIT_BEFORE_BIN), e.g.
#   BENCH_ONLY=audit LOCAUDIT_BIN=.build/release/locaudit LOCAUDIT_BEFORE_BIN=../old/.build/release/locaudit scripts/bench.sh 1G
# BENCH_ONLY=ingest (only the fresh ingests of the 8% and 2% files, each after its own
# `gzip -dc`: wall and CPU ratios and peak RSS; with LOCAUDIT_BEFORE_BIN, that binary's
# ingest of each file too, right after this one's, BENCH_INGEST_RUNS times (default 1)).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${BENCH_OUT:-bench/out}
SEED=${BENCH_SEED:-1}
SIZE_ARG=${1:-1G}

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

to_bytes() {
    local s=$1 n u
    [[ $s =~ ^([0-9]+)([KkMmGg]?)$ ]] || return 1
    n=${BASH_REMATCH[1]}
    u=${BASH_REMATCH[2]^^}
    case $u in
        K) n=$((n << 10)) ;;
        M) n=$((n << 20)) ;;
        G) n=$((n << 30)) ;;
    esac
    echo "$n"
}

human() { awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u); i = 1; while (b >= 1024 && i < 5) { b /= 1024; i++ } printf (i == 1 ? "%d %s" : "%.1f %s"), b, u[i] }'; }

SIZE=$(to_bytes "$SIZE_ARG") || die "SIZE must be a byte count or a number with K, M or G (got '$SIZE_ARG')"
((SIZE > 0)) || die "SIZE must be positive"
SIZE2=$((SIZE * 2))

case ${BENCH_ONLY:-} in
    "" | push | central | ingest) ;;
    audit) [[ -n ${LOCAUDIT_BEFORE_BIN:-} ]] || die "BENCH_ONLY=audit compares with LOCAUDIT_BEFORE_BIN: set it to an older locaudit" ;;
    *) die "BENCH_ONLY must be push, central, audit or ingest (got '$BENCH_ONLY')" ;;
esac
AUDIT_RUNS=${BENCH_AUDIT_RUNS:-5}
[[ $AUDIT_RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_AUDIT_RUNS must be a positive count (got '$AUDIT_RUNS')"

command -v python3 >/dev/null || die "python3 is needed to generate the fleet"
command -v gzip >/dev/null || die "gzip is needed for the reference"

# ---------------------------------------------------------------- timing
# run_timed LABEL STDOUT-FILE CMD... : sets T_WALL (seconds), T_RSS_KB and T_CPU (user + system
# seconds, empty without GNU time); exits on failure.
TIME_BIN=${BENCH_TIME_BIN:-/usr/bin/time}
if [[ -x $TIME_BIN ]] && $TIME_BIN -f '%M' -o /dev/null true 2>/dev/null; then
    HAVE_TIME=1
else
    HAVE_TIME=0
    note "/usr/bin/time (GNU time) not found: peak RSS comes from polling /proc/PID/status (VmHWM), an"
    note "approximation; for exact figures install it: apt-get install time"
fi

now() { if [[ -n ${EPOCHREALTIME:-} ]]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi; }

mkdir -p "$OUT/logs" "$OUT/db"
TMPD=$(mktemp -d "$OUT/tmp.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

run_timed() {
    local label=$1 stdout=$2
    shift 2
    local errf="$OUT/logs/$label.stderr" tf="$TMPD/time" t0 t1 rc=0
    : >"$errf"
    t0=$(now)
    if ((HAVE_TIME)); then
        $TIME_BIN -f '%U %S %M' -o "$tf" "$@" >"$stdout" 2>"$errf" || rc=$?
        t1=$(now)
        local u s m
        read -r u s m < <(tail -n 1 "$tf" 2>/dev/null || true) || true
        T_RSS_KB=${m:-0}
        [[ $T_RSS_KB =~ ^[0-9]+$ ]] || T_RSS_KB=0
        T_CPU=$(awk -v u="${u:-}" -v s="${s:-}" 'BEGIN { if (u == "" || s == "") print ""; else printf "%.2f", u + s }')
    else
        local pid hwm=0 v
        "$@" >"$stdout" 2>"$errf" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
            v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
            [[ -n $v ]] && ((v > hwm)) && hwm=$v
            sleep 0.02
        done
        wait "$pid" || rc=$?
        t1=$(now)
        T_RSS_KB=$hwm
        T_CPU=""
    fi
    T_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if ((rc != 0)); then
        echo "bench: '$*' failed with exit status $rc; last lines of its stderr ($errf):" >&2
        tail -n 20 "$errf" >&2 || true
        exit 1
    fi
}

# ---------------------------------------------------------------- figures
FIGS=0 OKS=0 MISSES=0
ROWS=()
# figure NAME VALUE TARGET-TEXT OP LIMIT   (OP: le / ge / info)
figure() {
    local name=$1 value=$2 target=$3 op=$4 limit=${5:-0} status
    case $op in
        le) status=$(awk -v v="$value" -v l="$limit" 'BEGIN { print (v <= l) ? "ok" : "MISS" }') ;;
        ge) status=$(awk -v v="$value" -v l="$limit" 'BEGIN { print (v >= l) ? "ok" : "MISS" }') ;;
        *) status=info ;;
    esac
    case $status in
        ok) OKS=$((OKS + 1)); FIGS=$((FIGS + 1)) ;;
        MISS) MISSES=$((MISSES + 1)); FIGS=$((FIGS + 1)) ;;
    esac
    ROWS+=("$(printf '%-34s %12s  %-12s %s' "$name" "$value" "$target" "$status")")
    printf '%-34s %12s  %-12s %s\n' "$name" "$value" "$target" "$status"
}
count_events() {
    python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select count(*) from events").fetchone()[0])' "$1"
}
# store_bytes_per_event DB EVENTS: the database, its WAL and shared memory on disk, after a checkpoint
store_bytes_per_event() {
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("pragma wal_checkpoint(truncate)"); c.close()' "$1"
    local bytes
    bytes=$(cat "$1" "$1-wal" "$1-shm" 2>/dev/null | wc -c)
    awk -v b="$bytes" -v n="$2" 'BEGIN { if (n <= 0) n = 1; printf "%.0f", b / n }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.3f", a / b }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# ---------------------------------------------------------------- build
if [[ -n ${LOCAUDIT_BIN:-} ]]; then
    BIN=$LOCAUDIT_BIN
    [[ -x $BIN ]] || die "LOCAUDIT_BIN=$BIN is not an executable"
    note "using LOCAUDIT_BIN=$BIN (no build)"
else
    command -v swift >/dev/null || die "swift is not on PATH (or set LOCAUDIT_BIN)"
    note "building: swift build -c release"
    swift build -c release >&2 || die "swift build -c release failed"
    BIN=$(swift build -c release --show-bin-path)/locaudit
    [[ -x $BIN ]] || die "no executable at $BIN after the build"
fi
BEFORE_BIN=${LOCAUDIT_BEFORE_BIN:-}
if [[ -n $BEFORE_BIN ]]; then
    [[ -x $BEFORE_BIN ]] || die "LOCAUDIT_BEFORE_BIN=$BEFORE_BIN is not an executable"
    note "comparing the $([[ ${BENCH_ONLY:-} == ingest ]] && echo ingest || echo audit) with LOCAUDIT_BEFORE_BIN=$BEFORE_BIN"
fi

# ---------------------------------------------------------------- fleets (cached)
GEN=${BENCH_GENERATOR:-scripts/generate_fleet.py}
[[ -f $GEN && -f $(dirname "$GEN")/locsynth.py ]] || die "BENCH_GENERATOR=$GEN: no such generator, or no locsynth.py beside it"
# the generator and the module it imports: a change to either regenerates the fleets
GEN_SUM=$(cat "$GEN" "$(dirname "$GEN")/locsynth.py" | sha256sum | cut -d' ' -f1)

# fleet DIR ARGS... : generate unless DIR/.stamp records the same generator and arguments
fleet() {
    local dir=$1
    shift
    local stamp="$GEN_SUM $*"
    if [[ -f $dir/.stamp && $(cat "$dir/.stamp") == "$stamp" ]]; then
        note "cached: $dir"
        return
    fi
    rm -rf "$dir"
    note "generating $dir: $GEN $*"
    python3 "$GEN" --out "$dir" "$@" || die "fleet generation failed ($dir)"
    echo "$stamp" >"$dir/.stamp"
}

D1="$OUT/fleet-single-$SIZE"
D2="$OUT/fleet-single-$SIZE2"
D4="$OUT/fleet-x4-$SIZE"
D1L="$OUT/fleet-single-2pct-$SIZE"
if [[ ${BENCH_ONLY:-} == central ]]; then
    # the fleet's audit generates its own nights
    F1="" F1L="" F2="" F4=()
else
    fleet "$D1" --size "$SIZE" --single --seed "$SEED"
    F1=$(ls "$D1"/*.log.gz)
fi
if [[ ${BENCH_ONLY:-} == audit || ${BENCH_ONLY:-} == central ]]; then
    # the before-and-after audit needs the 1x file alone
    F1L="" F2="" F4=()
elif [[ ${BENCH_ONLY:-} == ingest ]]; then
    fleet "$D1L" --size "$SIZE" --single --seed "$SEED" --location-share 0.02
    F1L=$(ls "$D1L"/*.log.gz)
    F2="" F4=()
else
    fleet "$D1L" --size "$SIZE" --single --seed "$SEED" --location-share 0.02
    fleet "$D2" --size "$SIZE2" --single --seed "$SEED"
    fleet "$D4" --size "$SIZE" --devices 4 --seed "$SEED"
    F1L=$(ls "$D1L"/*.log.gz)
    F2=$(ls "$D2"/*.log.gz)
    mapfile -t F4 < <(ls "$D4"/*.log.gz)
    [[ ${#F4[@]} -eq 4 ]] || die "expected 4 files in $D4, found ${#F4[@]}"
fi

# warm the page cache so that the first measurement is not a disk read
cat ${F1:+"$F1"} ${F1L:+"$F1L"} ${F2:+"$F2"} "${F4[@]}" </dev/null >/dev/null

# the in-process reference: zlib inflating and counting lines, compiled here
ZCOUNT=""
if command -v gcc >/dev/null && mkdir -p "$OUT/bin" &&
   gcc -O2 scripts/bench/zcount.c -lz -o "$OUT/bin/zcount" 2>"$OUT/logs/zcount-build.stderr"; then
    ZCOUNT="$OUT/bin/zcount"
else
    note "cannot build scripts/bench/zcount.c (gcc and zlib1g-dev needed): no in-process zlib reference"
fi
IGZIP=$(command -v igzip || true)
[[ -n $IGZIP ]] || note "igzip not installed (Debian: apt-get install isal): no ISA-L reference"

echo
echo "locaudit ingest benchmark: SIZE=$SIZE_ARG ($(human "$SIZE") uncompressed${F1:+, $(human "$(stat -c %s "$F1")") gzipped}), $(nproc) CPUs"
echo "binary: $BIN"
[[ -z $BEFORE_BIN ]] || echo "before binary: $BEFORE_BIN"
printf '%-34s %12s  %-12s %s\n' "figure" "value" "target" "status"

DB1="$OUT/db/single.sqlite" DB1L="$OUT/db/single-2pct.sqlite" DB2="$OUT/db/double.sqlite" DBJ1="$OUT/db/jobs1.sqlite" DBJ2="$OUT/db/jobs2.sqlite"
DBR1="$OUT/db/run-jobs1.sqlite" DBR2="$OUT/db/run-jobs2.sqlite"
rm -f "$OUT"/db/*.sqlite "$OUT"/db/*.sqlite-wal "$OUT"/db/*.sqlite-shm "$OUT"/db/*.sqlite-journal "$OUT"/db/*.sqlite.lock

# ---------------------------------------------------------------- push
# push_section DB: locaudit push of DB (ingested and audited) into a throwaway PostgreSQL
# cluster, against `psql \copy` of the same events into the same cluster.
PGBIN="" PGDIR=""
pg_stop() {
    [[ -n $PGDIR ]] || return 0
    as_postgres "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$PGDIR"
    PGDIR=""
}
# the server's programs refuse root: as root they run as postgres
as_postgres() { if ((EUID == 0)); then (cd "$PGDIR" && runuser -u postgres -- "$@"); else "$@"; fi; }
# pg_start LABEL: a throwaway cluster (initdb in a temporary folder, Unix socket only, stopped
# at the end even on failure); sets PGURL and PG (psql's command line); false without PostgreSQL
pg_start() {
    local label=$1 v
    for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
        [[ -x /usr/lib/postgresql/$v/bin/pg_ctl ]] && { PGBIN=/usr/lib/postgresql/$v/bin; break; }
    done
    if [[ -z $PGBIN ]]; then
        note "PostgreSQL is not installed (scripts/setup.sh --test installs it): no $label figures"
        return 1
    fi
    # short: a Unix socket's path holds at most 107 bytes
    PGDIR=$(mktemp -d /tmp/bench-pg.XXXXXX)
    trap 'pg_stop; rm -rf "$TMPD"' EXIT
    ((EUID == 0)) && chown postgres: "$PGDIR"
    as_postgres "$PGBIN/initdb" -D "$PGDIR/data" -U bench --auth trust --encoding UTF8 --no-sync >"$OUT/logs/$label-initdb.log" 2>&1 ||
        die "initdb failed ($OUT/logs/$label-initdb.log)"
    as_postgres "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -o "-k $PGDIR -c listen_addresses=''" -w -t 60 start \
        >"$OUT/logs/$label-pg_ctl.log" 2>&1 || die "pg_ctl start failed ($OUT/logs/$label-pg_ctl.log, $PGDIR/log)"
    PGURL="postgresql://bench@localhost/postgres?host=$PGDIR"
    PG=("$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PGDIR" -U bench -d postgres)
}
push_section() {
    local db=$1
    pg_start push || return 0
    local url=$PGURL pg=("${PG[@]}")
    # the schema first, untimed: the figure is the copy
    env HOME=/nonexistent "$BIN" push --migrate-only --to "$url" >/dev/null 2>"$OUT/logs/push-migrate.stderr" ||
        die "push --migrate-only failed ($OUT/logs/push-migrate.stderr)"
    run_timed push "$OUT/logs/push.json" env HOME=/nonexistent "$BIN" push --db "$db" --to "$url" --json
    local push_s=$T_WALL push_rss=$T_RSS_KB rows events
    rows=$(python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1]))["rows"].values()))' "$OUT/logs/push.json")
    events=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rows"]["events"])' "$OUT/logs/push.json")
    [[ $events == "$(count_events "$db")" ]] || die "push copied $events events of $(count_events "$db") ($OUT/logs/push.json)"
    # the reference: the same events, the columns push sends, by psql \copy
    local columns
    columns=$("${pg[@]}" -c "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns
        WHERE table_schema = 'locaudit' AND table_name = 'event_rows' AND column_name NOT IN ('id', 'source_id')")
    python3 -c '
import sqlite3, sys
def field(v):
    if v is None: return "\\N"
    if isinstance(v, bytes): v = v.decode("utf-8", "replace")
    if isinstance(v, float): return repr(v)
    return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r").replace("\0", "\ufffd")
with open(sys.argv[3], "w", encoding="utf-8", newline="") as out:
    for row in sqlite3.connect(sys.argv[1]).execute("SELECT " + sys.argv[2] + " FROM events"):
        out.write("\t".join(map(field, row)) + "\n")
' "$db" "$columns" "$TMPD/events.copy" || die "exporting the events for the \\copy reference failed"
    "${pg[@]}" -c "CREATE TABLE public.bench_plain AS SELECT $columns FROM locaudit.event_rows WITH NO DATA" \
        -c "CREATE TABLE public.bench_indexed (LIKE locaudit.event_rows INCLUDING ALL)" >/dev/null || die "creating the \\copy tables failed"
    run_timed push-copy-reference /dev/null "${pg[@]}" -c "\\copy public.bench_plain ($columns) FROM '$TMPD/events.copy'"
    local copy_s=$T_WALL
    # source_id is NOT NULL there: all rows to the first source
    "${pg[@]}" -c "ALTER TABLE public.bench_indexed ALTER COLUMN source_id SET DEFAULT 1" >/dev/null
    run_timed push-copy-indexed /dev/null "${pg[@]}" -c "\\copy public.bench_indexed ($columns) FROM '$TMPD/events.copy'"
    local indexed_s=$T_WALL
    [[ $("${pg[@]}" -c "SELECT count(*) FROM public.bench_plain") == "$events" ]] || die "\\copy loaded a different number of events"
    per_s() { awk -v n="$1" -v t="$2" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", n / t }'; }
    figure "push (s)" "$push_s" "-" info
    figure "push rows/s (all tables)" "$(per_s "$rows" "$push_s")" "-" info
    figure "push events/s" "$(per_s "$events" "$push_s")" "-" info
    figure "psql \\copy events/s" "$(per_s "$events" "$copy_s")" "-" info
    figure "push / psql \\copy" "$(ratio "$push_s" "$copy_s")" "<= 3x" le 3
    figure "  \\copy indexed / \\copy" "$(ratio "$indexed_s" "$copy_s")" "-" info
    figure "push peak RSS (MB)" "$(mb "$push_rss")" "<= 150" le 150
    pg_stop
}

# ---------------------------------------------------------------- the fleet's audit, night after night
# central_section: a 4-device fleet, NIGHTS nights of CENTRAL_NIGHT bytes each (3/16 of SIZE: 192 MiB
# at 1G), pushed night after night by one host into a throwaway cluster, each night followed by
# `audit --db postgresql://…` (the fleet's audit, timed); the reference is a local audit of the last
# night alone, in a store of its own (the median of 3, each on a fresh copy of that store). Target:
# the last night's fleet audit <= 1.5x that, whatever the history (the earlier nights' times are
# printed too). Then `prune --db postgresql://…` of all but the last two nights, and the audit after it.
central_section() {
    local nights=${BENCH_NIGHTS:-6} night_size=$((SIZE * 3 / 16)) n date dir host="$OUT/db/central-host.sqlite" last="$OUT/db/central-last.sqlite"
    pg_start central || return 0
    rm -f "$host" "$host"-wal "$host"-shm "$last" "$last"-wal "$last"-shm
    env HOME=/nonexistent "$BIN" push --migrate-only --to "$PGURL" >/dev/null 2>"$OUT/logs/central-migrate.stderr" ||
        die "push --migrate-only failed ($OUT/logs/central-migrate.stderr)"
    local times=() lastdir=""
    for ((n = 1; n <= nights; n++)); do
        date=$(date -u -d "2026-11-01 + $((n - 1)) days" +%F)
        dir="$OUT/fleet-nights-$night_size/$date"
        fleet "$dir" --size "$night_size" --devices 4 --seed "$SEED" --date "$date"
        "$BIN" ingest --db "$host" --quiet "$dir" >/dev/null 2>"$OUT/logs/central-ingest-$n.stderr" || die "ingest of night $n failed"
        env HOME=/nonexistent "$BIN" push --db "$host" --to "$PGURL" >/dev/null 2>"$OUT/logs/central-push-$n.stderr" ||
            die "push of night $n failed ($OUT/logs/central-push-$n.stderr)"
        run_timed "central-audit-$n" "$OUT/logs/central-audit-$n.stdout" sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' \
            env HOME=/nonexistent "$BIN" audit --db "$PGURL" --quiet
        times+=("$T_WALL")
        figure "fleet audit night $n (s)" "$T_WALL" "-" info
        lastdir=$dir
    done
    local central_s=$T_WALL central_rss=$T_RSS_KB local_times=() i
    "$BIN" ingest --db "$last" --quiet "$lastdir" >/dev/null 2>"$OUT/logs/central-last-ingest.stderr" || die "ingest of the last night alone failed"
    for i in 1 2 3; do
        cp "$last" "$last.copy"
        run_timed "central-local-audit-$i" /dev/null sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' "$BIN" audit --db "$last.copy" --quiet
        local_times+=("$T_WALL")
        rm -f "$last.copy" "$last.copy"-wal "$last.copy"-shm
    done
    local local_s
    local_s=$(median "${local_times[@]}")
    figure "local audit of the last night (s)" "$local_s" "-" info
    figure "fleet audit / local, last night" "$(ratio "$central_s" "$local_s")" "<= 1.5x" le 1.5
    figure "  fleet audit night $nights / night 2" "$(ratio "$central_s" "${times[1]:-$central_s}")" "-" info
    figure "fleet audit peak RSS (MB)" "$(mb "$central_rss")" "<= 150" le 150
    # prune all but the last two nights, then audit again: the same findings (a test checks), less history
    local before_rows after_rows hours
    before_rows=$("${PG[@]}" -c "SELECT count(*) FROM locaudit.event_rows")
    hours=$(( ($(date -u +%s) - $(date -u -d "2026-11-01 + $((nights - 2)) days" +%s)) / 3600 ))
    run_timed central-prune "$OUT/logs/central-prune.json" env HOME=/nonexistent "$BIN" prune --db "$PGURL" --older-than "${hours}h" --json
    after_rows=$("${PG[@]}" -c "SELECT count(*) FROM locaudit.event_rows")
    figure "fleet prune (s)" "$T_WALL" "-" info
    figure "  central events before / after prune" "$before_rows/$after_rows" "-" info
    run_timed central-audit-after-prune /dev/null sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' env HOME=/nonexistent "$BIN" audit --db "$PGURL" --quiet
    figure "fleet audit after prune (s)" "$T_WALL" "-" info
    pg_stop
}

# ---------------------------------------------------------------- audit, before and after
# audit_run LABEL BIN DB: a timed audit; exit 1 means findings at or above --fail-on (expected
# on a generated fleet), anything else is a failure
audit_run() {
    local label=$1
    shift
    run_timed "$label" "$OUT/logs/$label.stdout" sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' "$1" audit --db "$2" --quiet
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# compare_section DB: BEFORE_BIN ingests F1 into its own store; one untimed audit of each store,
# then AUDIT_RUNS audits of each, alternately (before, after, before, ...)
compare_section() {
    local db=$1 dbb="$OUT/db/before.sqlite" times="$OUT/logs/audit-compare.times" i tb=() ta=() cb=() ca=() rb=0 ra=0
    "$BEFORE_BIN" ingest --db "$dbb" --quiet "$F1" >/dev/null 2>"$OUT/logs/before-ingest.stderr" ||
        die "the before binary's ingest failed ($OUT/logs/before-ingest.stderr)"
    audit_run audit-before-warmup "$BEFORE_BIN" "$dbb"
    audit_run audit-after-warmup "$BIN" "$db"
    echo "# run binary wall-s cpu-s peak-rss-kB" >"$times"
    for ((i = 1; i <= AUDIT_RUNS; i++)); do
        audit_run "audit-before-$i" "$BEFORE_BIN" "$dbb"
        tb+=("$T_WALL") cb+=("${T_CPU:-0}")
        if ((T_RSS_KB > rb)); then rb=$T_RSS_KB; fi
        echo "$i before $T_WALL ${T_CPU:--} $T_RSS_KB" >>"$times"
        audit_run "audit-after-$i" "$BIN" "$db"
        ta+=("$T_WALL") ca+=("${T_CPU:-0}")
        if ((T_RSS_KB > ra)); then ra=$T_RSS_KB; fi
        echo "$i after $T_WALL ${T_CPU:--} $T_RSS_KB" >>"$times"
    done
    local evb eva mtb mta eps_b eps_a
    evb=$(count_events "$dbb")
    eva=$(count_events "$db")
    mtb=$(median "${tb[@]}")
    mta=$(median "${ta[@]}")
    eps_b=$(awk -v n="$evb" -v t="$mtb" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", n / t }')
    eps_a=$(awk -v n="$eva" -v t="$mta" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", n / t }')
    [[ $evb == "$eva" ]] || note "the two stores hold different events ($evb before, $eva after): events/s is of each one's own; BENCH_GENERATOR (see the top of this script) gives both the same"
    figure "audit before: events in its store" "$evb" "-" info
    figure "audit after: events in its store" "$eva" "-" info
    figure "audit before (s, median of $AUDIT_RUNS)" "$mtb" "-" info
    figure "audit after (s, median of $AUDIT_RUNS)" "$mta" "-" info
    figure "audit before events/s" "$eps_b" "-" info
    figure "audit after events/s" "$eps_a" "-" info
    figure "audit after / before events/s" "$(ratio "$eps_a" "$eps_b")" ">= 0.90" ge 0.90
    figure "  audit time after / before" "$(ratio "$mta" "$mtb")" "-" info
    if ((HAVE_TIME)); then
        # CPU time moves less than wall time while other work shares the cores
        figure "  audit CPU-s before (median)" "$(median "${cb[@]}")" "-" info
        figure "  audit CPU-s after (median)" "$(median "${ca[@]}")" "-" info
        figure "  audit CPU-s after / before" "$(ratio "$(median "${ca[@]}")" "$(median "${cb[@]}")")" "-" info
    fi
    figure "audit before peak RSS (MB)" "$(mb "$rb")" "-" info
    figure "audit after peak RSS (MB)" "$(mb "$ra")" "<= 150" le 150
    AUDIT_AFTER_RSS_KB=$ra
}
# large_section SIZE: this binary's audit of a single fleet file of SIZE, against the 1x audit's peak RSS
large_section() {
    local lsize dir db="$OUT/db/large.sqlite" events
    lsize=$(to_bytes "$1") || die "BENCH_AUDIT_LARGE must be a byte count or a number with K, M or G (got '$1')"
    dir="$OUT/fleet-single-$lsize"
    fleet "$dir" --size "$lsize" --single --seed "$SEED"
    rm -f "$db" "$db-wal" "$db-shm"
    run_timed ingest-large /dev/null "$BIN" ingest --db "$db" --quiet "$dir"/*.log.gz
    figure "ingest at $1 peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150
    figure "  ingest peak RSS at $1 / at $SIZE_ARG" "$(ratio "$T_RSS_KB" "$INGEST_1X_RSS_KB")" "<= 1.1x" le 1.1
    audit_run audit-large "$BIN" "$db"
    events=$(count_events "$db")
    figure "audit at $1: events in its store" "$events" "-" info
    figure "audit at $1 (s)" "$T_WALL" "-" info
    figure "audit at $1 events/s" "$(awk -v n="$events" -v t="$T_WALL" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", n / t }')" "-" info
    figure "audit at $1 peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150
    figure "  peak RSS at $1 / at $SIZE_ARG" "$(ratio "$T_RSS_KB" "$AUDIT_AFTER_RSS_KB")" "<= 1.1x" le 1.1
}
if [[ ${BENCH_ONLY:-} == audit ]]; then
    run_timed ingest-fresh /dev/null "$BIN" ingest --db "$DB1" --quiet "$F1"
    INGEST_1X_RSS_KB=$T_RSS_KB
    figure "ingest at $SIZE_ARG peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150
    compare_section "$DB1"
    [[ -z ${BENCH_AUDIT_LARGE:-} ]] || large_section "$BENCH_AUDIT_LARGE"
    echo
    echo "summary: $FIGS figures with a target, $OKS ok, $MISSES MISS (SIZE=$SIZE_ARG; logs in $OUT/logs)"
    exit 0
fi
if [[ ${BENCH_ONLY:-} == central ]]; then
    central_section
    echo
    echo "summary: $FIGS figures with a target, $OKS ok, $MISSES MISS (SIZE=$SIZE_ARG; logs in $OUT/logs)"
    exit 0
fi
if [[ ${BENCH_ONLY:-} == ingest ]]; then
    INGEST_RUNS=${BENCH_INGEST_RUNS:-1}
    [[ $INGEST_RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_INGEST_RUNS must be a positive count (got '$INGEST_RUNS')"
    # ingest_figures LABEL FILE TAG: gzip -dc of FILE, then each binary's fresh ingest of it
    ingest_figures() {
        local label=$1 file=$2 tag=$3 which bin db ref ref_cpu
        run_timed "gzip-reference-$tag" /dev/null gzip -dc "$file"
        ref=$T_WALL ref_cpu=${T_CPU:-}
        figure "$label: gzip -dc (s)" "$ref" "-" info
        for which in ${BEFORE_BIN:+before} this; do
            bin=$BIN
            [[ $which == before ]] && bin=$BEFORE_BIN
            db="$OUT/db/ingest-$which-$tag.sqlite"
            rm -f "$db" "$db-wal" "$db-shm"
            run_timed "ingest-$which-$tag" "$OUT/logs/ingest-$which-$tag.stdout" "$bin" ingest --db "$db" --quiet "$file"
            figure "$label: ingest $which / gzip -dc" "$(ratio "$T_WALL" "$ref")" "<= 0.5x" le 0.5
            [[ -n $ref_cpu && -n $T_CPU ]] && figure "  $label: $which CPU-s / gzip CPU-s" "$(ratio "$T_CPU" "$ref_cpu")" "-" info
            figure "  $label: $which peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150
        done
    }
    for ((run = 1; run <= INGEST_RUNS; run++)); do
        ingest_figures "8%" "$F1" 8pct
        ingest_figures "2%" "$F1L" 2pct
    done
    echo
    echo "summary: $FIGS figures with a target, $OKS ok, $MISSES MISS (SIZE=$SIZE_ARG; logs in $OUT/logs)"
    exit 0
fi
if [[ ${BENCH_ONLY:-} == push ]]; then
    "$BIN" ingest --db "$DB1" --quiet "$F1" >/dev/null 2>"$OUT/logs/ingest-fresh.stderr" || die "ingest failed ($OUT/logs/ingest-fresh.stderr)"
    "$BIN" audit --db "$DB1" --quiet >/dev/null 2>"$OUT/logs/audit.stderr" || (($? <= 1)) || die "audit failed ($OUT/logs/audit.stderr)"
    push_section "$DB1"
    echo
    echo "summary: $FIGS figures with a target, $OKS ok, $MISSES MISS (SIZE=$SIZE_ARG; logs in $OUT/logs)"
    exit 0
fi

# references: what reading the file costs at the least, each run here, now
run_timed gzip-reference /dev/null gzip -dc "$F1"
REF=$T_WALL
figure "reference gzip -dc (s)" "$REF" "-" info
ZREF=""
if [[ -n $ZCOUNT ]]; then
    run_timed zlib-reference "$OUT/logs/zcount.stdout" "$ZCOUNT" "$F1"
    ZREF=$T_WALL
    figure "reference zlib in-process (s)" "$ZREF" "-" info
    figure "  zlib in-process / gzip -dc" "$(ratio "$ZREF" "$REF")" "-" info
fi
if [[ -n $IGZIP ]]; then
    run_timed igzip-reference /dev/null "$IGZIP" -dc "$F1"
    figure "reference igzip -dc (s)" "$T_WALL" "-" info
    figure "  igzip -dc / gzip -dc" "$(ratio "$T_WALL" "$REF")" "-" info
fi

# fresh ingest
run_timed ingest-fresh "$OUT/logs/ingest-fresh.stdout" "$BIN" ingest --db "$DB1" --quiet "$F1"
ING1=$T_WALL RSS1=$T_RSS_KB
figure "ingest fresh (s)" "$ING1" "-" info
figure "ingest / gzip -dc" "$(ratio "$ING1" "$REF")" "<= 0.5x" le 0.5
[[ -n $ZREF ]] && figure "  ingest / zlib in-process" "$(ratio "$ING1" "$ZREF")" "-" info
figure "ingest peak RSS (MB)" "$(mb "$RSS1")" "<= 150" le 150
EV=$(count_events "$DB1")
figure "store bytes per event" "$(store_bytes_per_event "$DB1" "$EV")" "<= 300" le 300

# the same size with 2% location lines: the cost of the lines that are not events
run_timed gzip-reference-2pct /dev/null gzip -dc "$F1L"
REFL=$T_WALL
run_timed ingest-2pct "$OUT/logs/ingest-2pct.stdout" "$BIN" ingest --db "$DB1L" --quiet "$F1L"
figure "ingest 2% location / gzip -dc" "$(ratio "$T_WALL" "$REFL")" "<= 0.5x" le 0.5
figure "ingest 2% peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150

# 2x SIZE: memory must not grow with the input
run_timed ingest-double "$OUT/logs/ingest-double.stdout" "$BIN" ingest --db "$DB2" --quiet "$F2"
ING2=$T_WALL RSS2=$T_RSS_KB
figure "ingest 2x peak RSS (MB)" "$(mb "$RSS2")" "-" info
figure "peak RSS growth 2x / 1x" "$(ratio "$RSS2" "$RSS1")" "~1.0 (<=1.1)" le 1.1
figure "ingest time 2x / 1x" "$(ratio "$ING2" "$ING1")" "~2.0" info

# re-ingest of the same file into the same DB: must be skipped cheaply
run_timed ingest-again "$OUT/logs/ingest-again.stdout" "$BIN" ingest --db "$DB1" --quiet "$F1"
figure "re-ingest / first ingest" "$(ratio "$T_WALL" "$ING1")" "<= 0.02" le 0.02

# 4 files: --jobs 2 against --jobs 1
run_timed ingest-jobs1 "$OUT/logs/ingest-jobs1.stdout" "$BIN" ingest --db "$DBJ1" --jobs 1 --quiet "${F4[@]}"
J1=$T_WALL
run_timed ingest-jobs2 "$OUT/logs/ingest-jobs2.stdout" "$BIN" ingest --db "$DBJ2" --jobs 2 --quiet "${F4[@]}"
J2=$T_WALL RSSJ2=$T_RSS_KB
figure "4 files --jobs 1 (s)" "$J1" "-" info
figure "4 files --jobs 2 / --jobs 1" "$(ratio "$J2" "$J1")" "<= 0.6x" le 0.6
figure "4 files --jobs 2 peak RSS (MB)" "$(mb "$RSSJ2")" "-" info

# the nightly run on the 4-device inbox (logs, sidecars, apps/): ingest, scoped audit, text report.
# Exit 1 only means findings at or above --fail-on; anything else is a failure.
run_timed run-jobs1 "$OUT/logs/run-jobs1.stdout" sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' "$BIN" run --inbox "$D4" --db "$DBR1" --settle 0 --jobs 1 --quiet --report "text:$OUT/logs/run-report.txt"
R1=$T_WALL
run_timed gzip-reference-x4 /dev/null gzip -dc "${F4[@]}"
REF4=$T_WALL
run_timed run-jobs2 "$OUT/logs/run-jobs2.stdout" sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' "$BIN" run --inbox "$D4" --db "$DBR2" --settle 0 --jobs 2 --quiet --report "text:$OUT/logs/run-report.txt"
R2=$T_WALL
figure "run 4 devices --jobs 1 (s)" "$R1" "-" info
figure "run 4 devices --jobs 2 / --jobs 1" "$(ratio "$R2" "$R1")" "<= 0.7x" le 0.7
figure "run 4 devices --jobs 2 / gzip -dc" "$(ratio "$R2" "$REF4")" "<= 0.5x" le 0.5
figure "run 4 devices peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150
run_timed run-again "$OUT/logs/run-again.stdout" "$BIN" run --inbox "$D4" --db "$DBR2" --settle 0 --quiet
figure "run with nothing new / first run" "$(ratio "$T_WALL" "$R2")" "<= 0.05" le 0.05

# audit: a full audit of the 1x database (exit 1 means findings at or above --fail-on:
# expected on a generated fleet; anything else is a failure)
run_timed audit "$OUT/logs/audit.stdout" sh -c '"$0" "$@"; s=$?; [ "$s" -le 1 ]' "$BIN" audit --db "$DB1" --quiet
AUD=$T_WALL
figure "audit (s)" "$AUD" "-" info
figure "audit events/s" "$(awk -v n="$EV" -v t="$AUD" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", n / t }')" ">= 2000000" ge 2000000
figure "audit peak RSS (MB)" "$(mb "$T_RSS_KB")" "<= 150" le 150
figure "full re-audit / ingest" "$(ratio "$AUD" "$ING1")" "<= 1.0x" le 1.0

# push: the audited 1x store into PostgreSQL
push_section "$DB1"

# the fleet's audit from PostgreSQL, night after night
central_section

# the audit of LOCAUDIT_BEFORE_BIN against this one's, on the same 1x file
[[ -z $BEFORE_BIN ]] || compare_section "$DB1"

echo
echo "summary: $FIGS figures with a target, $OKS ok, $MISSES MISS (SIZE=$SIZE_ARG; logs in $OUT/logs)"
exit 0
