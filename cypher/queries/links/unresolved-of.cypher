// The wikilinks of the nodes $nodeIds that no node names yet, as written: what an import reports as unresolved.
// Params: $workspaceId, $nodeIds. Columns: id, unresolved (sorted; one row per node that has any).
UNWIND $nodeIds AS nodeId
MATCH (n:ContextNode {id: nodeId, workspaceId: $workspaceId})-[w:WIKILINK_TO]->(k:WikiName)
WHERE NOT EXISTS { (:ContextNode)-[:NAMED]->(k) }
WITH n, w ORDER BY w.text
RETURN n.id AS id, collect(w.text) AS unresolved
