"""schemathesis hooks for .ci/conformance.

The reschedule body has one rule JSON Schema cannot state: `end_time` must be after `start_time`
(the document says so in words; the sandbox answers 422 otherwise). Generated bodies whose two
times are both valid date-times but in the wrong order get their end moved to an hour after the
start, so "schema-valid" cases are valid for the sandbox too. Nothing else is changed.
"""

from datetime import datetime, timedelta

import schemathesis


def _instant(value):
    if not isinstance(value, str):
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else None


@schemathesis.hook
def map_body(context, body):
    operation = context.operation
    if operation is None or not operation.path.endswith("/reschedule") or not isinstance(body, dict):
        return body
    start, end = _instant(body.get("start_time")), _instant(body.get("end_time"))
    if start is None or end is None or end > start:
        return body
    fixed = dict(body)
    try:
        fixed["end_time"] = (start + timedelta(hours=1)).isoformat()
    except OverflowError:
        fixed.pop("end_time")
    return fixed
