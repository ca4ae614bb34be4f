// One context node with its links. Params: $workspaceId, $nodeId, $linkRelTypes (the relationship types of
// links), $linkTypeOf (relationship type -> API link type), both from src/nodes/link-types.ts.
// Columns: node (the ContextNode's properties), outgoing and incoming (lists of
// {id, sourceId, sourceType, targetId, linkType, origin, createdAt, sections, title, slug}, title and slug being
// the other end's, oldest first), unresolved (the names of wikilinks no node has yet, as written, sorted). No row when the node is
// not in the workspace.
MATCH (n:ContextNode {id: $nodeId, workspaceId: $workspaceId})
RETURN n {.id, .slug, .title, .description, .content, .nodeType, .agentSummary, .importance, .readFirst,
          .edgeCaseOnly, .status, .createdAt, .updatedAt, .archivedAt, .aliases, .tags, .sourcePath} AS node,
       COLLECT {
         MATCH (n)-[r]->(t:ContextNode)
         WHERE type(r) IN $linkRelTypes
         WITH r, t ORDER BY r.createdAt, r.id
         RETURN {id: r.id, sourceId: n.id, sourceType: 'context_node', targetId: t.id, linkType: $linkTypeOf[type(r)],
                 origin: r.origin, createdAt: r.createdAt, sections: coalesce(r.sections, []), title: t.title, slug: t.slug}
       } AS outgoing,
       COLLECT {
         MATCH (s)-[r]->(n)
         WHERE type(r) IN $linkRelTypes AND (s:ContextNode OR s:Playbook) AND s.workspaceId = $workspaceId
         WITH r, s ORDER BY r.createdAt, r.id
         RETURN {id: r.id, sourceId: s.id, sourceType: CASE WHEN s:Playbook THEN 'playbook' ELSE 'context_node' END,
                 targetId: n.id, linkType: $linkTypeOf[type(r)], origin: r.origin, createdAt: r.createdAt, sections: coalesce(r.sections, []), title: s.title, slug: s.slug}
       } AS incoming,
       COLLECT {
         MATCH (n)-[w:WIKILINK_TO]->(k:WikiName)
         WHERE NOT EXISTS { (:ContextNode)-[:NAMED]->(k) }
         WITH w ORDER BY w.text
         RETURN w.text
       } AS unresolved
