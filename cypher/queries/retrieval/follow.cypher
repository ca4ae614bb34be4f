// GET {ws}/context/nodes/{nodeId}/follow: the live context nodes around a start node, ranked with the bundle's
// ordering rules (docs/api.md, "Retrieval"). Does not count against the quota.
//
// Parameters
//   $workspaceId  string   the caller's workspace
//   $nodeId       string   start node; unknown, archived or in another workspace => ZERO rows (caller answers 404)
//   $linkTypes    list<string>|null  relationship type names to walk, e.g. ['REQUIRES', 'REFERENCES'] (API
//                 'relates-to' => 'RELATES_TO'); null = all of $linkRelTypes. Matched with type(r) IN linkTypes,
//                 never spliced into the text.
//   $linkRelTypes, $linkTypeOf  the relationship types of links and relationship type -> API link type
//                 (src/nodes/link-types.ts); the patterns below spell the same types, for a typed expansion
//   $direction    'outgoing' | 'incoming' | 'both'
//   $depth        int 1..5 hops from the start node
//   $maxNodes     int >= 1, hard cap on returned nodes
//
// Result: exactly ONE row (when the start node is visible), columns
//   node   {id, title, slug} of the start node
//   nodes  list in rank order, at most $maxNodes, each {id, slug, title, nodeType, importance,
//          linkType ('requires'|'references'|'relates-to'|'supersedes'|'index-entry', the last link of the best
//          path), depth (hops on that path), path (node ids from the START node, included, to this node, included),
//          score, tokenCount (the o200k tokens of its content, stored when it was written)}
//
// Walk: breadth first over the chosen link types and direction, into live ContextNodes of the workspace only
// (playbooks on incoming links are not results; archived nodes are neither returned nor walked through; the
// start node is never a result). Unlike the bundle there are no readFirst seeds, no edgeCaseOnly filter (the
// caller asked for exactly this neighbourhood) and no unbounded requires-closure: $depth bounds every link type.
// SUPERSEDES is walked like any other link when asked for. linkType is the relationship type whatever the
// direction it was walked in. The walk is unrolled one CALL block per depth (guarded by $depth, no-op on an
// empty frontier; the incoming/outgoing branch not asked for is never expanded). Integer parameters may arrive
// as floats (plain JS numbers): they go through toInteger().
//
// Order (why: the same reading priority as the bundle, so an agent that follows links sees what it must read
// first and never a replaced document ahead of its replacement):
//   1. not superseded first (superseded = target of a SUPERSEDES link from the start node or any node found,
//      whatever $linkTypes says);
//   2. kind of the last link of the best path: requires > references > relates-to > index-entry > supersedes;
//   3. fewer hops; 4. higher importance; 5. id ascending.
// score = notSuperseded*10^7 + kindWeight*10^6 + (1000 - depth)*10^3 + importance(clamped 0..100), kindWeight
// requires 4, references 3, relates-to 2, index-entry 1, supersedes 0 (the bundle's scale); ordered by score
// DESC, id ASC. The best path of a node: highest kind, then fewest hops, then smallest predecessor id; a node is
// walked from once, along its shortest path (smallest predecessor id on ties), and path extends that path.
MATCH (s:ContextNode {id: $nodeId})
WHERE s.workspaceId = $workspaceId AND s.status = 'live'
WITH s, coalesce($linkTypes, $linkRelTypes) AS linkTypes

// ---- depth 1
CALL (s, linkTypes) {
  CALL (s, linkTypes) {
    MATCH (s)-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]->(n:ContextNode)
    WHERE $direction IN ['outgoing', 'both'] AND type(r) IN linkTypes
    RETURN r, n
    UNION ALL
    MATCH (s)<-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-(n:ContextNode)
    WHERE $direction IN ['incoming', 'both'] AND type(r) IN linkTypes
    RETURN r, n
  }
  WITH s, r, n
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> s
  RETURN collect({node: n, kind: type(r), depth: 1, fromId: s.id, path: [s.id, n.id]}) AS arrivals
}

// ---- depths 2..5: walk from the nodes first reached at the previous depth (unrolled, guarded by $depth)
CALL (s, linkTypes, arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d, collect(a) AS ways
  WHERE d = 1 AND toInteger($depth) >= 2
  WITH m, reduce(b = null, x IN ways | CASE WHEN x.depth = d AND (b IS NULL OR x.fromId < b.fromId) THEN x ELSE b END).path AS via
  CALL (m, linkTypes) {
    MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]->(n:ContextNode)
    WHERE $direction IN ['outgoing', 'both'] AND type(r) IN linkTypes
    RETURN r, n
    UNION ALL
    MATCH (m)<-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-(n:ContextNode)
    WHERE $direction IN ['incoming', 'both'] AND type(r) IN linkTypes
    RETURN r, n
  }
  WITH m, via, r, n
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> s
  RETURN collect({node: n, kind: type(r), depth: 2, fromId: m.id, path: via + [n.id]}) AS next
}
WITH s, linkTypes, arrivals + next AS arrivals
CALL (s, linkTypes, arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d, collect(a) AS ways
  WHERE d = 2 AND toInteger($depth) >= 3
  WITH m, reduce(b = null, x IN ways | CASE WHEN x.depth = d AND (b IS NULL OR x.fromId < b.fromId) THEN x ELSE b END).path AS via
  CALL (m, linkTypes) {
    MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]->(n:ContextNode)
    WHERE $direction IN ['outgoing', 'both'] AND type(r) IN linkTypes
    RETURN r, n
    UNION ALL
    MATCH (m)<-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-(n:ContextNode)
    WHERE $direction IN ['incoming', 'both'] AND type(r) IN linkTypes
    RETURN r, n
  }
  WITH m, via, r, n
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> s
  RETURN collect({node: n, kind: type(r), depth: 3, fromId: m.id, path: via + [n.id]}) AS next
}
WITH s, linkTypes, arrivals + next AS arrivals
CALL (s, linkTypes, arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d, collect(a) AS ways
  WHERE d = 3 AND toInteger($depth) >= 4
  WITH m, reduce(b = null, x IN ways | CASE WHEN x.depth = d AND (b IS NULL OR x.fromId < b.fromId) THEN x ELSE b END).path AS via
  CALL (m, linkTypes) {
    MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]->(n:ContextNode)
    WHERE $direction IN ['outgoing', 'both'] AND type(r) IN linkTypes
    RETURN r, n
    UNION ALL
    MATCH (m)<-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-(n:ContextNode)
    WHERE $direction IN ['incoming', 'both'] AND type(r) IN linkTypes
    RETURN r, n
  }
  WITH m, via, r, n
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> s
  RETURN collect({node: n, kind: type(r), depth: 4, fromId: m.id, path: via + [n.id]}) AS next
}
WITH s, linkTypes, arrivals + next AS arrivals
CALL (s, linkTypes, arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d, collect(a) AS ways
  WHERE d = 4 AND toInteger($depth) >= 5
  WITH m, reduce(b = null, x IN ways | CASE WHEN x.depth = d AND (b IS NULL OR x.fromId < b.fromId) THEN x ELSE b END).path AS via
  CALL (m, linkTypes) {
    MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]->(n:ContextNode)
    WHERE $direction IN ['outgoing', 'both'] AND type(r) IN linkTypes
    RETURN r, n
    UNION ALL
    MATCH (m)<-[r:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-(n:ContextNode)
    WHERE $direction IN ['incoming', 'both'] AND type(r) IN linkTypes
    RETURN r, n
  }
  WITH m, via, r, n
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> s
  RETURN collect({node: n, kind: type(r), depth: 5, fromId: m.id, path: via + [n.id]}) AS next
}
WITH s, arrivals + next AS arrivals

// ---- the best path of every node found
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a, CASE a.kind WHEN 'REQUIRES' THEN 4 WHEN 'REFERENCES' THEN 3 WHEN 'RELATES_TO' THEN 2
                      WHEN 'INDEX_ENTRY' THEN 1 ELSE 0 END AS w
  WITH a.node AS n, collect({kind: a.kind, w: w, depth: a.depth, fromId: a.fromId, path: a.path}) AS ways
  RETURN collect({node: n, best: reduce(b = head(ways), x IN tail(ways) |
    CASE WHEN x.w > b.w OR (x.w = b.w AND (x.depth < b.depth OR (x.depth = b.depth AND x.fromId < b.fromId)))
         THEN x ELSE b END)}) AS found
}
// ---- superseded: targets of SUPERSEDES from the start node or any node found (joined by grouping, not by
// list membership, so the cost stays linear in the number of nodes found)
CALL (s, found) {
  UNWIND [s] + [f IN found | f.node] AS x
  MATCH (x)-[:SUPERSEDES]->(t:ContextNode)
  RETURN collect(t) AS superseded
}
CALL (found, superseded) {
  UNWIND [f IN found | {node: f.node, best: f.best, sup: 0}] + [t IN superseded | {node: t, best: null, sup: 1}] AS e
  WITH e.node AS n, collect(e.best) AS bests, max(e.sup) AS sup
  WHERE size(bests) > 0
  WITH n, head(bests) AS best, n.id AS id, sup, n.importance AS imp
  WITH n, best, id, (1 - sup) * 10000000 + best.w * 1000000
       + (1000 - best.depth) * 1000
       + CASE WHEN imp IS NULL OR imp < 0 THEN 0 WHEN imp > 100 THEN 100 ELSE imp END AS score
  ORDER BY score DESC, id ASC
  LIMIT toInteger($maxNodes)
  RETURN collect({
    id: id, slug: n.slug, title: n.title, nodeType: n.nodeType, importance: n.importance,
    linkType: $linkTypeOf[best.kind],
    depth: best.depth, path: best.path, score: score, tokenCount: coalesce(n.tokenCount, 0)
  }) AS nodes
}
RETURN {id: s.id, title: s.title, slug: s.slug} AS node, nodes
