-- name: new-findings
-- description: Findings first seen by an audit run (default: the latest), i.e. new since the run before it.
-- param: run = latest   an audit run id from audit_runs
SELECT f.rule, f.severity, f.device_id AS device, f.bundle_id, f.pid, f.session_start, f.time, f.message
FROM findings f
WHERE f.first_run = CASE WHEN :run = 'latest' THEN (SELECT max(id) FROM audit_runs) ELSE CAST(:run AS INTEGER) END
ORDER BY CASE f.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         f.time_us, f.rule, f.bundle_id, f.device_id;
