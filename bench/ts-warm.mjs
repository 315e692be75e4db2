// bench-warm's three modes with the TypeScript SDK pinned in tests/peer/sdk:
// time to a turn's system/init for a cold query(), startup() then query,
// and prewarm() then claim(), with the pinned CLI offline against a
// Messages API stand-in served from here (no in-process MCP server: the
// SDK's needs peer dependencies that tests/peer/sdk leaves out; compare
// with BENCH_WARM_MCP=0 bench-warm).
//
//   npm ci --prefix tests/peer && npm ci --prefix tests/peer/sdk
//   CLAUDE_BIN=tests/peer/node_modules/.bin/claude node bench/ts-warm.mjs 15
import { query, startup, prewarm } from '../tests/peer/sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs';
import { createServer } from 'http';
import { mkdtempSync, mkdirSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

const rounds = Number(process.argv[2] ?? 15);

// The stand-in: every model call is answered with the streamed text "ok".
const events = [
  ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
  ['message_stop', { type: 'message_stop' }],
];
const sse = events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url.startsWith('/v1/messages') && !req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"input_tokens":1}');
    }
  });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const apiUrl = `http://127.0.0.1:${server.address().port}`;
const home = mkdtempSync(join(tmpdir(), 'tsbench-home-'));
mkdirSync(join(home, '.claude'));
const env = {
  PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
  ANTHROPIC_BASE_URL: apiUrl, ANTHROPIC_API_KEY: 'x',
  DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  CLAUDE_CODE_MAX_RETRIES: '0',
};
const base = { pathToClaudeCodeExecutable: resolve(process.env.CLAUDE_BIN), env };
const folder = () => mkdtempSync(join(tmpdir(), 'tsbench-'));

async function firstInit(q, t0) {
  let took;
  for await (const m of q) {
    if (took === undefined && m.type === 'system' && m.subtype === 'init') took = performance.now() - t0;
  }
  return took;
}

async function once(mode) {
  if (mode === 'cold') {
    const t0 = performance.now();
    return firstInit(query({ prompt: 'hi', options: { ...base, cwd: folder() } }), t0);
  }
  if (mode === 'startup') {
    const w = await startup({ options: { ...base, cwd: folder() } });
    const t0 = performance.now();
    return firstInit(w.query('hi'), t0);
  }
  const spare = await prewarm({ options: base });
  const t0 = performance.now();
  const q = spare.claim({ prompt: 'hi', options: { cwd: folder() } });
  const took = await firstInit(q, t0);
  await spare.claimed;
  return took;
}

const modes = ['cold', 'startup', 'claimed'];
const times = { cold: [], startup: [], claimed: [] };
for (const m of modes) await once(m); // untimed
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < 3; k++) {
    const m = modes[(k + r) % 3];
    times[m].push(await once(m));
  }
}
const q = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.round((s.length - 1) * p)]; };
for (const m of modes) console.log(`${m}: p50 ${q(times[m], 0.5).toFixed(0)} ms, p90 ${q(times[m], 0.9).toFixed(0)} ms`);
console.log(`cold / claimed (p50): ${(q(times.cold, 0.5) / q(times.claimed, 0.5)).toFixed(1)}x`);
server.close();
