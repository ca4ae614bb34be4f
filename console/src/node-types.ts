export const nodeTypes = ['brand', 'process', 'reference', 'domain-knowledge', 'example', 'index'] as const;
export type NodeType = (typeof nodeTypes)[number];
export const linkTypes = ['requires', 'references', 'relates-to', 'supersedes', 'index-entry'] as const;
