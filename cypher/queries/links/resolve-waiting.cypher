// Resolves the wikilinks that were waiting for nodes just created ($nodeIds): every
// (s)-[:WIKILINK_TO]->(:UnresolvedLink {slug}) of the same workspace whose slug one of them has becomes the
// REFERENCES link of origin 'wikilink' that links/sync-wikilinks.cypher would make for it, and the UnresolvedLink
// is deleted (nothing waits on it any more). Only for creation: a new node has no links to it yet, so nothing else
// can change (a slug change re-syncs its sources whole, links/wikilink-sources.cypher). The new link's id is made
// here, like other ids made inside a statement ('lnk_' and 32 hex digits): how many links resolve is known only here.
// Params: $workspaceId, $nodeIds, $now. Columns: resolved (how many links were made).
UNWIND $nodeIds AS nodeId
MATCH (n:ContextNode {id: nodeId, workspaceId: $workspaceId})
MATCH (u:UnresolvedLink {workspaceId: $workspaceId, slug: n.slug})
CALL (n, u) {
  MATCH (s:ContextNode)-[w:WIKILINK_TO]->(u)
  DELETE w
  WITH s
  WHERE s <> n AND NOT EXISTS { (s)-[:REFERENCES]->(n) }
  CREATE (s)-[:REFERENCES {id: 'lnk_' + replace(randomUUID(), '-', ''), workspaceId: $workspaceId, origin: 'wikilink', createdAt: $now}]->(n)
  RETURN count(*) AS resolved
}
DELETE u
RETURN sum(resolved) AS resolved
