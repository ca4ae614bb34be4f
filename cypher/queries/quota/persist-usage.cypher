// Persists Redis retrieval counters. A count only moves up: a process flushing an older value (or a
// refund that raced the flush) never takes a persisted count back.
// Params: $counts: [{workspaceId, period, used}], $now.
UNWIND $counts AS c
MERGE (u:UsagePeriod {workspaceId: c.workspaceId, period: c.period})
ON CREATE SET u.used = c.used, u.updatedAt = $now
ON MATCH SET u.used = CASE WHEN u.used < c.used THEN c.used ELSE u.used END, u.updatedAt = $now
