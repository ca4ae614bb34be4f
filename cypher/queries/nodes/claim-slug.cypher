// Claims slugs for a node write, the first statement of a create, of an update that changes the slug, and of a
// bulk import's batch. Each of $keys (a slug, or the base an automatic slug grows from, as a wikilink key) gets its
// WikiName (created if missing) write-locked until the transaction ends: writes claiming one slug take turns, so
// the second sees the first's node; writes of other slugs are not held up. Then the slugs taken that equal $base
// or extend it with a suffix ($base-2, $base-3, …), and the ids holding them.
// Params: $workspaceId, $keys (sorted, so that two claims of several keys lock them in one order), $base (null for
// no list). Columns: taken, a list of {id, slug}.
UNWIND $keys AS key
MERGE (k:WikiName {workspaceId: $workspaceId, key: key})
SET k._LOCK_ = true
REMOVE k._LOCK_
WITH count(k) AS claimed
RETURN COLLECT {
  MATCH (n:ContextNode {workspaceId: $workspaceId})
  WHERE $base IS NOT NULL AND (n.slug = $base OR n.slug STARTS WITH $base + '-')
  RETURN {id: n.id, slug: n.slug}
} AS taken
