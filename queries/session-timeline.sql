-- name: session-timeline
-- description: Every event of one app session in time order, with the log file and line to open (coordinates left out).
-- param: bundle        the app's bundle id
-- param: pid           the session's process id
-- param: device = %    the device id (default: any device)
SELECT e.time, e.kind,
       trim(coalesce(e.status, '') || ' ' || coalesce(e.accuracy, '') || ' ' || coalesce(e.app_state, '') || ' '
            || coalesce(e.call, '') || ' ' || coalesce(e.service, '') || ' ' || coalesce(e.property || '=' || e.value, '') || ' '
            || coalesce(e.prompt_kind, '') || ' ' || coalesce(e.choice, '') || ' ' || coalesce(e.purpose_key, '') || ' '
            || coalesce('visible=' || e.visible, '') || ' '
            -- metres as both engines print them: 65, not SQLite's 65.0 (PostgreSQL's 65)
            || coalesce('±' || CASE WHEN abs(e.horizontal_accuracy) < 1e15 AND e.horizontal_accuracy = round(e.horizontal_accuracy)
                                    THEN CAST(CAST(e.horizontal_accuracy AS BIGINT) AS TEXT)
                                    ELSE CAST(e.horizontal_accuracy AS TEXT) END || ' m', '')) AS detail,
       src.path || ':' || e.line AS evidence
FROM events e JOIN sources src ON src.id = e.source_id
WHERE e.bundle_id = :bundle AND e.app_pid = :pid AND e.device_id LIKE :device
ORDER BY e.time_us, src.path, e.line;
