// title: Retrievals per agent and month
// description: Bundles and manifests each agent of the workspace retrieved, per calendar month (UTC). The
//   counts are written from each API process every 30 seconds, so the current minute may not be in yet.
// param from (month, default 1970-01): the first month
// param to (month, default 9999-12): the last month
// columns: month, agentId, agentName, agentStatus, retrievals
MATCH (r:RetrievalCount {workspaceId: $workspaceId})
WHERE r.principalKind = 'agent' AND r.period >= $from AND r.period <= $to
OPTIONAL MATCH (a:Agent {id: r.principalId}) WHERE a.workspaceId = $workspaceId
RETURN r.period AS month, r.principalId AS agentId, a.name AS agentName, a.status AS agentStatus, r.count AS retrievals
ORDER BY month DESC, retrievals DESC, agentId
