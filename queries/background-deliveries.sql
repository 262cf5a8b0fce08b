-- name: background-deliveries
-- description: Locations delivered while the app was in the background, by app, authorization status and app state (both as last logged before the delivery).
WITH deliveries AS (
    SELECT e.device_id, e.bundle_id,
        (SELECT s.app_state FROM events s
         WHERE s.device_id = e.device_id AND s.bundle_id = e.bundle_id AND s.kind = 'app-state' AND s.time_us <= e.time_us
         ORDER BY s.time_us DESC, s.line DESC LIMIT 1) AS app_state,
        (SELECT a.status FROM events a
         WHERE a.device_id = e.device_id AND a.bundle_id = e.bundle_id AND a.kind IN ('authorization', 'status-change')
           AND a.status IS NOT NULL AND a.time_us <= e.time_us
         ORDER BY a.time_us DESC, a.line DESC LIMIT 1) AS status
    FROM events e
    WHERE e.kind = 'location' AND e.bundle_id IS NOT NULL)
SELECT bundle_id, coalesce(status, 'unknown') AS status, app_state, count(*) AS deliveries, count(DISTINCT device_id) AS devices
FROM deliveries
WHERE app_state IN ('backgroundRunning', 'backgroundTaskSuspended')
GROUP BY bundle_id, status, app_state
ORDER BY deliveries DESC, bundle_id, status, app_state;
