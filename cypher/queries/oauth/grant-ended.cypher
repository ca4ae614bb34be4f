// Marks a grant the authorization server revoked itself (a refresh token or a code used twice). The server names
// the grant alone, so this is found by its id, which is unique across workspaces; the workspace comes back so that
// the change can be signalled there. Params: $grantId, $now. Columns: workspaceId. No row: no such grant.
MATCH (g:OAuthGrant {id: $grantId})
SET g.revokedAt = coalesce(g.revokedAt, $now)
RETURN g.workspaceId AS workspaceId
