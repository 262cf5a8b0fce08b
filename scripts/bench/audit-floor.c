/* What SQLite alone costs the audit's hot read (docs/performance.md, "Audit in bulk"):
 * steps the statement the audit read before issue 27 (every column the replay reads, one
 * app on one device at a time through events_by_app, a 2 MB page cache) and reads every
 * column through sqlite3_column_*, or none (NONE=1); prints rows/s.
 *
 *   gcc -O2 scripts/bench/audit-floor.c -lsqlite3 -o /tmp/audit-floor && /tmp/audit-floor STORE
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s STORE\n", argv[0]); return 2; }
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_exec(db, "PRAGMA cache_size = -2048", NULL, NULL, NULL);
    const char *sql = "SELECT id, kind_ref, time_us, app_pid, source_id, line, status, accuracy, temporary, provisional, "
        "reason, app_state, service, call, horizontal_accuracy, location_private, property, value, prompt_kind, "
        "prompt_options, choice, purpose_key, visible, intent, fingerprint, user_kill "
        "FROM event_rows INDEXED BY events_by_app WHERE device_ref = ?1 AND bundle_ref = ?2 AND time_us >= ?3";
    sqlite3_stmt *groups, *rows;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT device_ref, bundle_ref FROM event_rows WHERE bundle_ref IS NOT NULL",
                           -1, &groups, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, sql, -1, &rows, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        return 1;
    }
    int none = getenv("NONE") != NULL;
    long n = 0;
    long long sum = 0;
    double t0 = now();
    while (sqlite3_step(groups) == SQLITE_ROW) {
        sqlite3_bind_int64(rows, 1, sqlite3_column_int64(groups, 0));
        sqlite3_bind_int64(rows, 2, sqlite3_column_int64(groups, 1));
        sqlite3_bind_int64(rows, 3, INT64_MIN);
        while (sqlite3_step(rows) == SQLITE_ROW) {
            n++;
            if (none) continue;
            for (int c = 0; c < sqlite3_column_count(rows); c++) {
                switch (sqlite3_column_type(rows, c)) {
                case SQLITE_INTEGER: sum += sqlite3_column_int64(rows, c); break;
                case SQLITE_FLOAT: sum += (long long)sqlite3_column_double(rows, c); break;
                case SQLITE_TEXT: sum += sqlite3_column_bytes(rows, c); break;
                default: break;
                }
            }
        }
        sqlite3_reset(rows);
    }
    double t = now() - t0;
    printf("%ld rows in %.3f s: %.0f rows/s (checksum %lld)\n", n, t, n / t, sum);
    sqlite3_finalize(rows);
    sqlite3_finalize(groups);
    sqlite3_close(db);
    return 0;
}
