// A change committed while Redis could not be told: its signal is kept here until some process delivers it
// (src/gate/gate.ts, deliverPendingSignals). Params: $id, $workspaceId, $graph (a new graph generation is
// owed), $access (a new auth epoch is owed), $keyHashes (keys to mark revoked), $now.
CREATE (:PendingSignal {id: $id, workspaceId: $workspaceId, graph: $graph, access: $access, keyHashes: $keyHashes, createdAt: $now})
