// Makes context nodes' manual links to other context nodes exactly the wanted ones (a bulk import: the links an
// imported item declares replace the node's manual links; wikilinks are synced apart and never touched here).
// Params: $workspaceId, $now, $linkRelTypes (src/nodes/link-types.ts), $items: list of {nodeId, wanted}, wanted
// being a list of {relType, targetId, linkId} (relType from the fixed map of src/nodes/link-types.ts, travelling
// as a value, never spliced into the text; linkId used only if a link is made). Columns: id, one row per node.
// 1. A manual link whose (type, target) is not wanted is deleted.
// 2. Each wanted (type, target) that no link of that type (manual or wikilink) already joins is created, origin
//    'manual'; a target outside the workspace, missing, or the node itself is skipped.
UNWIND $items AS item
MATCH (a:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
// Locked as a single link's creation locks its source (links/create.cypher), so neither adds a link twice.
SET a._LOCK_ = true
REMOVE a._LOCK_
WITH a, item
CALL (a, item) {
  MATCH (a)-[r]->(t:ContextNode)
  WHERE type(r) IN $linkRelTypes AND r.origin = 'manual'
    AND NOT any(w IN item.wanted WHERE w.relType = type(r) AND w.targetId = t.id)
  DELETE r
}
CALL (a, item) {
  UNWIND item.wanted AS w
  MATCH (t:ContextNode {id: w.targetId, workspaceId: $workspaceId})
  WITH a, t, w
  WHERE t <> a AND NOT EXISTS { (a)-[r]->(t) WHERE type(r) = w.relType }
  CREATE (a)-[:$(w.relType) {id: w.linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t)
}
RETURN a.id AS id
