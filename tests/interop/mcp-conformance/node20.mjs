// Lets @modelcontextprotocol/conformance run on Node 20: its bundle imports `globSync`
// from `fs` (Node 22), used only by its tier report, never by the server scenarios run
// here. Its imports of `fs` resolve to fs-with-glob.mjs, which adds a `globSync` that says so.
import { register } from "node:module";

register("./node20-hooks.mjs", import.meta.url);
