"""Schemathesis hooks of scripts/fuzz-api (loaded through scripts/fuzz-api.toml)."""
import itertools
import os

import schemathesis

_sequence = itertools.count(1)
_max_key_length = 255  # src/gate/idempotency.ts


@schemathesis.hook
def before_call(ctx, case, kwargs):
    """Makes each valid Idempotency-Key the generator chose unique.

    Deterministic generation sends the same few header values again and again; the service rightly answers a
    key reused with another body 422, so without this nearly every positive POST would stop there and never
    reach validation, the services or Neo4j. Values outside 1..255 characters are left as they are: they test
    the header's own bounds (400). A counter, not a random suffix, keeps runs repeatable.
    """
    headers = case.headers
    if not headers:
        return
    for name, value in list(headers.items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and 0 < len(value) <= _max_key_length:
            suffix = f"-{next(_sequence)}"
            headers[name] = value[: _max_key_length - len(suffix)] + suffix


@schemathesis.hook("before_call")
def keep_own_access(ctx, case, kwargs):
    """Keeps the fuzzer's own access: its user is never demoted or removed, its key never revoked.

    The stateful phase follows links (a member listed by one call is changed by the next), so it finds the
    fuzzing user too; once that user is a viewer or gone, every later request is a 403 or 404 and tests nothing.
    Such a request is sent for an id that names nothing instead (a 404, which is what it then checks).
    """
    params = case.path_parameters or {}
    own_user = os.environ.get("FUZZ_USER_ID")
    own_key = os.environ.get("FUZZ_USER_KEY_ID")
    path = case.operation.path
    if case.method.upper() in ("PATCH", "DELETE") and path.endswith("/members/{userId}") and params.get("userId") == own_user:
        params["userId"] = "usr_not_the_fuzzer"
    if path.endswith("/keys/{keyId}") and params.get("keyId") == own_key:
        params["keyId"] = "key_not_the_fuzzer"
