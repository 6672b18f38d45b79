// claude-mock.mjs: a stand-in for the Anthropic Messages API on loopback,
// for running the real Claude Code binary headless in the tests.
//
//	node claude-mock.mjs PORTFILE LOGFILE COMMAND...
//
// It listens on 127.0.0.1 (a free port, written to PORTFILE once it
// listens) and answers POST /v1/messages, streamed (SSE) or not.  The
// first request of a conversation that offers the Bash tool gets a
// tool_use of Bash with the first COMMAND; the request that carries its
// tool_result gets the next COMMAND, and so on; after the last one the
// model says "done" and the turn ends.  A COMMAND that starts with { is
// a call of another tool, {"name": "mcp__server__tool", "input": {...}}.  Any other request (a side query
// with no Bash tool) is answered with a short text.  Every request body
// is appended to LOGFILE as one JSON line, so that a test can read the
// tool results the model received.

import fs from 'node:fs';
import http from 'node:http';

const [portFile, logFile, ...commands] = process.argv.slice(2);
if (!portFile || !logFile || commands.length === 0) {
	process.stderr.write('usage: claude-mock.mjs PORTFILE LOGFILE COMMAND...\n');
	process.exit(2);
}

let nmsg = 0;

// A COMMAND that starts with { is a call of another tool, as JSON:
// {"name": "mcp__server__tool", "input": {...}}.
const calls = commands.map((c) => c.startsWith('{') ? JSON.parse(c) :
    { name: 'Bash', input: { command: c, description: 'Run it' } });

// The reply to one request: a list of content blocks and a stop reason.
function reply(body) {
	const tools = Array.isArray(body.tools) ? body.tools : [];
	if (!tools.some((t) => t && t.name === 'Bash'))
		return { content: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
	// How many tool results has this conversation seen so far?
	let done = 0;
	for (const m of body.messages || []) {
		if (m.role !== 'user' || !Array.isArray(m.content))
			continue;
		for (const c of m.content)
			if (c && c.type === 'tool_result')
				done++;
	}
	if (done >= commands.length)
		return { content: [{ type: 'text', text: 'done' }], stop: 'end_turn' };
	return {
		content: [{
			type: 'tool_use',
			id: `toolu_mock${String(done + 1).padStart(4, '0')}`,
			name: calls[done].name,
			input: calls[done].input,
		}],
		stop: 'tool_use',
	};
}

function usage() {
	return { input_tokens: 10, output_tokens: 5,
	    cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function sse(res, event, data) {
	res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function answer(req, res, body) {
	const r = reply(body);
	const id = `msg_mock${++nmsg}`;
	const model = body.model || 'claude-mock';
	if (!body.stream) {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ id, type: 'message', role: 'assistant',
		    model, content: r.content, stop_reason: r.stop,
		    stop_sequence: null, usage: usage() }));
		return;
	}
	res.writeHead(200, { 'content-type': 'text/event-stream',
	    'cache-control': 'no-cache', connection: 'keep-alive' });
	sse(res, 'message_start', { type: 'message_start', message: { id,
	    type: 'message', role: 'assistant', model, content: [],
	    stop_reason: null, stop_sequence: null, usage: usage() } });
	r.content.forEach((c, i) => {
		if (c.type === 'text') {
			sse(res, 'content_block_start', { type: 'content_block_start',
			    index: i, content_block: { type: 'text', text: '' } });
			sse(res, 'content_block_delta', { type: 'content_block_delta',
			    index: i, delta: { type: 'text_delta', text: c.text } });
		} else {
			sse(res, 'content_block_start', { type: 'content_block_start',
			    index: i, content_block: { type: 'tool_use', id: c.id,
			    name: c.name, input: {} } });
			sse(res, 'content_block_delta', { type: 'content_block_delta',
			    index: i, delta: { type: 'input_json_delta',
			    partial_json: JSON.stringify(c.input) } });
		}
		sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
	});
	sse(res, 'message_delta', { type: 'message_delta',
	    delta: { stop_reason: r.stop, stop_sequence: null },
	    usage: { output_tokens: 5 } });
	sse(res, 'message_stop', { type: 'message_stop' });
	res.end();
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		const raw = Buffer.concat(chunks).toString('utf8');
		let body = {};
		try {
			body = raw ? JSON.parse(raw) : {};
		} catch {
			body = {};
		}
		fs.appendFileSync(logFile, JSON.stringify({ method: req.method,
		    url: req.url, body }) + '\n');
		const path = (req.url || '').split('?')[0];
		if (req.method === 'POST' && path === '/v1/messages') {
			answer(req, res, body);
		} else if (req.method === 'POST' &&
		    path === '/v1/messages/count_tokens') {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ input_tokens: 10 }));
		} else {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ type: 'error', error: {
			    type: 'not_found_error', message: 'not here' } }));
		}
	});
});

server.listen(0, '127.0.0.1', () => {
	fs.writeFileSync(portFile, `${server.address().port}\n`);
});

for (const sig of ['SIGTERM', 'SIGINT'])
	process.on(sig, () => server.close(() => process.exit(0)));
