/**
 * A workspace's MCP endpoint as a resource: the path the endpoint is served at, and the workspace an OAuth
 * resource indicator (RFC 8707: the endpoint's absolute URL) names. A token is bound to that one workspace.
 */
/** The one scope a hosted client asks for: using the workspace's tools as the agent the person picked. */
export const mcpScope = 'mcp';

export const mcpEndpointPattern = /^\/api\/v1\/workspaces\/([^/]+)\/mcp\/?$/i;

export const mcpEndpointPath = (workspaceId: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/mcp`;

/** The workspace whose MCP endpoint this absolute URL is, or undefined (another URL, a query, a fragment). */
export function mcpEndpointWorkspace(resource: unknown): string | undefined {
  const url = typeof resource === 'string' ? URL.parse(resource) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) return undefined;
  const segment = mcpEndpointPattern.exec(url.pathname)?.[1];
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Where the authorization server is mounted, under the service's origin; its issuer is PUBLIC_URL and this path. */
export const oauthMountPath = '/oauth';
