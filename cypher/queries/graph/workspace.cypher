// The whole workspace for the graph view: its context nodes (live ones unless $includeArchived) and playbooks
// (unarchived ones unless $includeArchived), playbooks first, then higher importance, then id, cut at $limit; and
// every link among the nodes kept.
// Params: $workspaceId, $includeArchived, $limit, $linkRelTypes, $linkTypeOf (src/nodes/link-types.ts).
// Columns: nodes [{id, kind, slug, title, nodeType, importance, status}], links [{id, from, to, type, origin}], truncated.
CALL () {
  MATCH (p:Playbook {workspaceId: $workspaceId})
  WHERE $includeArchived OR p.archivedAt IS NULL
  RETURN p AS x
  UNION ALL
  MATCH (n:ContextNode {workspaceId: $workspaceId})
  WHERE $includeArchived OR n.status = 'live'
  RETURN n AS x
}
WITH x
ORDER BY CASE WHEN x:Playbook THEN 0 ELSE 1 END, coalesce(x.importance, -1) DESC, x.id
WITH collect(x) AS matched
WITH matched[0..$limit] AS kept, size(matched) > $limit AS truncated
WITH kept, truncated, CASE WHEN truncated THEN kept[-1] END AS last
// A link's target is a context node; it is kept when it passes the same filter and, in a cut list, sorts no
// later than the last node kept (a test on its own properties: `b IN kept` would scan the list for every link).
CALL (kept, truncated, last) {
  UNWIND kept AS a
  MATCH (a)-[r]->(b:ContextNode {workspaceId: $workspaceId})
  WHERE type(r) IN $linkRelTypes AND ($includeArchived OR b.status = 'live')
    AND (NOT truncated OR (last:ContextNode AND (coalesce(b.importance, -1) > coalesce(last.importance, -1)
         OR (coalesce(b.importance, -1) = coalesce(last.importance, -1) AND b.id <= last.id))))
  WITH a, r, b ORDER BY r.id
  RETURN collect({id: r.id, from: a.id, to: b.id, type: $linkTypeOf[type(r)], origin: r.origin}) AS links
}
RETURN [x IN kept | {id: x.id, kind: CASE WHEN x:Playbook THEN 'playbook' ELSE 'node' END, slug: x.slug, title: x.title,
                     nodeType: CASE WHEN x:Playbook THEN null ELSE x.nodeType END,
                     importance: CASE WHEN x:Playbook THEN null ELSE x.importance END,
                     status: CASE WHEN x:Playbook THEN (CASE WHEN x.archivedAt IS NULL THEN 'active' ELSE 'archived' END) ELSE x.status END}] AS nodes,
       links, truncated
