-- name: devices-missing-blue-bar
-- description: Devices where an app delivered locations in the background with no blue bar shown (open missing-blue-bar findings).
SELECT f.device_id AS device, d.name, f.os_version, count(*) AS findings,
       group_concat(DISTINCT f.bundle_id) AS apps, min(f.time) AS first_seen, max(f.time) AS last_seen
FROM findings f LEFT JOIN devices d ON d.id = f.device_id
WHERE f.rule = 'missing-blue-bar' AND f.resolved_run IS NULL
GROUP BY f.device_id, f.os_version
ORDER BY findings DESC, device;
