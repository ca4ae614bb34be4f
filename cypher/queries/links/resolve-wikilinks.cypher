// Makes the wikilink links of the nodes $sourceIds match what their wikilinks name now. Each WIKILINK_TO's key
// goes to the node that names it best: lowest rank (slug, then file name or path, then title, then alias), then
// fewest folders, shortest path, path in code-point order, id (src/nodes/names.ts). A key that names the source itself, or no node, gives
// no link: an unresolved wikilink waits for a node to take that name. Each target gets one REFERENCES link of
// origin 'wikilink' carrying the sections its wikilinks name (null for none); one no longer named is deleted; a
// target the source already links to with a manual REFERENCES link gets no second one. New ids are made here
// ('lnk_' and 32 hex digits): how many links resolve is known only here.
// Params: $workspaceId, $sourceIds, $now. Columns: id, one row per source found.
UNWIND $sourceIds AS sourceId
MATCH (s:ContextNode {id: sourceId, workspaceId: $workspaceId})
CALL (s) {
  OPTIONAL MATCH (s)-[w:WIKILINK_TO]->(k:WikiName)
  CALL (k) {
    OPTIONAL MATCH (t:ContextNode)-[n:NAMED]->(k)
    WITH t, n ORDER BY n.rank, n.depth, n.length, n.path, t.id
    LIMIT 1
    RETURN t
  }
  WITH s, t, w
  WHERE t IS NOT NULL AND t <> s
  WITH t, collect(w.sections) AS lists
  WITH t, reduce(acc = [], list IN lists | acc + [x IN coalesce(list, []) WHERE NOT x IN acc]) AS sections
  RETURN collect({target: t, sections: CASE WHEN size(sections) = 0 THEN null ELSE sections END}) AS wanted
}
CALL (s, wanted) {
  MATCH (s)-[r:REFERENCES {origin: 'wikilink'}]->(x:ContextNode)
  WHERE NOT x IN [want IN wanted | want.target]
  DELETE r
}
CALL (s, wanted) {
  UNWIND wanted AS want
  WITH s, want.target AS t, want.sections AS sections
  OPTIONAL MATCH (s)-[r:REFERENCES]->(t)
  CALL (s, t, sections, r) {
    WITH s, t, sections, r
    WHERE r IS NULL
    CREATE (s)-[:REFERENCES {id: 'lnk_' + replace(randomUUID(), '-', ''), workspaceId: $workspaceId, origin: 'wikilink', createdAt: $now, sections: sections}]->(t)
  }
  CALL (r, sections) {
    WITH r, sections
    WHERE r IS NOT NULL AND r.origin = 'wikilink'
    SET r.sections = sections
  }
}
RETURN s.id AS id
