// Creates a human user. Params: $id, $email, $name, $now. Columns: user {id, email, name, createdAt}.
// The unique constraint on :User(email) turns a duplicate email into a constraint violation.
CREATE (u:User {id: $id, email: $email, name: $name, createdAt: $now})
RETURN u {.id, .email, .name, .createdAt} AS user
