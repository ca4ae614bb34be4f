// What a bulk import compares its batch with: the workspace's context nodes that have one of $slugs (the batch's
// own slugs, the slugs its links name and the slugs it archives), whatever their status, each with its outgoing
// links. Read inside the import's write transaction, after the workspace's graph lock.
// Params: $workspaceId, $slugs, $linkRelTypes (src/nodes/link-types.ts).
// Columns: node (id, slug, title, description, content, nodeType, agentSummary, importance, readFirst,
// edgeCaseOnly, status, aliases, tags, sourcePath), links (list of {relType, targetSlug, origin}).
UNWIND $slugs AS slug
MATCH (n:ContextNode {workspaceId: $workspaceId, slug: slug})
RETURN n {.id, .slug, .title, .description, .content, .nodeType, .agentSummary, .importance, .readFirst,
          .edgeCaseOnly, .status, .aliases, .tags, .sourcePath} AS node,
       COLLECT {
         MATCH (n)-[r]->(t:ContextNode)
         WHERE type(r) IN $linkRelTypes
         RETURN {relType: type(r), targetSlug: t.slug, origin: r.origin}
       } AS links
