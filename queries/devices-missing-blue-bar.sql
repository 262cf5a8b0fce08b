-- name: devices-missing-blue-bar
-- description: Devices where an app delivered locations in the background with no blue bar shown (open missing-blue-bar findings).
-- postgresql: group_concat(a.bundle_id) => string_agg(a.bundle_id, ',' ORDER BY a.bundle_id)
SELECT f.device_id AS device, d.name, f.os_version, count(*) AS findings,
       -- the apps in order: SQLite's group_concat keeps the order of an ordered subquery
       (SELECT group_concat(a.bundle_id) FROM (
            SELECT DISTINCT o.bundle_id FROM findings o
            WHERE o.rule = 'missing-blue-bar' AND o.resolved_run IS NULL
              AND o.device_id = f.device_id AND o.os_version IS NOT DISTINCT FROM f.os_version
            ORDER BY o.bundle_id) AS a) AS apps,
       min(f.time) AS first_seen, max(f.time) AS last_seen
FROM findings f LEFT JOIN devices d ON d.id = f.device_id
WHERE f.rule = 'missing-blue-bar' AND f.resolved_run IS NULL
GROUP BY f.device_id, f.os_version, d.name
ORDER BY findings DESC, device, f.os_version;
