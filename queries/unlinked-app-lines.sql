-- name: unlinked-app-lines
-- description: App processes whose lines could not be linked to a bundle id (add the app's Info.plist, or check the log has RunningBoard lines).
SELECT e.device_id AS device, e.process, count(DISTINCT e.app_pid) AS processes, count(*) AS events,
       min(e.time) AS first_time, max(e.time) AS last_time
FROM events e
-- app lines: with the app's pid, or (a log without pids, a Console copy) of the kinds an app logs itself
WHERE e.bundle_id IS NULL AND (e.app_pid IS NOT NULL
    OR (e.pid IS NULL AND e.kind IN ('authorization', 'call', 'crash', 'location', 'property', 'usage-key-missing')))
GROUP BY e.device_id, e.process
ORDER BY events DESC, device, e.process;
