import type { ServiceDeps } from '../services.js';

export class PlaybookService {
  constructor(private readonly deps: ServiceDeps) {}
}
