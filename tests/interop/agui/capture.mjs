// What the AG-UI client scripts share: failing with a message, and keeping every response body
// as it came over the wire (for ag-ui-validate).
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Ends the script with `FAIL: why` on stderr. */
export function fail(why) {
  process.stderr.write(`FAIL: ${why}\n`);
  process.exit(1);
}

/**
 * Wraps `fetch` so each response body is also written to DIR/PREFIX-N.sse; returns the list
 * the file names are added to, in order.
 */
export function captureResponses(dir, prefix) {
  const captures = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (...args) => {
    const response = await realFetch(...args);
    const file = join(dir, `${prefix}-${captures.length + 1}.sse`);
    captures.push(file);
    response
      .clone()
      .text()
      .then((body) => writeFileSync(file, body));
    return response;
  };
  return captures;
}
