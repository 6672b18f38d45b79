// browse.mjs: an agent's round trip on a page, through ofl-mcp in front of
// Playwright MCP, for tests/t6010-snapshot-peer.sh.
//
//	node browse.mjs URL QUERY PATTERN -- COMMAND [ARG ...]
//
// Navigates to URL, takes a snapshot (which ofl-mcp stores), asks
// ofl_search for QUERY in it, takes the ref from the first line of the
// answer that matches PATTERN (a regular expression with one group, the
// ref), clicks that ref, and takes a snapshot again.  Prints one JSON
// object a line: {"step":...,"text":...}, and at the end
// {"step":"done","old":ID,"new":ID,"ref":REF}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep !== 3 || argv.length < 5) {
	console.error("usage: node browse.mjs URL QUERY PATTERN -- COMMAND [ARG ...]");
	process.exit(2);
}
const [url, query, pattern] = argv;
const cmd = argv.slice(4);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const text = (r) => (r.content ?? []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
const idOf = (t) => (t.match(/^ofl:([0-9a-z]+) snapshot /m) ?? [])[1];
const client = new Client({ name: "ofl-browse", version: "1.0.0" },
    { capabilities: {} });
const transport = new StdioClientTransport({ command: cmd[0],
    args: cmd.slice(1), env: process.env, stderr: "inherit" });
const call = async (name, args) => {
	const r = await client.callTool({ name, arguments: args }, undefined,
	    { timeout: 120000 });
	const t = text(r);
	out({ step: name, text: t });
	return t;
};
let status = 0;
try {
	await client.connect(transport, { timeout: 60000 });
	await call("browser_navigate", { url });
	const old = idOf(await call("browser_snapshot", {}));
	if (old === undefined)
		throw new Error("the first snapshot was not stored as a snapshot");
	const hits = await call("ofl_search", { ids: [old], query });
	const m = hits.match(new RegExp(pattern, "m"));
	if (m === null)
		throw new Error(`no line of the search matches ${pattern}`);
	await call("browser_click", { element: query, target: m[1] });
	const neu = idOf(await call("browser_snapshot", {}));
	if (neu === undefined)
		throw new Error("the second snapshot was not stored as a snapshot");
	out({ step: "done", old, new: neu, ref: m[1] });
} catch (e) {
	console.error(`browse.mjs: ${e?.message ?? e}`);
	status = 1;
}
await client.close();
process.exit(status);
