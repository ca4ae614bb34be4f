import type { ServiceDeps } from '../services.js';

export class NodeService {
  constructor(private readonly deps: ServiceDeps) {}
}
