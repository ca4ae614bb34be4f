// Each wikilink name keeps the node it resolves to, (:WikiName)-[:RESOLVES_TO]->(:ContextNode), so that a write
// changing who is called by a crowded name resolves again only the links whose target moves
// (queries/links/sync-wikilinks.cypher chooses the target and keeps it up to date). This sets it for the names
// stored before, by the same order: lowest rank, fewest folders, shortest path, path, id.
MATCH (k:WikiName)
WHERE NOT EXISTS { (k)-[:RESOLVES_TO]->() }
CALL (k) {
  MATCH (t:ContextNode)-[n:NAMED]->(k)
  WITH t, n ORDER BY n.rank, n.depth, n.length, n.path, t.id
  LIMIT 1
  MERGE (k)-[:RESOLVES_TO]->(t)
};
