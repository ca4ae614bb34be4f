// Archives or restores a context node. Params: $workspaceId, $nodeId, $status ('live'|'archived'), $now.
// Columns: id, changed (false when it already had that status: nothing is written then).
// Archiving sets archivedAt; restoring clears it; either moves updatedAt so that update feeds see it.
MATCH (n:ContextNode {id: $nodeId, workspaceId: $workspaceId})
WITH n, n.status <> $status AS changed
CALL (n, changed) {
  WITH n, changed
  WHERE changed
  SET n.status = $status,
      n.archivedAt = CASE WHEN $status = 'archived' THEN $now ELSE null END,
      n.updatedAt = $now
}
RETURN n.id AS id, changed
