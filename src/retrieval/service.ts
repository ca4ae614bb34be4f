import type { ServiceDeps } from '../services.js';

export class RetrievalService {
  constructor(private readonly deps: ServiceDeps) {}

  /** Background work (quota persistence) that lives as long as the process. */
  async start(): Promise<void> {}

  async stop(): Promise<void> {}
}
