// Revokes one key of a user (idempotent). Params: $userId, $keyId, $now. Columns: hash. No row: no such key.
MATCH (:User {id: $userId})-[:HAS_KEY]->(k:ApiKey {id: $keyId})
SET k.revokedAt = coalesce(k.revokedAt, $now)
RETURN k.hash AS hash
