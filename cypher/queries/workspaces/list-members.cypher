// Members of a workspace, oldest first. Params: $workspaceId. Columns: member {userId, email, name, role, joinedAt}.
MATCH (u:User)-[m:MEMBER_OF]->(:Workspace {id: $workspaceId})
RETURN {userId: u.id, email: u.email, name: u.name, role: m.role, joinedAt: m.joinedAt} AS member
ORDER BY m.joinedAt, u.id
