// title: Unresolved wikilinks
// description: Each wikilink name that no context node has yet (by slug, file name, path, title or alias), with
//   the nodes whose content mentions it (they become links as soon as a node takes that name).
// param limit (integer, 1..10000, default 1000): the most names to list, the most mentioned first
// columns: link, mentions, mentionedByIds, mentionedBySlugs
MATCH (k:WikiName {workspaceId: $workspaceId})<-[w:WIKILINK_TO]-(n:ContextNode)
WHERE n.workspaceId = $workspaceId AND NOT EXISTS { (:ContextNode)-[:NAMED]->(k) }
WITH k, w, n ORDER BY n.slug
WITH k, min(w.text) AS link, count(n) AS mentions, collect(n.id) AS mentionedByIds, collect(n.slug) AS mentionedBySlugs
RETURN link, mentions, mentionedByIds, mentionedBySlugs
ORDER BY mentions DESC, link
LIMIT $limit
