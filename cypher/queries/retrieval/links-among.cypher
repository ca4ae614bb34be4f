// The links whose both ends are among the given nodes (bundle mode 'full').
// Params: $workspaceId, $nodeIds, $linkRelTypes, $linkTypeOf (src/nodes/link-types.ts). Columns: link {id, sourceId, targetId, linkType,
// sections (the headings and ^blocks a wikilink names, else empty)}, ordered by id.
MATCH (a:ContextNode)-[r]->(b:ContextNode)
WHERE type(r) IN $linkRelTypes AND a.workspaceId = $workspaceId AND a.id IN $nodeIds AND b.id IN $nodeIds
RETURN {
  id: r.id, sourceId: a.id, targetId: b.id,
  linkType: $linkTypeOf[type(r)], sections: coalesce(r.sections, [])
} AS link
ORDER BY link.id
