// Brings nodes' names and wikilinks up to date and resolves the wikilinks that may now point elsewhere, in one
// statement (src/nodes/wikilink-sync.ts says when each part is needed).
//
// 1. Names (items with `names`): each node's names become exactly those given (src/nodes/names.ts: its slug, file
//    name, path tails, title and aliases, each with how strongly it names the node), as (n)-[:NAMED {rank, depth,
//    length, path}]->(:WikiName {workspaceId, key}), one WikiName per workspace and key (constraint wiki_name_key).
//    Each key whose naming changed (dropped, added or ranked differently) gets its target chosen again (step 3 says
//    how), kept as (k)-[:RESOLVES_TO]->(target). The nodes with a wikilink to a key whose target changed are
//    waiting: their wikilinks now resolve differently. Another node taking a crowded name, or one of its namesakes
//    renamed, costs one look at the name's nodes, and nothing for the links to it unless its target moves.
// 2. Wikilinks (items with `links`): each node's wikilinks become exactly those given (src/nodes/wikilinks.ts, one
//    per key its content names), as (n)-[:WIKILINK_TO {text, sections}]->(:WikiName).
// 3. Resolution (when $resolve): the items' nodes and the waiting ones get wikilink links to what their keys resolve
//    to. Each key goes to the node that names it best: lowest rank (slug, then file name or path, then title, then
//    alias), then fewest folders, shortest path, path in code-point order, id. A key that names the source itself,
//    or no node, gives no link: an unresolved wikilink waits for a node to take that name. Each target gets one
//    REFERENCES link of origin 'wikilink' carrying the sections its wikilinks name (null for none); one no longer
//    named is deleted; a target the source already links to with a manual REFERENCES link gets no second one. New
//    ids are made here ('lnk_' and 32 hex digits): how many links resolve is known only here.
//
// Locks (docs/graph-model.md, "What a write locks"): every WikiName whose naming changes, and every one a new
// wikilink points at, is write-locked before anything reads who names it or links to it, so of a wikilink and its
// target written at the same time, the one that commits second sees the other. Each node resolved is write-locked
// first, as a manual link's creation locks its source (links/create.cypher): two writes resolving one node, or one
// resolving it while a manual link is added, take turns. Keys and ids are taken in sorted order. A WikiName left
// with nothing naming it and nothing linking to it is kept: deleting it could race a write that has just found it.
//
// Params: $workspaceId, $now, $resolve, $items: list of {nodeId, names: list of {key, rank, depth, length, path}
// sorted by key, or null to leave them; links: list of {key, text, sections} sorted by key, or null to leave
// them}. Columns: resolved (how many nodes were resolved).
CALL () {
  UNWIND $items AS item
  WITH item WHERE item.names IS NOT NULL
  MATCH (n:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
  CALL (n, item) {
    OPTIONAL MATCH (n)-[r:NAMED]->(k:WikiName)
    WHERE NOT k.key IN [x IN item.names | x.key]
    WITH r, k ORDER BY k.key
    SET k._LOCK_ = true
    REMOVE k._LOCK_
    DELETE r
    RETURN collect(k.key) AS dropped
  }
  CALL (n, item) {
    UNWIND item.names AS name
    MERGE (k:WikiName {workspaceId: $workspaceId, key: name.key})
    SET k._LOCK_ = true
    REMOVE k._LOCK_
    MERGE (n)-[r:NAMED]->(k)
    WITH name, r, coalesce(r.rank = name.rank AND r.depth = name.depth AND r.length = name.length AND r.path = name.path, false) AS same
    SET r.rank = name.rank, r.depth = name.depth, r.length = name.length, r.path = name.path
    WITH name WHERE NOT same
    RETURN collect(name.key) AS changed
  }
  UNWIND dropped + changed AS key
  WITH DISTINCT key
  MATCH (k:WikiName {workspaceId: $workspaceId, key: key})
  CALL (k) {
    OPTIONAL MATCH (t:ContextNode)-[n:NAMED]->(k)
    WITH t, n ORDER BY n.rank, n.depth, n.length, n.path, t.id
    LIMIT 1
    RETURN t AS winner
  }
  OPTIONAL MATCH (k)-[was:RESOLVES_TO]->(old:ContextNode)
  WITH k, winner, collect(was) AS was, collect(old) AS olds
  WHERE olds <> CASE WHEN winner IS NULL THEN [] ELSE [winner] END
  FOREACH (r IN was | DELETE r)
  FOREACH (t IN CASE WHEN winner IS NULL THEN [] ELSE [winner] END | CREATE (k)-[:RESOLVES_TO]->(t))
  WITH k
  MATCH (k)<-[:WIKILINK_TO]-(s:ContextNode)
  WHERE NOT s.id IN [item IN $items | item.nodeId]
  RETURN collect(DISTINCT s.id) AS waiting
}
CALL () {
  UNWIND $items AS item
  WITH item WHERE item.links IS NOT NULL
  MATCH (n:ContextNode {id: item.nodeId, workspaceId: $workspaceId})
  CALL (n, item) {
    OPTIONAL MATCH (n)-[w:WIKILINK_TO]->(k:WikiName)
    WHERE NOT k.key IN [x IN item.links | x.key]
    DELETE w
  }
  CALL (n, item) {
    UNWIND item.links AS link
    MERGE (k:WikiName {workspaceId: $workspaceId, key: link.key})
    SET k._LOCK_ = true
    REMOVE k._LOCK_
    MERGE (n)-[w:WIKILINK_TO]->(k)
    SET w.text = link.text, w.sections = link.sections
  }
}
UNWIND CASE WHEN $resolve THEN [item IN $items | item.nodeId] + waiting ELSE [] END AS sourceId
WITH DISTINCT sourceId
ORDER BY sourceId
MATCH (s:ContextNode {id: sourceId, workspaceId: $workspaceId})
SET s._LOCK_ = true
REMOVE s._LOCK_
WITH s
CALL (s) {
  OPTIONAL MATCH (s)-[w:WIKILINK_TO]->(:WikiName)-[:RESOLVES_TO]->(t:ContextNode)
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
RETURN count(*) AS resolved
