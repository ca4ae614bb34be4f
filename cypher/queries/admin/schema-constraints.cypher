// The database's constraints, by name. No params. Columns: name, type, entityType, labelsOrTypes, properties.
// Not scoped by workspace: constraints are the database's.
SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties
ORDER BY name
