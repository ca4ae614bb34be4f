// Asks GET /healthz of the API at argv[2] again and again until a line arrives on stdin, then prints the
// longest round trip and the number of polls as JSON. A process of its own, so that the test's own work (building
// and sending a large body) cannot delay the polls it times.
const base = process.argv[2];
let stop = false;
let worst = 0;
let polls = 0;
process.stdin.once('data', () => (stop = true));
process.stdout.write('ready\n');
while (!stop) {
  const started = performance.now();
  const res = await fetch(`${base}/healthz`);
  await res.arrayBuffer();
  worst = Math.max(worst, performance.now() - started);
  polls += 1;
  await new Promise((resolve) => setTimeout(resolve, 5));
}
process.stdout.write(`${JSON.stringify({ worst, polls })}\n`);
process.exit(0);
