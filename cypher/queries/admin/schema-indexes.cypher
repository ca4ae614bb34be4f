// The database's indexes, by name. No params. Columns: name, type, entityType, labelsOrTypes, properties (both
// null for a LOOKUP index), state. Not scoped by workspace: indexes are the database's.
SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state
ORDER BY name
