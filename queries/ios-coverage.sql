-- name: ios-coverage
-- description: iOS versions the fleet's logs cover: devices, logs, events and time span per version (unknown when no device facts were given).
-- postgresql: CAST(s.os_version AS INTEGER) => coalesce(CAST(substring(s.os_version from '^[0-9]{1,9}') AS INTEGER), 0)
SELECT coalesce(s.os_version, 'unknown') AS ios, count(DISTINCT s.device_id) AS devices, count(*) AS logs,
       sum(s.events) AS events, min(s.first_time) AS first_time, max(s.last_time) AS last_time
FROM sources s
WHERE s.container NOT IN ('info-plist', 'ideviceinfo')
GROUP BY s.os_version
-- by major version (SQLite's CAST reads the leading digits of '17.4'), then as text
ORDER BY CASE WHEN s.os_version IS NULL THEN 1 ELSE 0 END,
         CAST(s.os_version AS INTEGER), s.os_version;
