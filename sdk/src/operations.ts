import type { Client } from './generated/client/index.js';
import { PlaybooksError } from './errors.js';
import { type CallOptions, type CallPolicy, type TransportOptions, transportFetch } from './transport.js';

/** An operation as generated/operations.gen.ts holds it: its generated call and its policy from the OpenAPI document. */
export interface Operation {
  // The generated calls differ in their options: each operation's own are checked by OptionsOf.
  call: (options: any) => Promise<unknown>;
  policy: CallPolicy;
}

/** What the generated call of an operation takes, less what the sender sets (its client, its fetch). */
export type OptionsOf<O extends Operation> = Omit<NonNullable<Parameters<O['call']>[0]>, 'client' | 'fetch'>;

/** The body of an operation's answer of success, as its generated types say. */
export type DataOf<O extends Operation> = Extract<Awaited<ReturnType<O['call']>>, { data: unknown; error: undefined }>['data'];

/** An answer as it came: its body as given by `parseAs`, with the response's status and headers. */
export interface Answered<D> {
  data: D;
  response: Response;
}

/**
 * The facade's one way to send an operation: its generated call, with the retry and revalidation policy the
 * OpenAPI document gives it, through the client's transport. Every problem the service answers is thrown
 * as a PlaybooksError.
 */
export class Operations {
  readonly #api: Client;
  readonly #transport: TransportOptions;
  readonly #workspaceId: string;

  constructor(api: Client, transport: TransportOptions, workspaceId: string) {
    this.#api = api;
    this.#transport = transport;
    this.#workspaceId = workspaceId;
  }

  /** The typed answer's body (undefined for a 204). */
  async send<O extends Operation>(operation: O, options: OptionsOf<O>, call?: CallOptions): Promise<DataOf<O>> {
    const { data, response } = await this.answer<DataOf<O>, O>(operation, options, call);
    return (response.status === 204 ? undefined : data) as DataOf<O>;
  }

  /**
   * The answer with its response, for what its headers say (a CSV's row count); `parseAs: 'stream'` leaves the body
   * for the caller to read as it arrives, unbounded by the attempt's timeout.
   */
  async answer<R, O extends Operation = Operation>(operation: O, options: OptionsOf<O>, call?: CallOptions): Promise<Answered<R>> {
    const policy = { ...operation.policy, stream: options.parseAs === 'stream' };
    const sent = operation.call({ ...options, client: this.#api, fetch: transportFetch(this.#transport, policy, call) });
    const { data, error, response } = (await sent) as { data?: unknown; error?: unknown; response?: Response };
    // No response: the transport threw (timeout, network, abort) and the generated client handed the error back.
    if (!response) throw error;
    if (!response.ok) throw PlaybooksError.fromAnswer(response, error);
    return { data: data as R, response };
  }

  /** The path parameters of a call in the client's workspace. */
  path<P extends object>(rest?: P): { workspaceId: string } & P {
    if (!this.#workspaceId) throw new TypeError('This call needs a client made with a workspaceId');
    return { workspaceId: this.#workspaceId, ...(rest as P) };
  }
}
