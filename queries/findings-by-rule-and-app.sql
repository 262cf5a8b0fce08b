-- name: findings-by-rule-and-app
-- description: Open findings (not resolved by a later audit), counted by rule and app, most severe first.
SELECT rule, severity, bundle_id, count(*) AS findings, count(DISTINCT device_id) AS devices
FROM findings
WHERE resolved_run IS NULL
GROUP BY rule, severity, bundle_id
ORDER BY CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         findings DESC, rule, bundle_id;
