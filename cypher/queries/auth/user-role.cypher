// A user's role in a workspace. Params: $userId, $workspaceId. Columns: role. No row: not a member.
MATCH (:User {id: $userId})-[m:MEMBER_OF]->(:Workspace {id: $workspaceId})
RETURN m.role AS role
