// Records when keys were last used, in one batch (the authenticator buffers uses in memory).
// Params: $uses: [{keyId, at}]. Only moves lastUsedAt forward.
UNWIND $uses AS use
MATCH (k:ApiKey {id: use.keyId})
WHERE k.lastUsedAt IS NULL OR k.lastUsedAt < use.at
SET k.lastUsedAt = use.at
