// hostile.mjs: an MCP server over stdio that misbehaves on request, for
// the tests of ofl-mcp.  It speaks the wire protocol by hand (newline-
// delimited JSON-RPC 2.0) so that it can break it.
//
//	node hostile.mjs [--clash] [--no-tools]
//
// --clash adds a tool named ofl_search; --no-tools leaves the tools
// capability out of initialize.  Tools:
//	echo {text}		a small answer
//	big {bytes, char, ms}	a text result of that many bytes, after ms
//	crash			exits with status 3 before answering
//	half			writes half of a 1 MB answer, then exits
//	hang			never answers
//	slow {ms}		answers after ms, with progress every 200 ms
//	garbage			a line that is not JSON, then the answer
//	huge			a 50 MB text result on one line
//	huge_garbage		a 50 MB line that is not JSON, then the answer
//	image {bytes}		an image item with that many bytes of base64
//	notify			a log message notification, then the answer
//	fail			a JSON-RPC error answer
import { createInterface } from "node:readline";

const clash = process.argv.includes("--clash");
const noTools = process.argv.includes("--no-tools");

const send = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const text = (id, t, extra = {}) =>
	send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: t }],
	    ...extra } });

const tools = ["echo", "big", "crash", "half", "hang", "slow", "garbage",
    "huge", "huge_garbage", "image", "notify", "fail"]
    .concat(clash ? ["ofl_search"] : [])
    .map((name) => ({ name, description: `hostile: ${name}`,
	inputSchema: { type: "object" } }));

const filler = (n, c = "x") => {
	// Lines of 100 bytes, so the text is a log of n bytes.
	const line = c.repeat(99) + "\n";
	return line.repeat(Math.floor(n / 100)) + c.repeat(n % 100);
};

process.stderr.write("hostile: ready\n");
for await (const line of createInterface({ input: process.stdin })) {
	if (line.trim() === "")
		continue;
	const m = JSON.parse(line);
	if (m.id === undefined)
		continue;
	const a = m.params?.arguments ?? {};
	switch (m.method) {
	case "initialize":
		send({ jsonrpc: "2.0", id: m.id, result: {
		    protocolVersion: m.params.protocolVersion,
		    capabilities: noTools ? { prompts: {} } : { tools: {} },
		    serverInfo: { name: "hostile", version: "1.0.0" } } });
		break;
	case "ping":
		send({ jsonrpc: "2.0", id: m.id, result: {} });
		break;
	case "tools/list":
		send({ jsonrpc: "2.0", id: m.id, result: { tools } });
		break;
	case "prompts/list":
		send({ jsonrpc: "2.0", id: m.id, result: { prompts: [] } });
		break;
	case "tools/call":
		switch (m.params.name) {
		case "echo":
		case "ofl_search":
			text(m.id, `echo: ${a.text ?? ""}`);
			break;
		case "big":
			setTimeout(() => text(m.id, filler(a.bytes ?? 1000,
			    a.char ?? "x")), a.ms ?? 0);
			break;
		case "crash":
			process.stderr.write("hostile: crashing\n");
			process.exit(3);
			break;
		case "half": {
			const s = JSON.stringify({ jsonrpc: "2.0", id: m.id,
			    result: { content: [{ type: "text",
			    text: filler(1000000, "h") }] } });
			process.stdout.write(s.slice(0, s.length / 2), () =>
			    process.exit(4));
			break;
		}
		case "hang":
			break;
		case "slow": {
			const t0 = Date.now();
			const token = m.params._meta?.progressToken;
			const tick = setInterval(() => {
				if (token !== undefined)
					send({ jsonrpc: "2.0",
					    method: "notifications/progress",
					    params: { progressToken: token,
					    progress: Date.now() - t0 } });
			}, 200);
			setTimeout(() => {
				clearInterval(tick);
				text(m.id, "slow: done");
			}, a.ms ?? 1000);
			break;
		}
		case "garbage":
			process.stdout.write("this is not JSON {\n");
			text(m.id, "garbage: done");
			break;
		case "huge":
			text(m.id, filler(50 * 1000 * 1000, "u"));
			break;
		case "huge_garbage":
			process.stdout.write("<" + "g".repeat(50 * 1000 * 1000) +
			    "\n");
			text(m.id, "huge_garbage: done");
			break;
		case "image":
			send({ jsonrpc: "2.0", id: m.id, result: { content: [
			    { type: "text", text: "an image" },
			    { type: "image", mimeType: "image/png",
			      data: "iVBORw0KGgo".padEnd(a.bytes ?? 100, "A") }
			] } });
			break;
		case "notify":
			send({ jsonrpc: "2.0", method: "notifications/message",
			    params: { level: "info", data: "hostile says hi" } });
			text(m.id, "notify: done");
			break;
		case "fail":
			send({ jsonrpc: "2.0", id: m.id, error: { code: -32603,
			    message: "hostile: failed on purpose" } });
			break;
		default:
			send({ jsonrpc: "2.0", id: m.id, error: { code: -32602,
			    message: `Unknown tool: ${m.params.name}` } });
		}
		break;
	default:
		send({ jsonrpc: "2.0", id: m.id, error: { code: -32601,
		    message: "Method not found" } });
	}
}
