// snapshot.mjs: browser snapshots through a Playwright MCP server, for
// the fixtures and the evaluation.
//
//	node snapshot.mjs URL OUT [URL OUT ...] -- COMMAND [ARG ...]
//
// Starts COMMAND as a stdio MCP server (Playwright MCP), then for each
// URL calls browser_navigate and browser_snapshot and writes the text of
// the snapshot's answer to OUT as it came.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeFileSync } from "node:fs";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep < 2 || sep % 2 !== 0 || sep === argv.length - 1) {
	console.error("usage: node snapshot.mjs URL OUT [URL OUT ...] -- COMMAND [ARG ...]");
	process.exit(2);
}
const pairs = argv.slice(0, sep);
const cmd = argv.slice(sep + 1);
const transport = new StdioClientTransport({ command: cmd[0],
    args: cmd.slice(1), env: process.env, stderr: "inherit" });
const client = new Client({ name: "ofl-snapshot", version: "1.0.0" },
    { capabilities: {} });
const text = (r) => (r.content ?? []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
let status = 0;
try {
	await client.connect(transport, { timeout: 60000 });
	for (let i = 0; i < pairs.length; i += 2) {
		await client.callTool({ name: "browser_navigate",
		    arguments: { url: pairs[i] } }, undefined, { timeout: 120000 });
		const r = await client.callTool({ name: "browser_snapshot",
		    arguments: {} }, undefined, { timeout: 120000 });
		writeFileSync(pairs[i + 1], text(r));
	}
} catch (e) {
	console.error(`snapshot.mjs: ${e?.message ?? e}`);
	status = 1;
}
await client.close();
process.exit(status);
