// Changes a workspace's name, plan, retrieval limit or parent. Params: $workspaceId, $changes (map with any of
// name, plan, monthlyRetrievalLimit (null clears it)), $setParent (boolean), $parentWorkspaceId (or null).
// Columns: workspace, before (its changeable fields before this change), parentFound, cycle. A parent that is the workspace itself or one of its descendants is a cycle.
MATCH (w:Workspace {id: $workspaceId})
OPTIONAL MATCH (parent:Workspace {id: $parentWorkspaceId})
WITH w, parent, w {.name, .plan, .parentWorkspaceId, .monthlyRetrievalLimit} AS before,
     $setParent AND $parentWorkspaceId IS NOT NULL AND parent IS NULL AS parentMissing,
     $setParent AND parent IS NOT NULL AND (parent = w OR EXISTS { (parent)-[:CHILD_OF]->+(w) }) AS cycle
CALL (w, parent, parentMissing, cycle) {
  WITH w, parent, parentMissing, cycle
  WHERE NOT parentMissing AND NOT cycle
  SET w += $changes
  WITH w, parent
  CALL (w, parent) {
    WITH w, parent
    WHERE $setParent
    OPTIONAL MATCH (w)-[old:CHILD_OF]->()
    DELETE old
    WITH w, parent
    FOREACH (p IN CASE WHEN parent IS NULL THEN [] ELSE [parent] END | CREATE (w)-[:CHILD_OF]->(p))
    SET w.parentWorkspaceId = $parentWorkspaceId
  }
}
RETURN w {.id, .name, .plan, .parentWorkspaceId, .monthlyRetrievalLimit, .createdAt} AS workspace, before,
       NOT parentMissing AS parentFound, cycle
