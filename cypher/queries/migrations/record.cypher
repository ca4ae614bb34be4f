// Records an applied migration once, even when two processes apply it at the same time
// (global: migrations belong to no workspace). Params: $version, $description, $checksum, $now.
MERGE (m:__Migration {version: $version})
ON CREATE SET m.description = $description, m.checksum = $checksum, m.appliedAt = $now
