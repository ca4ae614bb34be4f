/**
 * Where the CPU time of a profiled process went, from a V8 .cpuprofile (`npm run bench -- --cpu-prof` writes one
 * per API process under bench/results/<timestamp>-cpuprof/):
 *
 *   npx tsx bench/profile-summary.ts bench/results/<timestamp>-cpuprof/api-cache-on.cpuprofile [--top 25]
 *   npx tsx bench/profile-summary.ts FILE --callers writeUtf8String [--frames 8]    who calls a function
 *
 * Prints self time by origin (the service's own files, each dependency, Node internals, GC, idle) and the
 * functions with the most self and inclusive time.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function origin(url: string, fn: string): string {
  if (!url) return fn === '(garbage collector)' || fn === '(idle)' || fn === '(program)' ? fn : `(native) ${fn}`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return url.split('/')[0];
  const own = /\/(dist\/)?(src\/.+|bench\/.+)$/.exec(url);
  if (own) return own[2].replace(/\.js$/, '.ts');
  return url;
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' }, callers: { type: 'string' }, frames: { type: 'string', default: '8' } } });
  if (positionals.length === 0) {
    console.error('usage: tsx bench/profile-summary.ts FILE.cpuprofile [--top 25]');
    process.exit(2);
  }
  const top = Number(values.top);
  for (const file of positionals) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const self = new Map<number, number>();
    let total = 0;
    for (let i = 0; i < p.samples.length; i++) {
      const dt = (p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0) / 1000; // ms; a sample's time runs until the next one
      self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
      total += dt;
    }
    const key = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}  ${origin(n.callFrame.url, n.callFrame.functionName)}:${n.callFrame.lineNumber + 1}`;
    const byOrigin = new Map<string, number>();
    const selfByFn = new Map<string, number>();
    const inclByFn = new Map<string, number>();
    for (const [id, ms] of self) {
      const n = byId.get(id)!;
      const o = origin(n.callFrame.url, n.callFrame.functionName);
      byOrigin.set(o, (byOrigin.get(o) ?? 0) + ms);
      selfByFn.set(key(n), (selfByFn.get(key(n)) ?? 0) + ms);
      const seen = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const k = key(byId.get(cur)!);
        if (seen.has(k)) continue;
        seen.add(k);
        inclByFn.set(k, (inclByFn.get(k) ?? 0) + ms);
      }
    }
    if (values.callers) {
      // Self time of the named function, by the chain of callers above it.
      const chains = new Map<string, number>();
      let sum = 0;
      for (const [id, ms] of self) {
        const n = byId.get(id)!;
        if (n.callFrame.functionName !== values.callers) continue;
        const frames: string[] = [];
        for (let cur = parent.get(id); cur !== undefined && frames.length < Number(values.frames); cur = parent.get(cur)) {
          const f = byId.get(cur)!;
          frames.push(`${f.callFrame.functionName || '(anonymous)'}@${origin(f.callFrame.url, f.callFrame.functionName)}:${f.callFrame.lineNumber + 1}`);
        }
        const k = frames.join(' < ');
        chains.set(k, (chains.get(k) ?? 0) + ms);
        sum += ms;
      }
      console.log(`${file}: ${values.callers} ${sum.toFixed(0)} ms self, by callers:`);
      for (const [k, ms] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${k}`);
      continue;
    }
    const idle = byOrigin.get('(idle)') ?? 0;
    const busy = total - idle;
    const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)} %`;
    const list = (m: Map<string, number>, n: number) =>
      [...m]
        .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(root)'))
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, ms]) => `  ${pct(ms)}  ${ms.toFixed(0).padStart(7)} ms  ${k}`);
    console.log(`${file}\n  profiled ${(total / 1000).toFixed(1)} s, busy ${(busy / 1000).toFixed(1)} s (percentages are of busy time)`);
    console.log('\nself time by origin:');
    console.log(list(byOrigin, top).join('\n'));
    console.log('\nself time by function:');
    console.log(list(selfByFn, top).join('\n'));
    console.log('\ninclusive time by function:');
    console.log(list(inclByFn, top).join('\n'));
  }
}

main();
