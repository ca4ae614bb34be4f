// Forgets signals once Redis has them. Params: $ids. Not scoped by workspace: ids are unique across workspaces.
MATCH (s:PendingSignal)
WHERE s.id IN $ids
DELETE s
