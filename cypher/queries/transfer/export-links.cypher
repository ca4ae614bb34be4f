// A workspace export's links: every link from a playbook or a context node of the workspace to one of its context
// nodes, oldest first (ties by source kind and slug, target slug and type, so that the order depends on the
// content, not on ids). Params: $workspaceId, $linkRelTypes, $linkTypeOf (src/nodes/link-types.ts).
// Columns: link ({id, sourceType, sourceId, targetId, linkType, origin, createdAt}).
MATCH (s)-[r]->(t:ContextNode {workspaceId: $workspaceId})
WHERE type(r) IN $linkRelTypes AND (s:ContextNode OR s:Playbook) AND s.workspaceId = $workspaceId
WITH s, r, t, CASE WHEN s:Playbook THEN 'playbook' ELSE 'context_node' END AS sourceType
ORDER BY r.createdAt, sourceType, s.slug, t.slug, type(r)
RETURN {id: r.id, sourceType: sourceType, sourceId: s.id, targetId: t.id, linkType: $linkTypeOf[type(r)],
        origin: r.origin, createdAt: r.createdAt} AS link
