// Adds the retrievals this process counted since its last flush to each principal's monthly count. Unlike the
// workspace counter (a copy of Redis's), these are deltas: every API process adds its own.
// Params: $counts: [{workspaceId, period ('YYYY-MM'), principalKind ('agent'|'user'), principalId, count}], $now.
UNWIND $counts AS c
MERGE (r:RetrievalCount {workspaceId: c.workspaceId, period: c.period, principalId: c.principalId})
ON CREATE SET r.principalKind = c.principalKind, r.count = c.count, r.updatedAt = $now
ON MATCH SET r.count = r.count + c.count, r.updatedAt = $now
