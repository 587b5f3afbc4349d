// A frontend tool through the real client, @ag-ui/client 1.0.0's HttpAgent: the run offers
// `pick_date`, the model calls it, the run ends with the call (no result); the page "runs" it,
// adds the tool message and runs again, and the model's answer streams. Every response body is
// written to CAPTURE_DIR/tool-run-N.sse for ag-ui-validate. Prints one JSON line describing what it
// saw; exits 1 with `FAIL: why` on stderr when something is off.
//
// Usage: node frontend-tool.mjs URL CAPTURE_DIR
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { captureResponses, fail } from "./capture.mjs";

const [url, captureDir] = process.argv.slice(2);

const captures = captureResponses(captureDir, "tool-run");

const tools = [
  {
    name: "pick_date",
    description: "Asks the user for a date.",
    parameters: { type: "object", properties: { after: { type: "string" } } },
  },
];
const agent = new HttpAgent({ url, threadId: `thread-${randomUUID()}` });

async function run() {
  const types = [];
  let text = "";
  await agent.runAgent({ runId: randomUUID(), tools }, {
    onEvent({ event }) {
      types.push(event.type);
    },
    onTextMessageContentEvent({ event }) {
      text += event.delta;
    },
    onRunErrorEvent({ event }) {
      fail(`RUN_ERROR: ${event.message}`);
    },
  });
  return { types, text };
}

agent.addMessage({ id: randomUUID(), role: "user", content: "Book a table" });
const first = await run();
if (first.types.includes("TOOL_CALL_RESULT")) fail("the frontend tool got a result on the server");
const call = agent.messages
  .flatMap((m) => m.toolCalls ?? [])
  .find((c) => c.function.name === "pick_date");
if (!call) fail(`no pick_date call among ${JSON.stringify(agent.messages)}`);

// The page runs the tool and answers.
agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call.id, content: "Friday" });
const second = await run();

await new Promise((resolve) => setTimeout(resolve, 200));
console.log(
  JSON.stringify({
    firstTypes: first.types,
    call: { id: call.id, name: call.function.name, arguments: call.function.arguments },
    secondText: second.text,
    captures,
  }),
);
