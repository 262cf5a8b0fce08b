-- name: sources-most-skipped
-- description: Logs with the most lines skipped, with the reasons (see docs/schema.md), to find damaged or unexpected exports.
-- param: limit = 20   how many logs
-- postgresql: sum(value) FROM json_each(s.skipped) => sum(CAST(value AS BIGINT)) FROM json_each_text(CAST(s.skipped AS JSON))
SELECT s.path, s.container, s.device_id AS device, s.lines_read,
       coalesce((SELECT sum(value) FROM json_each(s.skipped)), 0) AS skipped, s.skipped AS by_reason
FROM sources s
WHERE s.container NOT IN ('info-plist', 'ideviceinfo')
ORDER BY skipped DESC, s.path, s.content_sha256
LIMIT :limit;
