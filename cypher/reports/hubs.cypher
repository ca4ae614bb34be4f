// title: Hubs
// description: The live context nodes that the most links require or reference (from nodes and playbooks):
//   the ones whose change reaches furthest.
// param linkType (string, one of requires|references|both, default both): which incoming links count
// param limit (integer, 1..1000, default 50): how many nodes to list
// columns: id, slug, title, requiredBy, referencedBy, total
// COUNT { } of one relationship type and direction is read from the node's degree, not by walking the links.
MATCH (n:ContextNode {workspaceId: $workspaceId})
WHERE n.status = 'live'
WITH n, COUNT { (n)<-[:REQUIRES]-() } AS requiredBy, COUNT { (n)<-[:REFERENCES]-() } AS referencedBy
WITH n, requiredBy, referencedBy,
     CASE $linkType WHEN 'requires' THEN requiredBy WHEN 'references' THEN referencedBy ELSE requiredBy + referencedBy END AS total
WHERE total > 0
RETURN n.id AS id, n.slug AS slug, n.title AS title, requiredBy, referencedBy, total
ORDER BY total DESC, id
LIMIT $limit
