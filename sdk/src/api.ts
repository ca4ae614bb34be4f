/**
 * The generated low-level calls, one per operation of the OpenAPI document (`getBundle`, `createPlaybook`, …),
 * and the generated fetch client they run on: for routes the facade does not wrap yet. They do not retry or
 * revalidate; pass `client: createClient({ baseUrl, auth: () => apiKey })`.
 */
export * from './generated/sdk.gen.js';
export { createClient, createConfig, type Client, type Config } from './generated/client/index.js';
export type * from './generated/types.gen.js';
