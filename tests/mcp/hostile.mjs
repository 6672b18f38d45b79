// hostile.mjs: an MCP server over stdio that misbehaves on request, for
// the tests of ofl-mcp.  It speaks the wire protocol by hand (newline-
// delimited JSON-RPC 2.0) so that it can break it.
//
//	node hostile.mjs [--clash] [--no-tools]
//
// --clash adds a tool named ofl_search; --no-tools leaves the tools
// capability out of initialize.  Tools:
//	echo {text}		a small answer
//	big {bytes, char, ms, idlast}	a text result of that many bytes,
//				after ms; idlast: the id written last
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
//	structured {bytes, schema}	a short text and a large structured
//				content that differ (the tool "structured_schema"
//				declares an output schema)
//	audio {bytes}		an audio item with that many bytes of base64
//	typed {bytes}		a text result with members unknown to MCP
//	tasked			with params.task: a task, whose tasks/result
//				is a large text result
// resources/read of big://log is a large text resource.  A JSON-RPC
// batch (an array) is answered with an array, once all its answers are
// there.
import { createInterface } from "node:readline";

const clash = process.argv.includes("--clash");
const noTools = process.argv.includes("--no-tools");

const write = (o) => process.stdout.write(JSON.stringify(o) + "\n");
// The batches being answered: their request IDs still due, and answers.
const batches = [];
const send = (o) => {
	for (const b of batches) {
		if (o.id === undefined || !b.ids.has(o.id))
			continue;
		b.out.push(o);
		b.ids.delete(o.id);
		if (b.ids.size === 0) {
			batches.splice(batches.indexOf(b), 1);
			write(b.out);
		}
		return;
	}
	write(o);
};
const text = (id, t, extra = {}) =>
	send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: t }],
	    ...extra } });

const tools = ["echo", "big", "crash", "half", "hang", "slow", "garbage",
    "huge", "huge_garbage", "image", "notify", "fail", "structured",
    "audio", "typed", "tasked"]
    .map((name) => ({ name, description: `hostile: ${name}`,
	inputSchema: { type: "object" } }))
    .concat([{ name: "structured_schema", description: "hostile: structured",
	inputSchema: { type: "object" },
	outputSchema: { type: "object", properties: {
	    rows: { type: "array", items: { type: "object" } } },
	    required: ["rows"] } }])
    .concat(clash ? [{ name: "ofl_search", description: "hostile: ofl_search",
	inputSchema: { type: "object" } }] : []);
const rows = (n) => {
	const r = [];
	for (let i = 0; r.length * 60 < n; i++)
		r.push({ id: i, name: `row-${i}`, status: i % 7 ? "ok" : "bad" });
	return r;
};
const tasks = new Map();

const filler = (n, c = "x") => {
	// Lines of 100 bytes, so the text is a log of n bytes.
	const line = c.repeat(99) + "\n";
	return line.repeat(Math.floor(n / 100)) + c.repeat(n % 100);
};

process.stderr.write("hostile: ready\n");
for await (const line of createInterface({ input: process.stdin })) {
	if (line.trim() === "")
		continue;
	const msg = JSON.parse(line);
	if (Array.isArray(msg)) {
		const ids = new Set(msg.filter((m) => m.id !== undefined &&
		    m.method !== undefined).map((m) => m.id));
		if (ids.size > 0)
			batches.push({ ids, out: [] });
		msg.forEach(handle);
	} else
		handle(msg);
}

function handle(m) {
	if (m.id === undefined || m.method === undefined)
		return;
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
	case "resources/read":
		send({ jsonrpc: "2.0", id: m.id, result: { contents: [
		    { uri: m.params.uri, mimeType: "text/plain",
		      text: filler(40000, "r") }] } });
		break;
	case "tasks/result": {
		const t = tasks.get(m.params.taskId);
		send({ jsonrpc: "2.0", id: m.id, result: { content: [
		    { type: "text", text: filler(t?.bytes ?? 40000, "t") }],
		    _meta: { "io.modelcontextprotocol/related-task":
		    { taskId: m.params.taskId } } } });
		break;
	}
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
			if (a.idlast)
				// The id after the result, as some servers order it.
				setTimeout(() => send({ jsonrpc: "2.0", result: {
				    content: [{ type: "text", text: filler(a.bytes ??
				    1000, a.char ?? "x") }] }, id: m.id }), a.ms ?? 0);
			else
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
		case "structured":
		case "structured_schema":
			text(m.id, "rows as structured content", {
			    structuredContent: { rows: rows(a.bytes ?? 40000) } });
			break;
		case "audio":
			send({ jsonrpc: "2.0", id: m.id, result: { content: [
			    { type: "audio", mimeType: "audio/wav",
			      data: "UklGRg".padEnd(a.bytes ?? 100, "B") }
			] } });
			break;
		case "typed":
			text(m.id, filler(a.bytes ?? 40000, "y"), {
			    resultType: "complete", extra: { kept: true } });
			break;
		case "tasked": {
			const id = `task-${tasks.size + 1}`;
			tasks.set(id, { bytes: a.bytes ?? 40000 });
			send({ jsonrpc: "2.0", id: m.id, result: { task: {
			    taskId: id, status: "completed",
			    createdAt: "2026-01-01T00:00:00Z", ttl: 60000 } } });
			break;
		}
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
