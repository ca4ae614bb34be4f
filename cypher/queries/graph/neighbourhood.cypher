// A playbook's neighbourhood for the graph view: the playbook, and the context nodes and playbooks reached from it
// by links followed either way, up to $depth hops (1..5), through live nodes and unarchived playbooks only unless
// $includeArchived; the closest first (then playbooks, higher importance, id), cut at $limit; and every link among
// the nodes kept. The hops are written out (a variable-length bound cannot be a parameter); each expands only the
// nodes first reached by the one before, so every node is expanded once.
// Params: $workspaceId, $playbookId, $depth, $includeArchived, $limit, $linkRelTypes, $linkTypeOf
// (src/nodes/link-types.ts). Columns: nodes [{id, kind, slug, title, nodeType, importance, status}],
// links [{id, from, to, type, origin}], truncated. No nodes: no such playbook in the workspace.
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})
WITH [{node: p, depth: 0}] AS reach0
CALL (reach0) {
  UNWIND reach0 AS e
  WITH e.node AS x, e.depth AS d
  CALL (x, d) {
    RETURN x AS z, d AS dz
    UNION
    MATCH (x)-[r]-(z)
    WHERE $depth >= 1 AND d = 0 AND type(r) IN $linkRelTypes AND z.workspaceId = $workspaceId
      AND ((z:ContextNode AND ($includeArchived OR z.status = 'live')) OR (z:Playbook AND ($includeArchived OR z.archivedAt IS NULL)))
    RETURN z, d + 1 AS dz
  }
  WITH z, min(dz) AS dz
  RETURN collect({node: z, depth: dz}) AS reach1
}
CALL (reach1) {
  UNWIND reach1 AS e
  WITH e.node AS x, e.depth AS d
  CALL (x, d) {
    RETURN x AS z, d AS dz
    UNION
    MATCH (x)-[r]-(z)
    WHERE $depth >= 2 AND d = 1 AND type(r) IN $linkRelTypes AND z.workspaceId = $workspaceId
      AND ((z:ContextNode AND ($includeArchived OR z.status = 'live')) OR (z:Playbook AND ($includeArchived OR z.archivedAt IS NULL)))
    RETURN z, d + 1 AS dz
  }
  WITH z, min(dz) AS dz
  RETURN collect({node: z, depth: dz}) AS reach2
}
CALL (reach2) {
  UNWIND reach2 AS e
  WITH e.node AS x, e.depth AS d
  CALL (x, d) {
    RETURN x AS z, d AS dz
    UNION
    MATCH (x)-[r]-(z)
    WHERE $depth >= 3 AND d = 2 AND type(r) IN $linkRelTypes AND z.workspaceId = $workspaceId
      AND ((z:ContextNode AND ($includeArchived OR z.status = 'live')) OR (z:Playbook AND ($includeArchived OR z.archivedAt IS NULL)))
    RETURN z, d + 1 AS dz
  }
  WITH z, min(dz) AS dz
  RETURN collect({node: z, depth: dz}) AS reach3
}
CALL (reach3) {
  UNWIND reach3 AS e
  WITH e.node AS x, e.depth AS d
  CALL (x, d) {
    RETURN x AS z, d AS dz
    UNION
    MATCH (x)-[r]-(z)
    WHERE $depth >= 4 AND d = 3 AND type(r) IN $linkRelTypes AND z.workspaceId = $workspaceId
      AND ((z:ContextNode AND ($includeArchived OR z.status = 'live')) OR (z:Playbook AND ($includeArchived OR z.archivedAt IS NULL)))
    RETURN z, d + 1 AS dz
  }
  WITH z, min(dz) AS dz
  RETURN collect({node: z, depth: dz}) AS reach4
}
CALL (reach4) {
  UNWIND reach4 AS e
  WITH e.node AS x, e.depth AS d
  CALL (x, d) {
    RETURN x AS z, d AS dz
    UNION
    MATCH (x)-[r]-(z)
    WHERE $depth >= 5 AND d = 4 AND type(r) IN $linkRelTypes AND z.workspaceId = $workspaceId
      AND ((z:ContextNode AND ($includeArchived OR z.status = 'live')) OR (z:Playbook AND ($includeArchived OR z.archivedAt IS NULL)))
    RETURN z, d + 1 AS dz
  }
  WITH z, min(dz) AS dz
  RETURN collect({node: z, depth: dz}) AS reach5
}
UNWIND reach5 AS e
WITH e.node AS x, e.depth AS d
ORDER BY d, CASE WHEN x:Playbook THEN 0 ELSE 1 END, coalesce(x.importance, -1) DESC, x.id
WITH collect(x) AS reached
WITH reached[0..$limit] AS kept, size(reached) > $limit AS truncated
CALL (kept) {
  UNWIND kept AS a
  MATCH (a)-[r]->(b)
  WHERE type(r) IN $linkRelTypes AND b IN kept
  WITH a, r, b ORDER BY r.id
  RETURN collect({id: r.id, from: a.id, to: b.id, type: $linkTypeOf[type(r)], origin: r.origin}) AS links
}
RETURN [x IN kept | {id: x.id, kind: CASE WHEN x:Playbook THEN 'playbook' ELSE 'node' END, slug: x.slug, title: x.title,
                     nodeType: CASE WHEN x:Playbook THEN null ELSE x.nodeType END,
                     importance: CASE WHEN x:Playbook THEN null ELSE x.importance END,
                     status: CASE WHEN x:Playbook THEN (CASE WHEN x.archivedAt IS NULL THEN 'active' ELSE 'archived' END) ELSE x.status END}] AS nodes,
       links, truncated
