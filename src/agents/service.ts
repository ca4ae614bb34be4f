import type { ServiceDeps } from '../services.js';

export class AgentService {
  constructor(private readonly deps: ServiceDeps) {}
}
