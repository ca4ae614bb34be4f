// The authorization server's keys, made by the first API process that starts and read by every other one, so that
// a cookie set or a token signed by one process is good on all. The one statement not scoped by a workspace: the
// keys belong to the deployment. Params: $jwks, $cookieKeys (sealed JSON text, used only when none exist yet).
// Columns: jwks, cookieKeys (sealed JSON text: the analysts' Cypher reads the graph).
MERGE (s:OAuthSettings {id: 'provider'})
ON CREATE SET s.jwks = $jwks, s.cookieKeys = $cookieKeys
RETURN s.jwks AS jwks, s.cookieKeys AS cookieKeys
