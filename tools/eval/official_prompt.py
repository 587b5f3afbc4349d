"""Prints the official A2UI agent SDK's system prompt for the v0.9 basic catalog
(`a2ui-agent-sdk`: `A2uiRequestProcessor([BasicCatalog()]).prompt_snippet`), generated at run
time so the eval compares against what the SDK writes, never a copy of it."""
import sys

from a2ui.core.basic_catalog.v0_9 import BasicCatalog
from a2ui.processor.processor import A2uiRequestProcessor

sys.stdout.write(A2uiRequestProcessor([BasicCatalog()]).prompt_snippet)
