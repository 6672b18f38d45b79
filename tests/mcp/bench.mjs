// bench.mjs: figures for ofl-mcp on the wire (one JSON-RPC message a line).
//
//	node bench.mjs sizes OFL-MCP FILESYSTEM-JS ROOT SPEC.json
//	node bench.mjs latency OFL-MCP SERVER-JS N
//
// sizes: for each case of SPEC (file, follow-up call, evidence regex),
// reads the file through the filesystem server unwrapped and through
// ofl-mcp, and prints the bytes of each answer line, then makes the
// follow-up call through ofl-mcp with the artifact's ID and says whether
// its answer holds the evidence.  latency: N small tools/call round trips
// to SERVER-JS unwrapped and wrapped, and their medians.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

class Peer {
	constructor(cmd, args) {
		this.p = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"] });
		this.waiting = new Map();
		this.id = 0;
		createInterface({ input: this.p.stdout, crlfDelay: Infinity })
		    .on("line", (line) => {
			let m;
			try { m = JSON.parse(line); } catch { return; }
			const w = this.waiting.get(m.id);
			if (m.method === undefined && w !== undefined) {
				this.waiting.delete(m.id);
				w({ bytes: Buffer.byteLength(line) + 1, msg: m });
			}
		    });
	}
	request(method, params) {
		const id = ++this.id;
		return new Promise((resolve) => {
			this.waiting.set(id, resolve);
			this.p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id,
			    method, params }) + "\n");
		});
	}
	notify(method) {
		this.p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) +
		    "\n");
	}
	async init() {
		await this.request("initialize", { protocolVersion: "2025-06-18",
		    capabilities: {}, clientInfo: { name: "bench", version: "1" } });
		this.notify("notifications/initialized");
	}
	close() {
		this.p.stdin.end();
	}
}

const textOf = (r) => r.msg.result?.content?.[0]?.text ?? "";
const median = (a) => {
	const s = [...a].sort((x, y) => x - y);
	return s.length % 2 ? s[(s.length - 1) / 2] :
	    (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const [mode, ...args] = process.argv.slice(2);
if (mode === "sizes") {
	const [oflmcp, fsjs, root, specFile] = args;
	const spec = JSON.parse(readFileSync(specFile, "utf8"));
	const direct = new Peer("node", [fsjs, root]);
	const wrapped = new Peer(oflmcp, ["--", "node", fsjs, root]);
	await direct.init();
	await wrapped.init();
	const rows = [];
	for (const c of spec) {
		const path = `${root}/${c.file}`;
		const d = await direct.request("tools/call",
		    { name: "read_text_file", arguments: { path } });
		const w = await wrapped.request("tools/call",
		    { name: "read_text_file", arguments: { path } });
		const t = textOf(w);
		const id = (t.match(/^ofl:([a-z0-9]+) /m) ?? [])[1];
		let found = false, follow = "", fbytes = 0;
		if (id !== undefined) {
			const a = JSON.parse(JSON.stringify(c.call.arguments)
			    .replaceAll("ID", id));
			const f = await wrapped.request("tools/call",
			    { name: c.call.name, arguments: a });
			fbytes = f.bytes;
			follow = `${c.call.name} ${JSON.stringify(a)}`;
			const ft = textOf(f);
			found = c.evidence.every((e) => new RegExp(e, "m").test(ft));
			if (!found && process.env.BENCH_VERBOSE)
				console.error(ft);
		}
		rows.push({ case: c.name, file: c.file, unwrapped: d.bytes,
		    wrapped: w.bytes, offloaded: id !== undefined,
		    follow_up: follow, follow_up_bytes: fbytes,
		    evidence: c.evidence, found });
	}
	direct.close();
	wrapped.close();
	for (const r of rows)
		console.log(JSON.stringify(r));
	process.exit(0);
} else if (mode === "latency") {
	const [oflmcp, serverjs, n] = args;
	const N = Number(n ?? 2000);
	const run = async (peer) => {
		await peer.init();
		const t = [];
		for (let i = 0; i < N + 100; i++) {
			const t0 = process.hrtime.bigint();
			await peer.request("tools/call", { name: "echo",
			    arguments: { text: `ping ${i}` } });
			if (i >= 100)	// warm up first
				t.push(Number(process.hrtime.bigint() - t0) / 1e6);
		}
		peer.close();
		return t;
	};
	// Interleave rounds so that both see the same machine load.
	const dm = [], wm = [];
	for (let round = 0; round < 5; round++) {
		dm.push(median(await run(new Peer("node", [serverjs]))));
		wm.push(median(await run(new Peer(oflmcp,
		    ["--", "node", serverjs]))));
	}
	const d = median(dm), w = median(wm);
	console.log(JSON.stringify({ calls: N * 5, direct_median_ms: +d.toFixed(3),
	    wrapped_median_ms: +w.toFixed(3), added_ms: +(w - d).toFixed(3) }));
	process.exit(0);
} else {
	console.error("usage: node bench.mjs sizes|latency ...");
	process.exit(2);
}
