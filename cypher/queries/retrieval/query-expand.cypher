// One step of a context query's walk along links, and, after the walk's last step, all the rest the ranking
// needs, in one round trip (src/retrieval/query-service.ts):
// - links: the live nodes of the workspace linked from (out) or to (in) the $frontier's nodes by a requires,
//   references, relates-to or index-entry link, at most $perNode per frontier node (requires first, then the most
//   important), so that a hub cannot flood the answer. An edge-case-only node is reached only by a link of its own
//   pointing at it from the frontier.
// - with $last, from every node of $known and every node the links reach: their requires closure (every requires
//   link out of a live node that they reach by requires links within 7 steps through live nodes, with the step at
//   which the walk reaches it, 1 for a link out of a node of the answer), and the marks of all of them: whether a
//   live node or playbook supersedes the node, the types of open outdated/incorrect feedback about it (both demote
//   it, as in a bundle), whether it is in the neighbourhood of $playbookId (linked from the playbook, or from a
//   node it links to), and the fields the query's filters look at.
// Params: $workspaceId, $frontier (node ids), $known (node ids: the candidates so far), $perNode, $last (boolean),
// $playbookId (or null).
// One row: links [{fromId, toId, type, out}], requires [{fromId, toId, type, out, step}],
// marks [{id, nodeType, tags, superseded, flags, nearPlaybook}] (empty unless $last).
CALL () {
  UNWIND $frontier AS fromId
  MATCH (m:ContextNode {id: fromId})
  WHERE m.workspaceId = $workspaceId
  CALL (m) {
    MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]-(n:ContextNode)
    WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> m
      AND (startNode(r) = m OR NOT coalesce(n.edgeCaseOnly, false))
    WITH n, r, startNode(r) = m AS out
    ORDER BY CASE type(r) WHEN 'REQUIRES' THEN 0 ELSE 1 END, out DESC, n.importance DESC, n.id ASC
    LIMIT toInteger($perNode)
    RETURN n.id AS toId, type(r) AS type, out
  }
  RETURN collect({fromId: m.id, toId: toId, type: type, out: out}) AS links
}
CALL (links) {
  WITH links WHERE $last
  UNWIND $known + [l IN links | l.toId] AS fromId
  WITH DISTINCT fromId
  MATCH (m:ContextNode {id: fromId})
  WHERE m.workspaceId = $workspaceId AND m.status = 'live'
  MATCH p = ANY SHORTEST (m)(()-[:REQUIRES]->(:ContextNode {workspaceId: $workspaceId, status: 'live'})){0,7}(a)
  WITH a, min(length(p)) AS before
  MATCH (a)-[:REQUIRES]->(n:ContextNode)
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> a
  RETURN collect({fromId: a.id, toId: n.id, type: 'REQUIRES', out: true, step: before + 1}) AS requires
}
CALL (links, requires) {
  WITH links, requires WHERE $last
  OPTIONAL MATCH (p:Playbook {id: $playbookId})
  WHERE p.workspaceId = $workspaceId AND p.archivedAt IS NULL
  WITH links, requires, COLLECT {
    MATCH (p)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(a:ContextNode)
    RETURN a.id AS id
    UNION
    MATCH (p)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(:ContextNode)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(b:ContextNode)
    RETURN b.id AS id
  } AS near
  UNWIND $known + [l IN links | l.toId] + [r IN requires | r.toId] AS id
  WITH DISTINCT id, near
  MATCH (n:ContextNode {id: id})
  WHERE n.workspaceId = $workspaceId AND n.status = 'live'
  RETURN collect({
    id: n.id, nodeType: n.nodeType, tags: coalesce(n.tags, []),
    superseded: EXISTS {
      MATCH (s)-[:SUPERSEDES]->(n)
      WHERE s.workspaceId = $workspaceId AND (s:Playbook AND s.archivedAt IS NULL OR s:ContextNode AND s.status = 'live')
    },
    flags: COLLECT {
      MATCH (f:Feedback)-[:ABOUT]->(n)
      WHERE f.workspaceId = $workspaceId AND f.status = 'open' AND f.feedbackType IN ['outdated', 'incorrect']
      RETURN DISTINCT f.feedbackType ORDER BY f.feedbackType
    },
    nearPlaybook: n.id IN near
  }) AS marks
}
RETURN links, requires, marks
