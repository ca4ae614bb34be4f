// The live context nodes that have one of $paths as their source path, compared as wikilink names compare (NFC,
// lowercase): what keeps two live nodes from sharing a file. Each path is given by the name key of its whole path
// without `.md` (a name every node with such a path holds, src/nodes/names.ts) and its number of folders. Each key's
// WikiName is created if missing and write-locked until the transaction ends, as claiming a slug locks it
// (claim-slug.cypher): two writes of one path take turns, and the second sees the first's node. Only the nodes
// named by that whole path are read, not every node sharing its last segment.
// Params: $workspaceId, $paths: list of {key, depth}, sorted by key. Columns: key, id, slug, sourcePath.
UNWIND $paths AS p
MERGE (k:WikiName {workspaceId: $workspaceId, key: p.key})
SET k._LOCK_ = true
REMOVE k._LOCK_
WITH p, k
MATCH (k)<-[r:NAMED]-(n:ContextNode {workspaceId: $workspaceId})
WHERE r.depth = p.depth AND r.path = n.sourcePath AND n.status = 'live'
RETURN p.key AS key, n.id AS id, n.slug AS slug, n.sourcePath AS sourcePath
