// The slugs of the workspace's approved playbooks (not archived) that start with what was typed, in slug order: what
// an MCP client completes run_playbook's argument and playbook://{slug} with. The seek and the order are the
// (workspaceId, slug) index's (playbook_slug).
// Params: $workspaceId, $prefix (lower-cased, NFC; '' for every slug), $limit. Columns: slug.
MATCH (p:Playbook)
WHERE p.workspaceId = $workspaceId AND p.slug STARTS WITH $prefix AND p.archivedAt IS NULL
  AND EXISTS { (p)-[:HAS_VERSION]->(:PlaybookVersion {status: 'approved'}) }
RETURN p.slug AS slug
ORDER BY p.slug
LIMIT toInteger($limit)
