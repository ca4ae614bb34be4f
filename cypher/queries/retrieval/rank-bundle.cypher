// Ranked context of a playbook, shared by GET {ws}/context/bundle and GET {ws}/context/manifest
// (the ranking rules of docs/api.md, "Retrieval").
//
// Parameters
//   $workspaceId   string   the caller's workspace; every node read is scoped by it
//   $playbookId    string   the playbook; missing, archived (archivedAt set) or in another workspace => ZERO rows (404)
//   $depth         int 1..5 hops from the playbook that any link type may take (caller applies the default 2)
//   $maxNodes      int 1..100  hard cap on returned nodes
//   $changedSince  string|null  ISO timestamp; when set only ranked nodes with updatedAt > it are kept
//   $withContent   boolean  true => `content` is read and returned (bundle standard/full); false => null
//   $includeAnnotations boolean, $principalId string: add the annotations that principal may see
//
// Result: exactly ONE row (when the playbook is visible), columns
//   nodes           list of maps in rank order (best first), at most $maxNodes, each
//                   {id, slug, title, nodeType, importance, readFirst, edgeCaseOnly, updatedAt,
//                    score, reasonKind, reasonFromId, reasonDepth, content, approxTokens, description, agentSummary}
//                   reasonKind: 'READ_FIRST'|'REQUIRES'|'REFERENCES'|'RELATES_TO'|'INDEX_ENTRY' = relationship type
//                   of the last link on the node's best path (the service names it as the API does, from
//                   src/nodes/link-types.ts); reasonFromId = playbook or node that link comes from
//                   (null for read-first); reasonDepth = hops from the playbook on that path (read-first = 1);
//                   reasonFeedback = the types of open outdated/incorrect feedback about the node (sorted; [] when none).
//                   content is null unless $withContent; description/agentSummary always (manifest, mode=full);
//                   approxTokens = ceil(characters of content / 4), for the manifest (content itself not sent);
//                   tokenCount, descriptionTokenCount, agentSummaryTokenCount: the o200k token counts stored
//                   when the node was written (null for a node the start-up backfill has not reached yet).
//   omittedNodeIds  ids cut off by $maxNodes, in rank order (truncated = size(omittedNodeIds) > 0)
//   rankedCount     number of ranked nodes after the changedSince filter (= size(nodes) + size(omittedNodeIds))
//   playbook        {id, title, slug}; latestVersion {id, versionNumber, status} (highest number);
//   activeVersion   {id, versionNumber, status, content (JSON text), changeNote} of the approved version, or null;
//   versionIds      every version's id
//   annotations     (when $includeAnnotations) the annotations $principalId may see on the playbook, its versions
//                   and the returned nodes, oldest first, in the API's shape
//
// Candidates (rules 1, 2, 5, 6): a breadth-first walk from the playbook over REQUIRES|REFERENCES|RELATES_TO|
// INDEX_ENTRY links into live nodes of the workspace. Live readFirst nodes are seeds at depth 1 (reason
// read-first). Any link type may be taken while the hop count stays <= $depth; beyond it only REQUIRES links are
// followed, without limit, so the requires-closure of the playbook and of every candidate is always complete.
// SUPERSEDES is not walked: it only marks its target. An edgeCaseOnly node is admitted (and walked from) only
// when the link reaching it comes straight from the playbook or is a REQUIRES link; an edgeCaseOnly readFirst
// node is not a read-first seed. Archived nodes are never admitted, so nothing is reached through them.
// Every node is expanded once, from its smallest admitted depth; that is enough to find, for every link kind,
// the smallest depth at which a node is reached by it.
// Cost: the walk is unrolled one CALL block per depth (2..8, each guarded by $depth and a no-op when its
// frontier is empty), so it touches the neighbourhood only - never paths beyond $depth; requires chains longer
// than 8 hops fall back to one shortest-path search per node at depth 8.
// Unrolled, not iterated (reduce over range(2, 8) with a COLLECT step): that form runs out of memory at depth 5.
// Link types are literal in patterns (those of src/nodes/link-types.ts): a typed expansion reads the fewest. Integer parameters may arrive as
// floats (plain JS numbers): they go through toInteger().
//
// Order (why): what an agent must read comes before what it may read, and a replaced document must never
// crowd out its replacement. So, lexicographically:
//   1. not superseded before superseded (a node the playbook or any candidate SUPERSEDES) or flagged by open
//      outdated/incorrect feedback (same tier), rule 4 - it dominates
//      everything, even mandatory-ness: reading a replaced document first would mislead;
//   2. kind of the best path: read-first > requires (both mandatory, rule 2) > references > relates-to >
//      index-entry (rule 3); the best path of a node is the one with the highest kind, then the fewest hops;
//   3. fewer hops first; 4. higher importance first; 5. id ascending (rule 7).
// score = notDemoted*10^7 (demoted = superseded or flagged) + kindWeight*10^6 + (1000 - min(depth, 999))*10^3 + importance(clamped 0..100),
// kindWeight read-first 5, requires 4, references 3, relates-to 2, index-entry 1; the statement orders by
// score DESC, id ASC, so score and order agree by construction (requires chains deeper than 999 hops tie on depth).
// Among equally good paths reasonFromId is the smallest id.
//
// changedSince is applied after ranking and before the cap: rank everything, keep updatedAt > $changedSince,
// then cut at $maxNodes; omittedNodeIds lists only changed nodes beyond the cap.
// Large properties (content, description, agentSummary) and display fields are read only for returned nodes.
MATCH (p:Playbook {id: $playbookId})
WHERE p.workspaceId = $workspaceId AND p.archivedAt IS NULL

// ---- depth 1: links straight from the playbook (edgeCaseOnly allowed), the readFirst seeds, and the nodes the
// playbook supersedes. Arrivals are maps {node, kind (relationship type or READ_FIRST), depth, fromId}; a
// SUPERSEDES arrival (depth null) only marks its target as superseded and never admits it.
CALL (p) {
  MATCH (p)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId AND (n.status = 'live' OR r:SUPERSEDES)
  RETURN collect({node: n, kind: type(r), depth: CASE WHEN NOT r:SUPERSEDES THEN 1 END, fromId: p.id}) AS linked
}
CALL () {
  MATCH (n:ContextNode {workspaceId: $workspaceId, readFirst: true})
  WHERE n.status = 'live' AND coalesce(n.edgeCaseOnly, false) = false
  RETURN collect({node: n, kind: 'READ_FIRST', depth: 1, fromId: null}) AS seeds
}
WITH p, linked + seeds AS arrivals

// ---- depths 2..8, one block per depth: expand (once) the nodes first admitted at the previous depth. Up to
// $depth every link type is taken (edgeCaseOnly targets only over REQUIRES); beyond $depth only REQUIRES.
// SUPERSEDES links of every expanded node are recorded as marks. A block whose frontier is empty costs nothing.
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 1
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (2 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 2 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 2
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (3 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 3 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 3
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (4 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 4 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 4
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (5 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 5 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 5
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (6 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 6 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 6
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (7 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 7 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d = 7
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId
  WITH m, n, type(r) AS t
  WHERE t = 'SUPERSEDES' OR (n.status = 'live'
    AND (t = 'REQUIRES' OR (8 <= toInteger($depth) AND coalesce(n.edgeCaseOnly, false) = false)))
  RETURN collect({node: n, kind: t, depth: CASE WHEN t <> 'SUPERSEDES' THEN 8 END, fromId: m.id}) AS next
}
WITH p, arrivals + next AS arrivals

// ---- requires chains longer than depth 8 (rare): one shortest-path search from each node first admitted at
// depth 8 gives every node beyond it its smallest depth; anything shallower was expanded above, so a chain can
// only leave the admitted nodes from depth 8.
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS s, min(a.depth) AS d
  WHERE d = 8
  MATCH path = ANY SHORTEST (s)(()-[:REQUIRES]->(x:ContextNode WHERE x.workspaceId = $workspaceId AND x.status = 'live'))+(n)
  WITH n, 8 + min(length(path)) AS d
  RETURN collect({node: n, depth: d}) AS reach
}
// Every node first admitted at depth >= 8 is expanded once over REQUIRES and SUPERSEDES from its smallest
// depth, which yields its arrivals with every predecessor at the right depth (reasonFromId = smallest id).
CALL (arrivals, reach) {
  UNWIND arrivals + reach AS a
  WITH a.node AS m, min(a.depth) AS d
  WHERE d >= 8
  MATCH (m)-[r:REQUIRES|SUPERSEDES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId AND (n.status = 'live' OR r:SUPERSEDES)
  RETURN collect({node: n, kind: type(r), depth: CASE WHEN NOT r:SUPERSEDES THEN d + 1 END, fromId: m.id}) AS closure
}
WITH p, arrivals + closure AS arrivals

// ---- the best path of every candidate, its score, changedSince, rank order
CALL (arrivals) {
  UNWIND arrivals AS a
  WITH a.node AS n,
       collect(CASE WHEN a.depth IS NOT NULL THEN {
         kind: a.kind, depth: a.depth, fromId: a.fromId,
         w: CASE a.kind WHEN 'READ_FIRST' THEN 5 WHEN 'REQUIRES' THEN 4 WHEN 'REFERENCES' THEN 3
                        WHEN 'RELATES_TO' THEN 2 ELSE 1 END} END) AS ways,
       max(CASE WHEN a.depth IS NULL THEN 1 ELSE 0 END) AS superseded
  WHERE size(ways) > 0
  WITH n, superseded, reduce(b = head(ways), x IN tail(ways) |
         CASE WHEN x.w > b.w OR (x.w = b.w AND (x.depth < b.depth OR (x.depth = b.depth AND x.fromId < b.fromId)))
              THEN x ELSE b END) AS best, n.importance AS imp
  // Open outdated or incorrect feedback about a node demotes it like a superseded one (rule 1's tier): an
  // agent reads what nobody has flagged first. Resolving or dismissing the feedback restores the node.
  WITH n, superseded, best, imp, COLLECT {
         MATCH (f:Feedback)-[:ABOUT]->(n)
         WHERE f.workspaceId = $workspaceId AND f.status = 'open' AND f.feedbackType IN ['outdated', 'incorrect']
         RETURN DISTINCT f.feedbackType ORDER BY f.feedbackType
       } AS flags
  WITH n, best, flags, n.id AS id,
       (1 - CASE WHEN superseded = 1 OR size(flags) > 0 THEN 1 ELSE 0 END) * 10000000 + best.w * 1000000
       + (1000 - CASE WHEN best.depth > 999 THEN 999 ELSE best.depth END) * 1000
       + CASE WHEN imp IS NULL OR imp < 0 THEN 0 WHEN imp > 100 THEN 100 ELSE imp END AS score
  WHERE $changedSince IS NULL OR n.updatedAt > $changedSince
  WITH n, best, flags, id, score
  ORDER BY score DESC, id ASC
  RETURN collect({node: n, best: best, score: score, flags: flags}) AS ranked
}
WITH p, ranked[0..toInteger($maxNodes)] AS kept, ranked[toInteger($maxNodes)..] AS cut, size(ranked) AS rankedCount,
     COLLECT { MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion) RETURN v.id } AS versionIds
RETURN
  [r IN kept | {
    id: r.node.id, slug: r.node.slug, title: r.node.title, nodeType: r.node.nodeType,
    importance: r.node.importance, readFirst: r.node.readFirst, edgeCaseOnly: r.node.edgeCaseOnly,
    updatedAt: r.node.updatedAt, score: r.score,
    reasonKind: r.best.kind,
    reasonFromId: r.best.fromId, reasonDepth: r.best.depth, reasonFeedback: r.flags,
    content: CASE WHEN $withContent THEN r.node.content END,
    approxTokens: toInteger(ceil(size(coalesce(r.node.content, '')) / 4.0)),
    tokenCount: r.node.tokenCount, descriptionTokenCount: r.node.descriptionTokenCount,
    agentSummaryTokenCount: r.node.agentSummaryTokenCount,
    description: r.node.description, agentSummary: r.node.agentSummary
  }] AS nodes,
  [r IN cut | r.node.id] AS omittedNodeIds,
  rankedCount,
  p {.id, .title, .slug} AS playbook,
  head(COLLECT {
    MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion)
    RETURN v {.id, .versionNumber, .status} AS v ORDER BY v.versionNumber DESC LIMIT 1
  }) AS latestVersion,
  head(COLLECT {
    MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion {status: 'approved'})
    RETURN v {.id, .versionNumber, .status, .content, .changeNote} AS v LIMIT 1
  }) AS activeVersion,
  // The annotations the caller may see on the playbook, its versions and the returned nodes, in the same
  // round trip: workspace overlays, and agent-local ones written by $principalId. Oldest first.
  CASE WHEN $includeAnnotations THEN COLLECT {
    MATCH (a:Annotation)
    WHERE a.workspaceId = $workspaceId
      AND a.targetId IN [p.id] + versionIds + [r IN kept | r.node.id]
      AND (a.scopeType = 'workspace_overlay' OR a.authorId = $principalId)
    WITH a ORDER BY a.createdAt ASC, a.id ASC
    RETURN a {.id, .targetType, .targetId, .scopeType, .title, .content, .source, .authorId, .createdAt}
  } ELSE [] END AS annotations
