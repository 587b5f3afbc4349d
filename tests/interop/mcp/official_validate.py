"""The official A2UI validator (`a2ui-agent-sdk`'s `a2ui.utils.validation.validate_payload`,
with its basic catalog of the version) over what an MCP client received: the A2UI messages of
each tool result of one conversation, in order, read as one stream as a renderer reads them.
Prints "ok" and exits 0 when it accepts them; its refusal on stderr and exit 1 otherwise.

Usage: official_validate.py <v0.8|v0.9|v1.0> RESULTS.json  (a JSON list of message lists)
"""

import json
import sys

from a2ui.core.basic_catalog import BasicCatalog
from a2ui.utils.validation import validate_payload

version, path = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as file:
    results = json.load(file)
catalog = BasicCatalog(version)
stream = [message for messages in results for message in messages]
try:
    validate_payload([catalog], stream)
except Exception as error:  # any refusal is the validator's answer
    print(f"FAIL: the official validator refused the stream: {error}", file=sys.stderr)
    sys.exit(1)
print(json.dumps({"validated": len(stream)}))
