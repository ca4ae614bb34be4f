// Parameters: $workspaceId, $rows: list of {id ('lnk_…'), from (playbook id), to (context node id),
// type ('requires'/'references'/'relates-to'/'supersedes'/'index-entry'), createdAt}.
// Creates links from playbooks to context nodes. Relationship types cannot be parameters, so each row creates
// exactly one of the five relationship types through FOREACH over a one-element or empty list.
UNWIND $rows AS row
MATCH (a:Playbook {id: row.from})
MATCH (b:ContextNode {id: row.to})
WHERE a.workspaceId = $workspaceId AND b.workspaceId = $workspaceId
WITH a, b, row, {id: row.id, workspaceId: $workspaceId, origin: 'manual', createdAt: row.createdAt} AS props
FOREACH (_ IN CASE WHEN row.type = 'requires' THEN [1] ELSE [] END | CREATE (a)-[r:REQUIRES]->(b) SET r = props)
FOREACH (_ IN CASE WHEN row.type = 'references' THEN [1] ELSE [] END | CREATE (a)-[r:REFERENCES]->(b) SET r = props)
FOREACH (_ IN CASE WHEN row.type = 'relates-to' THEN [1] ELSE [] END | CREATE (a)-[r:RELATES_TO]->(b) SET r = props)
FOREACH (_ IN CASE WHEN row.type = 'supersedes' THEN [1] ELSE [] END | CREATE (a)-[r:SUPERSEDES]->(b) SET r = props)
FOREACH (_ IN CASE WHEN row.type = 'index-entry' THEN [1] ELSE [] END | CREATE (a)-[r:INDEX_ENTRY]->(b) SET r = props)
RETURN count(*) AS created
