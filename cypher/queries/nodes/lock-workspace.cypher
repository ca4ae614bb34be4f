// Serialises the writes to one workspace's context graph: the first statement of every node or link write
// transaction. Holding the workspace's write lock until commit makes slug allocation (-2, -3, …), duplicate
// link checks and wikilink resolution see each other's committed results instead of racing.
// Params: $workspaceId, $now. Columns: id (no row when the workspace does not exist).
MATCH (w:Workspace {id: $workspaceId})
SET w.graphChangedAt = $now
RETURN w.id AS id
