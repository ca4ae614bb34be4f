import type { AnyRoute } from '../http/route.js';
import type { AppServices } from '../services.js';

export function agentRoutes(_s: AppServices): AnyRoute[] {
  return [];
}
