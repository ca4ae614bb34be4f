// One page of a workspace's playbooks (archived ones never appear). Params: $workspaceId, $status (draft|approved|
// deprecated or null: keep playbooks with at least one version in it), $functionArea (or null), $owner (or null),
// $text (lower-cased text the title, slug or summary contains, or null), $sort (updated_at|title|created_at; title ignores case), $order (asc|desc), $skip, $limit.
// Columns: total (matches before paging), playbooks (list of {id, title, slug, summary, functionArea, visibility,
// ownerId, tags, createdAt, updatedAt, latestVersion {id, versionNumber, status}, activeVersion {id, versionNumber}|null}).
// Ties are broken by id in the same direction, so pages never overlap.
MATCH (p:Playbook {workspaceId: $workspaceId})
WHERE p.archivedAt IS NULL
  AND ($functionArea IS NULL OR p.functionArea = $functionArea)
  AND ($owner IS NULL OR p.ownerId = $owner)
  AND ($text IS NULL OR toLower(p.title) CONTAINS $text OR p.slug CONTAINS $text OR toLower(coalesce(p.summary, '')) CONTAINS $text)
  AND ($status IS NULL OR EXISTS { (p)-[:HAS_VERSION]->(:PlaybookVersion {status: $status}) })
WITH p, CASE $sort WHEN 'title' THEN toLower(p.title) WHEN 'created_at' THEN p.createdAt ELSE p.updatedAt END AS key
ORDER BY CASE WHEN $order = 'asc' THEN key END ASC, CASE WHEN $order = 'asc' THEN p.id END ASC,
         CASE WHEN $order = 'desc' THEN key END DESC, CASE WHEN $order = 'desc' THEN p.id END DESC
WITH collect(p) AS matched
WITH size(matched) AS total, matched[toInteger($skip)..toInteger($skip + $limit)] AS page
CALL (page) {
  UNWIND range(0, size(page) - 1) AS i
  WITH page[i] AS p, i
  OPTIONAL CALL (p) {
    MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion)
    RETURN v ORDER BY v.versionNumber DESC LIMIT 1
  }
  OPTIONAL CALL (p) {
    MATCH (p)-[:HAS_VERSION]->(a:PlaybookVersion {status: 'approved'})
    RETURN a LIMIT 1
  }
  WITH p, v, a, i ORDER BY i
  RETURN collect(p {.id, .title, .slug, .summary, .functionArea, .visibility, .ownerId, .tags, .createdAt, .updatedAt,
                    latestVersion: v {.id, .versionNumber, .status}, activeVersion: a {.id, .versionNumber}}) AS playbooks
}
RETURN total, playbooks
