// A conversation with the demo agent over AG-UI through the real client, @ag-ui/client 1.0.0's
// HttpAgent (optionally with @ag-ui/a2ui-middleware 0.0.10's A2UIMiddleware in front): text,
// the restaurant surfaces drawn progressively, Book (forwardedProps.a2uiAction), Confirm, and a
// follow-up on the same thread. Every response body is also written to CAPTURE_DIR/run-N.sse as
// received, for ag-ui-validate. Prints one JSON line describing what it saw; exits 1 with
// `FAIL: why` on stderr when something is off.
//
// Usage: node conversation.mjs URL CAPTURE_DIR [--middleware]
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { A2UIMiddleware } from "@ag-ui/a2ui-middleware";
import { captureResponses, fail } from "./capture.mjs";

const [url, captureDir, mode] = process.argv.slice(2);
const withMiddleware = mode === "--middleware";

const captures = captureResponses(captureDir, "run");

const agent = new HttpAgent({ url, threadId: `thread-${randomUUID()}` });
if (withMiddleware) agent.use(new A2UIMiddleware({ injectA2UITool: true }));

/** One run: its event types, the operation counts of each surface as it grew, the text. */
async function run(parameters) {
  const types = [];
  const snapshots = {};
  let text = "";
  await agent.runAgent({ runId: randomUUID(), ...parameters }, {
    onEvent({ event }) {
      types.push(event.type);
    },
    // A surface comes whole once a run, then grows by deltas: the operation count the
    // client holds after each.
    onActivitySnapshotEvent({ event }) {
      if (event.activityType !== "a2ui-surface") fail(`activity type ${event.activityType}`);
      (snapshots[event.messageId] ??= []).push(event.content.a2ui_operations.length);
    },
    onActivityDeltaEvent({ event }) {
      if (event.activityType !== "a2ui-surface") fail(`activity type ${event.activityType}`);
      const counts = snapshots[event.messageId];
      if (!counts) fail(`a delta of ${event.messageId} before its snapshot`);
      const added = event.patch.filter((op) => op.op === "add" && op.path === "/a2ui_operations/-");
      if (added.length !== event.patch.length) fail(`a patch other than appends: ${JSON.stringify(event.patch)}`);
      counts.push(counts.at(-1) + added.length);
    },
    onTextMessageContentEvent({ event }) {
      text += event.delta;
    },
    onRunErrorEvent({ event }) {
      fail(`RUN_ERROR: ${event.message}`);
    },
  });
  if (types[0] !== "RUN_STARTED") fail(`first event ${types[0]}`);
  if (types.at(-1) !== "RUN_FINISHED") fail(`last event ${types.at(-1)}`);
  return { types, snapshots, text };
}

/** The operations of the surface activity `id` in the agent's conversation. */
function surface(id) {
  const message = agent.messages.find((m) => m.role === "activity" && m.id === id);
  if (!message) fail(`no activity ${id} among ${agent.messages.map((m) => m.id)}`);
  return message.content.a2ui_operations;
}

function components(operations) {
  return operations.flatMap((op) => op.updateComponents?.components ?? []);
}

function action(name, surfaceId, sourceComponentId, context) {
  const userAction = { name, surfaceId, sourceComponentId, context, timestamp: new Date().toISOString() };
  return { forwardedProps: { a2uiAction: { userAction } } };
}

// 1. Text: the restaurants, drawn one component at a time.
agent.addMessage({ id: randomUUID(), role: "user", content: "Find me a table for tonight" });
const first = await run({});
if (!first.text.includes("restaurants")) fail(`first text: ${first.text}`);
const resultSnapshots = first.snapshots["a2ui-surface-results"] ?? [];
if (resultSnapshots.length < 3) fail(`results drawn in ${resultSnapshots.length} events`);
if (surface("a2ui-surface-results").length !== resultSnapshots.at(-1)) fail("the client's surface is not what was sent");
if (resultSnapshots.some((n, i) => i > 0 && n < resultSnapshots[i - 1])) {
  fail(`a snapshot shrank: ${resultSnapshots}`);
}
const results = surface("a2ui-surface-results");
if (!results[0].createSurface || results[0].version !== "v0.9") fail("results not created in v0.9");
const book = components(results).find((c) => c.component === "Button");
if (book?.action?.event?.name !== "select") fail(`no Book button: ${JSON.stringify(book)}`);

// 2. Book: the form for that restaurant.
const restaurant = book.action.event.context.restaurant;
const second = await run(action("select", "results", book.id, { restaurant }));
const form = components(surface("a2ui-surface-booking"));
const heading = form.find((c) => c.id === "heading")?.text;
if (heading !== `Book a table at ${restaurant}`) fail(`form heading ${heading}`);
if (!second.snapshots["a2ui-surface-booking"]) fail("the form came in no snapshot");

// 3. Confirm: booked with the form's values.
const values = { restaurant, name: "Ada", partySize: "4", time: "20:00" };
const third = await run(action("book", "booking", "confirm", values));
if (!third.text.includes(`Your table at ${restaurant} is booked`)) fail(`confirm text: ${third.text}`);

// 4. A follow-up on the same thread.
agent.addMessage({ id: randomUUID(), role: "user", content: "Anything else nearby?" });
const fourth = await run({});
if (!fourth.snapshots["a2ui-surface-results"]) fail("the follow-up drew no results");

// Let the captures finish writing.
await new Promise((resolve) => setTimeout(resolve, 200));
console.log(
  JSON.stringify({
    middleware: withMiddleware,
    threadId: agent.threadId,
    runs: [first, second, third, fourth].map((r) => r.types.length),
    resultSnapshots,
    restaurant,
    confirmText: third.text,
    captures,
  }),
);
