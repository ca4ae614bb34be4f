import type { AnyRoute } from '../http/route.js';
import type { AppServices } from '../services.js';

export function nodeRoutes(_s: AppServices): AnyRoute[] {
  return [];
}
