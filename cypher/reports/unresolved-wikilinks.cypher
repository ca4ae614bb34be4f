// title: Unresolved wikilinks
// description: Each [[slug]] that no context node has yet, with the nodes whose content mentions it (they
//   become links as soon as a node takes that slug).
// param limit (integer, 1..10000, default 1000): the most slugs to list, the most mentioned first
// columns: slug, mentions, mentionedByIds, mentionedBySlugs
MATCH (u:UnresolvedLink {workspaceId: $workspaceId})<-[:WIKILINK_TO]-(n:ContextNode)
WHERE n.workspaceId = $workspaceId
WITH u, n ORDER BY n.slug
WITH u.slug AS slug, count(n) AS mentions, collect(n.id) AS mentionedByIds, collect(n.slug) AS mentionedBySlugs
RETURN slug, mentions, mentionedByIds, mentionedBySlugs
ORDER BY mentions DESC, slug
LIMIT $limit
