// Parameters: $workspaceId, $workspaceName, $plan, $userId, $email, $userName, $createdAt (ISO string).
// Creates one benchmark workspace and its owner: (:User)-[:MEMBER_OF {role: 'owner', joinedAt}]->(:Workspace).
CREATE (w:Workspace {id: $workspaceId, name: $workspaceName, plan: $plan, createdAt: $createdAt})
CREATE (u:User {id: $userId, email: $email, name: $userName, createdAt: $createdAt})
CREATE (u)-[:MEMBER_OF {role: 'owner', joinedAt: $createdAt}]->(w)
RETURN w.id AS workspaceId, u.id AS userId
