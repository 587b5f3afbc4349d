"""Feeds a stream of A2UI messages, as a client received them, to the official Python SDK's
message processor (`a2ui.core.processing.MessageProcessor`, with its basic catalog), one
message at a time, after its validator (`a2ui.utils.validation.validate_payload`) has read the
whole stream, and prints each surface's component ids and types as JSON. Exits non-zero with
the validator's or the processor's error when either refuses.

Usage: python official_processor.py <v0.8|v0.9> < messages.json
"""

import json
import sys

from a2ui.core.basic_catalog import BasicCatalog
from a2ui.core.processing.message_processor import MessageProcessor
from a2ui.utils.validation import validate_payload

version = sys.argv[1]
messages = json.load(sys.stdin)
catalog = BasicCatalog(version)
validate_payload([catalog], messages)
processor = MessageProcessor([catalog])
for message in messages:
    processor.process_messages([message])
surfaces = {}
for surface_id, surface in processor.model.surfaces_map.items():
    components = surface.components_model.get_all()
    surfaces[surface_id] = {
        "components": sorted(
            [component_id, getattr(model, "type", None)]
            for component_id, model in components.items()
        ),
    }
json.dump(surfaces, sys.stdout)
