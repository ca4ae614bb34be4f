// Makes each node's names exactly those given (src/nodes/names.ts: its slug, file name, path tails, title and
// aliases, each with how strongly it names the node), as (n)-[:NAMED {rank, depth, length, path}]->(:WikiName
// {workspaceId, key}), one WikiName per workspace and key (constraint wiki_name_key). A WikiName left with nothing
// naming it and nothing linking to it is deleted.
// Params: $workspaceId, $items: list of {nodeId, names: list of {key, rank, depth, length, path}}.
// Columns: id, each node (other than those of $items) with a wikilink to a key whose naming changed (dropped,
// added or ranked differently): its wikilinks may now resolve differently (links/resolve-wikilinks.cypher).
UNWIND $items AS item
MATCH (n:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
CALL (n, item) {
  OPTIONAL MATCH (n)-[r:NAMED]->(k:WikiName)
  WHERE NOT k.key IN [x IN item.names | x.key]
  WITH r, k, k.key AS key
  DELETE r
  WITH k, key
  CALL (k) {
    WITH k
    WHERE k IS NOT NULL AND NOT EXISTS { (k)--() }
    DELETE k
  }
  RETURN collect(key) AS dropped
}
CALL (n, item) {
  UNWIND item.names AS name
  MERGE (k:WikiName {workspaceId: $workspaceId, key: name.key})
  MERGE (n)-[r:NAMED]->(k)
  WITH name, r, coalesce(r.rank = name.rank AND r.depth = name.depth AND r.length = name.length AND r.path = name.path, false) AS same
  SET r.rank = name.rank, r.depth = name.depth, r.length = name.length, r.path = name.path
  WITH name WHERE NOT same
  RETURN collect(name.key) AS changed
}
UNWIND dropped + changed AS key
WITH DISTINCT key
MATCH (:WikiName {workspaceId: $workspaceId, key: key})<-[:WIKILINK_TO]-(s:ContextNode)
WHERE NOT s.id IN [item IN $items | item.nodeId]
RETURN DISTINCT s.id AS id
