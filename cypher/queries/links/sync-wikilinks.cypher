// Makes context nodes' wikilink state match the [[slug]]s of their content (parsed by the service).
// Params: $workspaceId, $now, $items: list of {nodeId, wanted}, wanted being a list of {slug, linkId} (distinct
// slugs; linkId is used only if a new link is made). One item from a single write, a batch from an import.
// Columns: id, one row per node found.
// 1. A REFERENCES link of origin 'wikilink' to a node whose slug is no longer wanted is deleted; manual links
//    (any origin 'manual') are never touched.
// 2. Every WIKILINK_TO of the node is dropped, and an UnresolvedLink nothing points at any more is deleted.
// 3. Each wanted slug: a node of the SAME workspace with that slug (other than this node) gets a REFERENCES
//    link of origin 'wikilink' unless a REFERENCES link to it exists already (manual or wikilink); a slug no
//    node has is kept as (this)-[:WIKILINK_TO]->(:UnresolvedLink {workspaceId, slug}). A wikilink to the node
//    itself is ignored.
UNWIND $items AS item
MATCH (a:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
CALL (a, item) {
  MATCH (a)-[r:REFERENCES {origin: 'wikilink'}]->(t:ContextNode)
  WHERE NOT t.slug IN [w IN item.wanted | w.slug]
  DELETE r
}
CALL (a) {
  MATCH (a)-[w:WIKILINK_TO]->(u:UnresolvedLink)
  DELETE w
  WITH DISTINCT u
  WHERE NOT EXISTS { ()-[:WIKILINK_TO]->(u) }
  DELETE u
}
CALL (a, item) {
  UNWIND item.wanted AS want
  OPTIONAL MATCH (t:ContextNode {workspaceId: $workspaceId, slug: want.slug})
  CALL (a, t, want) {
    WITH a, t, want
    WHERE t IS NOT NULL AND t <> a AND NOT EXISTS { (a)-[:REFERENCES]->(t) }
    CREATE (a)-[:REFERENCES {id: want.linkId, workspaceId: $workspaceId, origin: 'wikilink', createdAt: $now}]->(t)
  }
  CALL (a, t, want) {
    WITH a, t, want
    WHERE t IS NULL
    MERGE (u:UnresolvedLink {workspaceId: $workspaceId, slug: want.slug})
    MERGE (a)-[:WIKILINK_TO]->(u)
  }
}
RETURN a.id AS id
