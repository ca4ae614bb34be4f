// A workspace export's playbooks, oldest first (createdAt, then slug), each with every version, oldest first.
// Params: $workspaceId. Columns: playbook (map of its stored properties; absent ones null), versions (list of
// maps; content is JSON text).
MATCH (p:Playbook {workspaceId: $workspaceId})
WITH p ORDER BY p.createdAt, p.slug
RETURN p {.id, .slug, .title, .summary, .description, .functionArea, .visibility, .ownerId, .tags, .createdAt,
          .updatedAt, .archivedAt} AS playbook,
       COLLECT {
         MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion)
         WITH v ORDER BY v.versionNumber
         RETURN v {.id, .versionNumber, .status, .content, .changeNote, .createdAt, .createdBy, .approvedAt}
       } AS versions
