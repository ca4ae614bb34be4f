// Asks GET /healthz of the API at argv[2] again and again until a line arrives on stdin, then prints the
// longest round trip and the number of polls as JSON. A process of its own, so that the test's own work (building
// and sending a large body) cannot delay the polls it times.
//
// Beside each poll of the API it asks a bare HTTP server in a process of its own (the control) the same way: on a
// shared machine of two cores every process can be held up by others, and the control's longest round trip says
// how much of a slow poll was the machine's rather than the API's.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const base = process.argv[2];
const control = spawn(process.execPath, ['-e', "const s = require('node:http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () => console.log(s.address().port))"], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [portLine] = await once(control.stdout, 'data');
const controlBase = `http://127.0.0.1:${String(portLine).trim()}`;

async function roundTrip(url) {
  const started = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return performance.now() - started;
}

let stop = false;
let worst = 0;
let worstControl = 0;
let polls = 0;
process.stdin.once('data', () => (stop = true));
process.stdout.write('ready\n');
while (!stop) {
  const [api, bare] = await Promise.all([roundTrip(`${base}/healthz`), roundTrip(`${controlBase}/`)]);
  worst = Math.max(worst, api);
  worstControl = Math.max(worstControl, bare);
  polls += 1;
  await new Promise((resolve) => setTimeout(resolve, 5));
}
control.kill();
process.stdout.write(`${JSON.stringify({ worst, worstControl, polls })}\n`);
process.exit(0);
