// The links whose both ends are among the given nodes (bundle mode 'full').
// Params: $workspaceId, $nodeIds. Columns: link {id, sourceId, targetId, linkType}, ordered by id.
MATCH (a:ContextNode)-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]->(b:ContextNode)
WHERE a.workspaceId = $workspaceId AND a.id IN $nodeIds AND b.id IN $nodeIds
RETURN {
  id: r.id, sourceId: a.id, targetId: b.id,
  linkType: CASE type(r) WHEN 'REQUIRES' THEN 'requires' WHEN 'REFERENCES' THEN 'references'
            WHEN 'RELATES_TO' THEN 'relates-to' WHEN 'SUPERSEDES' THEN 'supersedes' ELSE 'index-entry' END
} AS link
ORDER BY link.id
