// Drive an MCP server over stdio with the official TypeScript SDK client.
//
// Usage: node ts_client.mjs SPEC.json
// SPEC: {"command": str, "args": [str], "cwd": str, "env": {str: str},
//        "calls": [{"name": str, "arguments": object}], "early": [{"name", "arguments"}]?,
//        "protocol"?: str}
// Without "protocol": the SDK 1.x client (@modelcontextprotocol/sdk), which negotiates 2025-11-25.
// With "protocol": the SDK 2.x client (@modelcontextprotocol/client) at that revision: 2026-07-28
// pins the modern era (server/discover, no initialize); an older revision is the only entry of
// supportedProtocolVersions, which the legacy initialize handshake offers.
// "early" calls are sent at once after connecting (right after `initialized`), concurrently with
// tools/list and before any answer: with the fast path, before the SDK has loaded.
// In arguments, {"$result": TOOL, "path": [...]} stands for a value from the structuredContent of an
// earlier call (see EXAMPLE_CALLS in runtime_support.py).
// Prints one JSON document: {"serverVersion", "negotiated", "tools", "early": [...],
// "calls": [{"name", "result"} | {"name", "error"}]}.
// Client.callTool validates structuredContent against the listed outputSchema (Ajv; Ajv2020 in 2.x)
// and throws when it does not match, so a passing call here is one the client accepted.
import { readFileSync } from "node:fs";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const v2 = spec.protocol !== undefined;
const { Client } = await import(v2 ? "@modelcontextprotocol/client" : "@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import(
  v2 ? "@modelcontextprotocol/client/stdio" : "@modelcontextprotocol/sdk/client/stdio.js"
);
const options = !v2
  ? {}
  : spec.protocol === "2026-07-28"
    ? { versionNegotiation: { mode: { pin: spec.protocol } } }
    : { supportedProtocolVersions: [spec.protocol] };
const transport = new StdioClientTransport({
  command: spec.command,
  args: spec.args,
  cwd: spec.cwd,
  env: spec.env,
  stderr: "inherit",
});
const client = new Client({ name: "mcp-codegen-ts-e2e", version: "1.0.0" }, options);
await client.connect(transport);

function resolve(value, earlier) {
  if (Array.isArray(value)) return value.map((item) => resolve(item, earlier));
  if (value !== null && typeof value === "object") {
    if ("$result" in value) return value.path.reduce((target, key) => target[key], earlier[value.$result]);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, earlier)]));
  }
  return value;
}

function outcome(name, promise) {
  return promise.then(
    (result) => ({ name, result }),
    (error) => ({ name, error: { code: error.code ?? null, message: String(error.message) } }),
  );
}

const early = (spec.early ?? []).map((call) =>
  outcome(call.name, client.callTool({ name: call.name, arguments: call.arguments })),
);
const listed = await client.listTools();
const earlyResults = await Promise.all(early);
const calls = [];
const earlier = {};
for (const call of spec.calls) {
  try {
    const result = await client.callTool({ name: call.name, arguments: resolve(call.arguments, earlier) });
    earlier[call.name] = result.structuredContent;
    calls.push({ name: call.name, result });
  } catch (error) {
    calls.push({ name: call.name, error: { code: error.code ?? null, message: String(error.message) } });
  }
}
process.stdout.write(
  JSON.stringify({
    serverVersion: client.getServerVersion(),
    negotiated: v2 ? client.getNegotiatedProtocolVersion() : null,
    tools: listed.tools,
    early: earlyResults,
    calls,
  }),
);
await client.close();
