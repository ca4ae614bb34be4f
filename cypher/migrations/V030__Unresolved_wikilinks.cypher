// One (:UnresolvedLink) per workspace and slug: every wikilink waiting for that slug points at it, and a node
// created with (or renamed to) the slug finds them through this constraint's index.
CREATE CONSTRAINT unresolved_link_slug IF NOT EXISTS FOR (u:UnresolvedLink) REQUIRE (u.workspaceId, u.slug) IS UNIQUE;
