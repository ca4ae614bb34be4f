/**
 * How a context query ranks (docs/retrieval.md, "How a query is answered"): pure functions, so that the same
 * inputs always give the same order. The constants were tuned on the MuSiQue questions of the quality bench
 * (`npm run bench -- --quality`) and checked on HotpotQA.
 */

/**
 * The constants. fusionK: reciprocal-rank fusion's constant (a seed's share is weight / (k + rank)); the weights:
 * what each side contributes to the fusion; walkSeeds: the best fused nodes the walk starts from; linkFactors: what
 * a link passes on of the score of the node it comes from, by type, and backwards: times this for a link followed
 * from its target to its source; bothBonus: a node both matched and linked adds this share of the lesser score.
 */
export const tuning = {
  fusionK: 20,
  wordsWeight: 0.3,
  meaningWeight: 1,
  walkSeeds: 3,
  linkFactors: { REQUIRES: 0.9, REFERENCES: 0.75, RELATES_TO: 0.6, INDEX_ENTRY: 0.5 },
  backwards: 0.5,
  bothBonus: 0.1,
} as const;
export const walkSeeds = tuning.walkSeeds;
const linkFactors = tuning.linkFactors;

export type LinkRelationship = keyof typeof tuning.linkFactors;

/** Why a node is in the answer. */
export type QueryReason =
  | { kind: 'matched'; by: ('words' | 'meaning')[]; section: string | null }
  | { kind: 'linked'; fromId: string; linkType: LinkRelationship; direction: 'out' | 'in'; depth: number };

export interface Candidate {
  id: string;
  score: number;
  reason: QueryReason;
}

export interface Seed {
  id: string;
  /** Positions (0 = first) on each side; absent when that side did not find the node. */
  wordsRank?: number;
  meaningRank?: number;
  section: string | null;
}

/** The two sides' rankings fused by reciprocal rank: best first, ties by id. */
export function fuse(words: string[], meaning: { id: string; section: string | null }[]): (Seed & { score: number })[] {
  const seeds = new Map<string, Seed>();
  words.forEach((id, rank) => seeds.set(id, { id, wordsRank: rank, section: null }));
  meaning.forEach(({ id, section }, rank) => seeds.set(id, { ...(seeds.get(id) ?? { id }), meaningRank: rank, section }));
  const scoreOf = (s: Seed) =>
    (s.wordsRank === undefined ? 0 : tuning.wordsWeight / (tuning.fusionK + s.wordsRank + 1)) +
    (s.meaningRank === undefined ? 0 : tuning.meaningWeight / (tuning.fusionK + s.meaningRank + 1));
  return [...seeds.values()].map((s) => ({ ...s, score: scoreOf(s) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** The reason of a node found by a side or both. */
export function matchedReason(seed: Seed): QueryReason {
  const by: ('words' | 'meaning')[] = [];
  if (seed.meaningRank !== undefined) by.push('meaning');
  if (seed.wordsRank !== undefined) by.push('words');
  return { kind: 'matched', by, section: seed.meaningRank !== undefined ? seed.section : null };
}

export interface LinkStep {
  fromId: string;
  toId: string;
  type: LinkRelationship;
  out: boolean;
}

/** The score a link passes on to the node it reaches. */
export const passedOn = (score: number, step: Pick<LinkStep, 'type' | 'out'>) => score * linkFactors[step.type] * (step.out ? 1 : tuning.backwards);

/**
 * Adds what one step of the walk reached: a node keeps its best score (its own match or the best link to it);
 * a node reached by requires is put right after the node requiring it, whatever its own score.
 */
export function admit(candidates: Map<string, Candidate>, steps: LinkStep[], depth: number, own: Map<string, number> = new Map()): string[] {
  const reached: string[] = [];
  for (const step of [...steps].sort((a, b) => (a.fromId === b.fromId ? (a.toId < b.toId ? -1 : 1) : a.fromId < b.fromId ? -1 : 1))) {
    const from = candidates.get(step.fromId);
    if (!from) continue;
    const mine = own.get(step.toId) ?? 0;
    // What a node requires comes right after it (or where its own match puts it, when that is higher).
    const required = step.type === 'REQUIRES' && step.out;
    const passed = required ? from.score * 0.999 : passedOn(from.score, step);
    const score = required ? Math.max(mine, passed) : Math.max(mine, passed) + tuning.bothBonus * Math.min(mine, passed);
    const known = candidates.get(step.toId);
    if (known && known.score >= score) continue;
    if (!known) reached.push(step.toId);
    // A node its own match ranks higher than the link keeps its own reason.
    const reason: QueryReason = known && known.reason.kind === 'matched' && mine >= passed
      ? known.reason
      : { kind: 'linked', fromId: step.fromId, linkType: step.type, direction: step.out ? 'out' : 'in', depth };
    candidates.set(step.toId, { id: step.toId, score, reason });
  }
  return reached;
}

export interface Marks {
  superseded: boolean;
  flags: string[];
  nearPlaybook: boolean;
}

/**
 * The final order: nodes nobody has replaced or flagged before those superseded or flagged by open
 * outdated/incorrect feedback (as in a bundle); then, when the query names a playbook, its neighbourhood first;
 * then score; then id.
 */
export function rank(candidates: Candidate[], marks: Map<string, Marks>): Candidate[] {
  const tier = (c: Candidate) => {
    const m = marks.get(c.id);
    return (m && (m.superseded || m.flags.length > 0) ? 0 : 2) + (m?.nearPlaybook ? 1 : 0);
  };
  return [...candidates].sort((a, b) => tier(b) - tier(a) || b.score - a.score || (a.id < b.id ? -1 : 1));
}
