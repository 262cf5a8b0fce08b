-- name: temporary-precise-sessions
-- description: Sessions that held a temporary full-accuracy grant, with its purpose key and when it was granted.
SELECT s.device_id AS device, s.bundle_id, s.pid, s.start, s.end, s.os_version,
       e.purpose_key, e.time AS granted
FROM sessions s
JOIN events e ON e.device_id = s.device_id AND e.bundle_id = s.bundle_id
    AND e.kind = 'accuracy-change' AND e.accuracy = 'full' AND e.temporary = 1
    AND e.time_us BETWEEN s.start_us AND s.end_us
ORDER BY s.start_us, s.bundle_id, s.device_id, e.time_us;
