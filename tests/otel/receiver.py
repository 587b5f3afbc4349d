"""An OTLP/HTTP trace receiver for tests/otel_traces.rs, on the OpenTelemetry project's own
protobuf definitions (the `opentelemetry-proto` package from PyPI).

Usage: receiver.py OUT. Listens on a free loopback port and prints `listening PORT`; each
`POST /v1/traces` (an `ExportTraceServiceRequest`, protobuf body, as the specification says)
is decoded and every span written to OUT as one JSON line: name, kind, hex trace, span and
parent ids, status, attributes and events (with their attributes), and the resource's
attributes. The raw bodies are appended to OUT.raw, so a test can search every byte sent.
A body that does not decode gets 400 and is recorded as an `error` line.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

OUT = sys.argv[1]


def value(any_value):
    """An AnyValue as plain JSON."""
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return attributes(any_value.kvlist_value.values)
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


def span_json(span, resource):
    return {
        "name": span.name,
        "kind": span.kind,
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(),
        "status": span.status.code,
        "attributes": attributes(span.attributes),
        "events": [
            {"name": event.name, "attributes": attributes(event.attributes)}
            for event in span.events
        ],
        "resource": resource,
    }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        with open(OUT + ".raw", "ab") as raw:
            raw.write(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        try:
            if self.path != "/v1/traces":
                raise ValueError(f"posted to {self.path}, not /v1/traces")
            request.ParseFromString(body)
        except Exception as error:  # noqa: BLE001 - any failure is the test's to see
            self.write({"error": str(error)})
            self.send_response(400)
            self.end_headers()
            return
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.write(span_json(span, resource))
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def write(self, line):
        with open(OUT, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
