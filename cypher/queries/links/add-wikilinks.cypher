// The wikilinks of context nodes just created in this transaction, from the [[slug]]s of their content (parsed by
// the service): what links/sync-wikilinks.cypher makes for a node, without its work of comparing with links the
// node already has, since a new node has none (nothing to delete, no manual link yet, each slug once).
// Params: $workspaceId, $now, $items: list of {nodeId, wanted}, wanted being a list of {slug, linkId} (distinct
// slugs). Columns: links (how many wikilinks were written, resolved or waiting).
// Each wanted slug: a node of the SAME workspace with that slug (other than this node) gets a REFERENCES link of
// origin 'wikilink'; a slug no node has is kept as (this)-[:WIKILINK_TO]->(:UnresolvedLink {workspaceId, slug}).
UNWIND $items AS item
MATCH (a:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
UNWIND item.wanted AS want
OPTIONAL MATCH (t:ContextNode {workspaceId: $workspaceId, slug: want.slug})
CALL (a, t, want) {
  WITH a, t, want
  WHERE t IS NOT NULL AND t <> a
  CREATE (a)-[:REFERENCES {id: want.linkId, workspaceId: $workspaceId, origin: 'wikilink', createdAt: $now}]->(t)
}
CALL (a, t, want) {
  WITH a, t, want
  WHERE t IS NULL
  MERGE (u:UnresolvedLink {workspaceId: $workspaceId, slug: want.slug})
  CREATE (a)-[:WIKILINK_TO]->(u)
}
RETURN count(*) AS links
