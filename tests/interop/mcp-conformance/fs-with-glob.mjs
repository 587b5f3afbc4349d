// `fs` as Node 22 has it, as far as the conformance suite's server scenarios need.
import fs from "node:fs";

export * from "node:fs";
export default fs;

export function globSync() {
  throw new Error("globSync needs Node 22; the server scenarios do not use it");
}
