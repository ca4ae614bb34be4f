// Archives or restores context nodes (one from the API, a batch from an import's prune).
// Params: $workspaceId, $nodeIds, $status ('live'|'archived'), $now.
// Columns: id, changed (false when it already had that status: nothing is written then); one row per node found.
// Archiving sets archivedAt; restoring clears it; either moves updatedAt so that update feeds see it.
// Each node is write-locked before its status is read: of two writes of one status at once, the second sees the
// first's and changes (and records) nothing.
UNWIND $nodeIds AS nodeId
MATCH (n:ContextNode {id: nodeId, workspaceId: $workspaceId})
SET n._LOCK_ = true
REMOVE n._LOCK_
WITH n, n.status <> $status AS changed
CALL (n, changed) {
  WITH n, changed
  WHERE changed
  SET n.status = $status,
      n.archivedAt = CASE WHEN $status = 'archived' THEN $now ELSE null END,
      n.updatedAt = $now
}
RETURN n.id AS id, changed
