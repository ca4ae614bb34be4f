// The authorization server's keys, made by the first API process that starts and read by every other one, so that
// a cookie set or a token signed by one process is good on all. The one statement not scoped by a workspace: the
// keys belong to the deployment. Params: $jwks, $cookieKeys (sealed JSON text, kept only when none exist yet, or
// when $replace: the kept ones were sealed under another key and cannot be opened).
// Columns: jwks, cookieKeys (sealed JSON text: the analysts' Cypher reads the graph).
MERGE (s:OAuthSettings {id: 'provider'})
ON CREATE SET s.jwks = $jwks, s.cookieKeys = $cookieKeys
SET s.jwks = CASE WHEN $replace THEN $jwks ELSE s.jwks END,
    s.cookieKeys = CASE WHEN $replace THEN $cookieKeys ELSE s.cookieKeys END
RETURN s.jwks AS jwks, s.cookieKeys AS cookieKeys
