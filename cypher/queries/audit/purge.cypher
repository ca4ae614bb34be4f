// Retention: deletes up to $batch audit events older than $before (every workspace's and the operator's).
// Not scoped by workspaceId: retention applies to the whole log. Params: $before, $batch. Columns: deleted.
MATCH (e:AuditEvent)
WHERE e.at < $before
WITH e LIMIT toInteger($batch)
DETACH DELETE e
RETURN count(*) AS deleted
