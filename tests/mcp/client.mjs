// client.mjs: an MCP client on the official TypeScript SDK, for the tests.
//
//	node client.mjs [--timeout MS] -- COMMAND [ARG ...] < script.jsonl
//
// Starts COMMAND as a stdio MCP server, then runs the operations of the
// script, one JSON object a line, and prints one JSON object a line for
// each: {"op":"list"}, {"op":"call","name":N,"arguments":A},
// {"op":"parallel","calls":[{"name":N,"arguments":A},...]},
// {"op":"request","method":M,"params":P}, {"op":"notify","method":M},
// {"op":"sleep","ms":N}.  A call may ask for "progress":true.  Each result
// of a parallel op also says when it came: "at" (ms after the op began)
// and "arrived" (1 for the first result to come, 2 for the next...).
// Notifications from the server are printed as they come, as
// {"notification":METHOD,"params":P}.  Errors print {"error":{code,message}}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createInterface } from "node:readline";
import { z } from "zod";

const argv = process.argv.slice(2);
let timeout = 60000;
while (argv.length > 0 && argv[0] !== "--") {
	const a = argv.shift();
	if (a === "--timeout")
		timeout = Number(argv.shift());
	else {
		console.error(`client.mjs: unknown option ${a}`);
		process.exit(2);
	}
}
argv.shift();
if (argv.length === 0) {
	console.error("usage: node client.mjs [--timeout MS] -- COMMAND [ARG ...]");
	process.exit(2);
}

const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const errOf = (e) => ({ code: e?.code ?? null, message: String(e?.message ?? e) });

const transport = new StdioClientTransport({
	command: argv[0],
	args: argv.slice(1),
	env: process.env,
	stderr: "inherit",
});
const client = new Client({ name: "ofl-test-client", version: "1.0.0" },
    { capabilities: {} });
client.fallbackNotificationHandler = async (n) => {
	out({ notification: n.method, params: n.params ?? null });
};

const ops = [];
for await (const line of createInterface({ input: process.stdin }))
	if (line.trim() !== "")
		ops.push(JSON.parse(line));

let status = 0;
try {
	await client.connect(transport, { timeout });
	out({ op: "connected", server: client.getServerVersion() ?? null,
	    capabilities: client.getServerCapabilities() ?? null });
} catch (e) {
	out({ op: "connect", error: errOf(e) });
	process.exit(1);
}

const call = async (c) => {
	const opts = { timeout: c.timeout ?? timeout };
	if (c.progress)
		opts.onprogress = (p) => out({ progress: p });
	try {
		const result = await client.callTool({ name: c.name,
		    arguments: c.arguments ?? {} }, undefined, opts);
		return { name: c.name, result };
	} catch (e) {
		return { name: c.name, error: errOf(e) };
	}
};

for (const op of ops) {
	try {
		switch (op.op) {
		case "list":
			out({ op: "list", ...(await client.listTools()) });
			break;
		case "call":
			out({ op: "call", ...(await call(op)) });
			break;
		case "parallel": {
			const t0 = Date.now();
			let n = 0;
			out({ op: "parallel",
			    results: await Promise.all(op.calls.map((c) =>
			    call(c).then((r) => ({ ...r, at: Date.now() - t0,
			    arrived: ++n })))) });
			break;
		}

		case "request":
			out({ op: "request", method: op.method,
			    result: await client.request({ method: op.method,
			    params: op.params ?? {} }, z.any(),
			    { timeout: op.timeout ?? timeout }) });
			break;
		case "notify":
			await client.notification({ method: op.method,
			    params: op.params ?? {} });
			out({ op: "notify", method: op.method });
			break;
		case "sleep":
			await new Promise((r) => setTimeout(r, op.ms));
			break;
		default:
			out({ op: op.op, error: { code: null,
			    message: "unknown op" } });
			status = 2;
		}
	} catch (e) {
		out({ op: op.op, method: op.method, error: errOf(e) });
	}
}
await client.close();
process.exit(status);
