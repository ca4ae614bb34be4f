// The schema migrations already applied (global: migrations belong to no workspace).
// Columns: version, checksum.
MATCH (m:__Migration)
RETURN m.version AS version, m.checksum AS checksum
