import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise

/// Two exports of one device and period with different zone knowledge give one truth: the
/// zone-less one (idevicesyslog without `--tz` or a `TimeZone`, read as UTC) takes the
/// offset of the zoned one, whichever was ingested first, and its lines are re-timed. A
/// line both exports hold is then one event (the key is the UTC second and the time-free
/// fingerprint): the copy stored first stays, the other is counted as a duplicate.
///
/// Runs in the transaction of the file being stored, so the re-timing is part of it: wholly
/// or not at all.
package enum ZoneReconciler {
    /// What reconciling did to the file being stored.
    package struct Outcome {
        /// Its lines already stored from another export, removed from it.
        var duplicates = 0
        /// When it was the zone-less one: the offset it took and from which export.
        package var offset: Int32?
        package var from: String?
        /// Lines re-timed (its own or those of older zone-less exports).
        var retimed = 0
        /// Older zone-less exports that took its offset.
        package var gaveTo: [String] = []
    }

    /// The widest offset from UTC: how far a zone-less export's times can be off.
    static let widestOffsetUS: Int64 = 14 * 3_600 * 1_000_000
    /// Where re-timed lines wait while others move: beyond any real time, whole seconds.
    private static let asideSeconds: Int64 = 4_000_000_000

    struct Log {
        var id: Int64
        var path: String
        var first: Int64
        var last: Int64
    }

    /// Reconciles the file `source` (of `device`, its records from `first` to `last`, read as
    /// UTC when `zoneAssumed`) with the device's other logs. Its own source row is the
    /// caller's to write, from the outcome.
    static func reconcile(source: Int64, path: String, device: String, zoneAssumed: Bool,
                          first: Int64?, last: Int64?, in db: Database) throws -> Outcome {
        var outcome = Outcome()
        guard let first, let last else { return outcome }
        let me = Log(id: source, path: path, first: first, last: last)
        if zoneAssumed {
            // Take the offset of the first zoned export whose period, so corrected, overlaps.
            for zoned in try logs(of: device, zoneAssumed: false, except: source, in: db) {
                guard let offset = try offset(of: zoned, near: me, in: db), overlaps(me, shiftedBy: offset, zoned) else { continue }
                let moved = try retime(me, by: offset, in: db)
                outcome.offset = offset
                outcome.from = zoned.path
                outcome.retimed = moved.retimed
                outcome.duplicates = moved.dropped
                break
            }
        } else {
            // Give this export's offset to the zone-less ones of its period.
            for zoneless in try logs(of: device, zoneAssumed: true, except: source, in: db) {
                guard let offset = try offset(of: me, near: zoneless, in: db), overlaps(zoneless, shiftedBy: offset, me) else { continue }
                let moved = try retime(zoneless, by: offset, yieldingFrom: source, in: db)
                outcome.duplicates += moved.yielded
                outcome.retimed += moved.retimed
                outcome.gaveTo.append(zoneless.path)
                try note(zoneless.id, offset: offset, from: path, retimed: moved.retimed, dropped: moved.dropped, in: db)
            }
        }
        return outcome
    }

    /// The device's logs that are (`zoned`) or are not read in a known zone.
    private static func logs(of device: String, zoneAssumed: Bool, except source: Int64, in db: Database) throws -> [Log] {
        try Row.fetchAll(db, sql: """
            SELECT id, path, first_time, last_time FROM sources
            WHERE device_id = ? AND id != ? AND zone_assumed = ? AND first_time IS NOT NULL AND last_time IS NOT NULL
                AND container NOT IN ('info-plist', 'ideviceinfo')
            ORDER BY id
            """, arguments: [device, source, zoneAssumed]).compactMap { row in
            guard let first = utc(row["first_time"]), let last = utc(row["last_time"]) else { return nil }
            return Log(id: row["id"], path: row["path"], first: first, last: last)
        }
    }

    /// The offset of `zoned`'s lines nearest the period `zoneless` can cover (its times read
    /// as UTC are off by at most 14 hours); nil when it has none there.
    private static func offset(of zoned: Log, near zoneless: Log, in db: Database) throws -> Int32? {
        let low = max(zoned.first, zoneless.first - widestOffsetUS), high = min(zoned.last, zoneless.last + widestOffsetUS)
        guard low <= high else { return nil }
        let middle = zoneless.first / 2 + zoneless.last / 2
        return try Int32.fetchOne(db, sql: """
            SELECT utc_offset FROM event_rows
            WHERE time_us / 1000000 BETWEEN ?1 AND ?2 AND source_id = ?3 AND utc_offset IS NOT NULL
            ORDER BY abs(time_us - ?4) LIMIT 1
            """, arguments: [low / 1_000_000, high / 1_000_000, zoned.id, middle])
    }

    /// Whether `zoneless`, its times corrected by `offset`, overlaps `zoned`.
    private static func overlaps(_ zoneless: Log, shiftedBy offset: Int32, _ zoned: Log) -> Bool {
        let shift = Int64(offset) * 1_000_000
        return zoneless.first - shift <= zoned.last && zoneless.last - shift >= zoned.first
    }

    /// Moves the lines of `log` from UTC-assumed to UTC (`local - offset`). Where a moved line
    /// lands on a copy of it already stored, the copy stored first stays: the copy of
    /// `yieldingFrom` (the file being stored, when `log` is an older export) goes, else the
    /// moved one. Returns the lines re-timed, the moved copies dropped and the copies of
    /// `yieldingFrom` removed.
    static func retime(_ log: Log, by offset: Int32, yieldingFrom current: Int64? = nil,
                               in db: Database) throws -> (retimed: Int, dropped: Int, yielded: Int) {
        // 1. Out of the way, where no real time is: the lines keep their keys apart among themselves.
        try db.execute(sql: "UPDATE event_rows SET time_us = time_us + ? WHERE source_id = ?", arguments: [asideSeconds * 1_000_000, log.id])
        // 2. Clashes at the lines' true second (aside, minus the offset).
        let distance = asideSeconds + Int64(offset)
        var yielded = 0
        if let current {
            try db.execute(sql: """
                DELETE FROM event_rows WHERE source_id = ?1 AND EXISTS (
                    SELECT 1 FROM event_rows moved WHERE moved.time_us / 1000000 = event_rows.time_us / 1000000 + ?3
                        AND moved.fingerprint = event_rows.fingerprint AND moved.source_id = ?2)
                """, arguments: [current, log.id, distance])
            yielded = db.changesCount
        }
        try db.execute(sql: """
            DELETE FROM event_rows WHERE source_id = ?1 AND EXISTS (
                SELECT 1 FROM event_rows other WHERE other.time_us / 1000000 = event_rows.time_us / 1000000 - ?2
                    AND other.fingerprint = event_rows.fingerprint)
            """, arguments: [log.id, distance])
        let dropped = db.changesCount
        // 3. To their time.
        try db.execute(sql: "UPDATE event_rows SET time_us = time_us - ?, utc_offset = ? WHERE source_id = ?",
                       arguments: [distance * 1_000_000, offset, log.id])
        return (db.changesCount, dropped, yielded)
    }

    /// The source row of an older re-timed log: its offset and where it came from, its span
    /// in UTC, and the lines it lost to a copy stored before it.
    static func note(_ source: Int64, offset: Int32, from path: String, retimed: Int, dropped: Int, in db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT first_time, last_time, notes, skipped FROM sources WHERE id = ?", arguments: [source]) else { return }
        func counts(_ column: String) -> [String: Int] { (row[column] as JSONColumn<[String: Int]>?)?.value ?? [:] }
        func shifted(_ column: String) -> String? { (row[column] as String?).flatMap(utc).map { Timestamps.isoUTC($0 - Int64(offset) * 1_000_000) } }
        var notes = counts("notes"), skipped = counts("skipped")
        notes[NoteKind.zoneFromExport.rawValue, default: 0] += retimed
        if dropped > 0 { skipped[SkipReason.duplicate.rawValue, default: 0] += dropped }
        try db.execute(sql: """
            UPDATE sources SET zone_assumed = 0, zone_offset = ?, zone_from = ?, first_time = ?, last_time = ?, notes = ?,
                skipped = ?, events = events - ? WHERE id = ?
            """, arguments: [offset, path, shifted("first_time"), shifted("last_time"), jsonText(notes), jsonText(skipped), dropped, source])
    }

    /// A stored `first_time` / `last_time`, to the microsecond.
    static func utc(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0)?.us }
    }

    /// `UTC+01:00`, `UTC-05:30`.
    package static func text(offset: Int32) -> String {
        let minutes = abs(Int(offset)) / 60
        return String(format: "UTC%@%02d:%02d", offset < 0 ? "-" : "+", minutes / 60, minutes % 60)
    }
}
