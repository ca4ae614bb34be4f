// Adds a key to a user. Params: $userId, $id, $hash, $prefix, $label, $now.
// Columns: key {id, label, prefix, createdAt}. No row: no such user.
MATCH (u:User {id: $userId})
CREATE (u)-[:HAS_KEY]->(k:ApiKey {id: $id, kind: 'user', hash: $hash, prefix: $prefix, label: $label, createdAt: $now})
RETURN k {.id, .label, .prefix, .createdAt} AS key
