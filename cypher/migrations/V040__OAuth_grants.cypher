// What a person approved on the consent page: a hosted client acting as one agent of one workspace
// (oauth/create-grant.cypher); the gate reads it on every token's first use (auth/find-grant.cypher).
CREATE CONSTRAINT oauth_grant_id IF NOT EXISTS FOR (g:OAuthGrant) REQUIRE g.id IS UNIQUE;
CREATE INDEX oauth_grant_agent IF NOT EXISTS FOR (g:OAuthGrant) ON (g.workspaceId, g.agentId);
// The authorization server's signing and cookie keys, one node for the whole deployment (auth/oauth-keys.cypher).
CREATE CONSTRAINT oauth_settings_id IF NOT EXISTS FOR (s:OAuthSettings) REQUIRE s.id IS UNIQUE;
