// Makes each node's wikilinks exactly those given (src/nodes/wikilinks.ts, one per key its content names), as
// (n)-[:WIKILINK_TO {text, sections}]->(:WikiName {workspaceId, key}); which node each key names is decided by
// links/resolve-wikilinks.cypher. A WikiName left with nothing naming it and nothing linking to it is deleted.
// Params: $workspaceId, $items: list of {nodeId, links: list of {key, text, sections}}. Columns: id, one row per
// node found.
UNWIND $items AS item
MATCH (n:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
CALL (n, item) {
  OPTIONAL MATCH (n)-[w:WIKILINK_TO]->(k:WikiName)
  WHERE NOT k.key IN [x IN item.links | x.key]
  DELETE w
  WITH k
  CALL (k) {
    WITH k
    WHERE k IS NOT NULL AND NOT EXISTS { (k)--() }
    DELETE k
  }
}
CALL (n, item) {
  UNWIND item.links AS link
  MERGE (k:WikiName {workspaceId: $workspaceId, key: link.key})
  MERGE (n)-[w:WIKILINK_TO]->(k)
  SET w.text = link.text, w.sections = link.sections
}
RETURN n.id AS id
