import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { AgentService } from '../agents/service.js';
import { stampOf } from '../audit/recorder.js';
import { type Caller, type Principal, roleAtLeast } from '../auth/caller.js';
import { hashKey } from '../auth/keys.js';
import { mcpEndpointWorkspace, mcpScope, oauthMountPath } from '../auth/mcp-resource.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { SecretBox } from '../infra/secret-box.js';
import type { ServiceDeps } from '../service-deps.js';
import { PublicOrigin } from './public-origin.js';
import { type EndedToken, keepClient } from './redis-adapter.js';
import { RegistrationLimit } from './registration-limit.js';
import { OAuthRepository, type ProviderKeys } from './repository.js';
import type { Grant } from './schemas.js';

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/** A signing key and two cookie keys, made once for the whole deployment (the first process to start keeps them). */
function newKeys(): { jwks: string; cookieKeys: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  return { jwks: JSON.stringify({ keys: [jwk] }), cookieKeys: JSON.stringify([randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]) };
}

/**
 * Hosted AI clients on the MCP endpoints, with a person's consent: the authorization server (src/oauth/provider.ts),
 * the consent page's three steps (what is asked, approve as an agent, deny), and the grants a person can see and
 * end on an agent's page. A grant makes its tokens act as one agent of one workspace; the request gate reads it
 * (auth/find-grant.cypher), and ending it, or anything that ends the agent's access, is signalled to every process.
 */
export class OAuthService {
  private readonly repo: OAuthRepository;
  private readonly registrations: RegistrationLimit;
  private providerMade?: Promise<Provider>;
  readonly issuer: string;
  /** The origin the service is named by in the authorization server's answers and the resource metadata. */
  readonly origin: PublicOrigin;

  constructor(private readonly deps: ServiceDeps & { agents: AgentService }) {
    this.repo = new OAuthRepository(deps.graph);
    this.origin = new PublicOrigin(deps.config);
    this.issuer = `${this.origin.configured}${oauthMountPath}`;
    this.registrations = new RegistrationLimit(deps.redis, deps.config.oauthRegistrationsPerHour, deps.clock);
  }

  /** Counts a client registration from this address, or refuses it past the hourly limit (429 rate_limited). */
  admitRegistration(address: string): Promise<void> {
    return this.registrations.admit(address);
  }

  /** Whether the authorization server's store (Redis) is connected. */
  get storeReachable(): boolean {
    return this.deps.redis.status === 'ready';
  }

  /** The provider, made on first use: its keys come from Neo4j, which may not be reachable when the process starts. */
  provider(): Promise<Provider> {
    this.providerMade ??= this.makeProvider().catch((err) => {
      this.providerMade = undefined;
      throw err;
    });
    return this.providerMade;
  }

  private async makeProvider(): Promise<Provider> {
    // Sealed like webhook secrets: the analysts' Cypher reads the graph.
    const box = SecretBox.fromConfig(this.deps.config);
    const made = newKeys();
    const sealed = { jwks: box.seal(made.jwks), cookieKeys: box.seal(made.cookieKeys) };
    let keys = opened(box, await this.repo.keys(sealed));
    if (!keys) {
      // Sealed under another SECRETS_KEY: new keys cost only the consents under way (their cookies).
      this.deps.logger.warn('the authorization server keys in Neo4j were sealed under another key: replacing them');
      keys = opened(box, await this.repo.keys(sealed, true))!;
    }
    // Loaded on first use: a process that never serves the flow (the CLI, a test of something else) never loads it.
    const { createProvider } = await import('./provider.js');
    return createProvider({
      issuer: this.issuer,
      origin: this.origin,
      redis: this.deps.redis,
      jwks: keys.jwks,
      cookieKeys: keys.cookieKeys,
      workspaceExists: (workspaceId) => this.repo.workspaceExists(workspaceId),
      grantEnded: (grantId) => this.grantEnded(grantId),
      tokensEnded: (tokens) => this.tokensEnded(tokens),
      onServerError: (err) => this.deps.logger.error({ err }, 'authorization server error'),
    });
  }

  /** What the consent page shows the signed-in person. */
  async request(principal: Principal, uid: string) {
    const user = userOnly(principal);
    const { interaction, workspaceId } = await this.interaction(uid);
    const context = await this.repo.consentContext(workspaceId, user.id);
    if (!context) throw notFound('Workspace');
    const provider = await this.provider();
    const clientId = String(interaction.params.client_id);
    const client = await provider.Client.find(clientId);
    if (!client) throw notFound('Authorization request');
    return {
      uid,
      client: { id: clientId, name: client.clientName ?? clientId, uri: client.clientUri ?? null, redirectUri: String(interaction.params.redirect_uri) },
      workspace: context.workspace,
      scopes: String(interaction.params.scope ?? mcpScope).split(' ').filter(Boolean),
      agents: context.agents,
      canCreateAgent: true,
    };
  }

  /** The person approves: the client acts as this agent (or one registered now) and the browser goes on. */
  async approve(principal: Principal, uid: string, requestId: string, choice: { agentId?: string; agent?: { name: string; role?: Caller['role'] } }) {
    const user = userOnly(principal);
    if (!choice.agentId === !choice.agent) throw invalidField('/agentId', 'or agent: give exactly one of them');
    const { interaction, workspaceId, resource } = await this.interaction(uid);
    const context = await this.repo.consentContext(workspaceId, user.id);
    if (!context) throw notFound('Workspace');
    const caller: Caller = { principal: user, workspaceId, role: context.role, actingUserId: user.id, requestId };
    const agentId = choice.agentId ?? (await this.deps.agents.register(caller, { name: choice.agent!.name, role: choice.agent!.role })).id;

    const provider = await this.provider();
    const clientId = String(interaction.params.client_id);
    const client = await provider.Client.find(clientId);
    if (!client) throw notFound('Authorization request');
    const grant = new provider.Grant({ accountId: agentId, clientId });
    grant.addResourceScope(resource, mcpScope);
    const requested = String(interaction.params.scope ?? '').split(' ');
    grant.addOIDCScope(requested.filter((scope) => scope === mcpScope || scope === 'offline_access'));
    // The provider names the grant when it keeps it; one the graph does not take is removed again.
    const grantId = await grant.save();
    const now = this.deps.clock().toISOString();
    const created = await this.repo
      .createGrant(workspaceId, agentId, user.id, { id: grantId, clientId, clientName: client.clientName ?? clientId, createdAt: now }, stampOf(caller, now))
      .catch(async (err) => {
        await grant.destroy();
        throw err;
      });
    if (!created?.allowed) await grant.destroy();
    if (!created) throw notFound('Agent');
    if (!created.allowed) throw new AppError('insufficient_role', 'Only the agent’s sponsor or a workspace owner can let a client act as it');
    // A person approved the client: it is kept, no longer an unused registration that expires.
    await keepClient(this.deps.redis, clientId);
    return { redirectTo: await this.finish(interaction, { login: { accountId: agentId }, consent: { grantId } }), agentId };
  }

  /** The person refuses: the client gets access_denied. */
  async deny(principal: Principal, uid: string) {
    const user = userOnly(principal);
    const { interaction, workspaceId } = await this.interaction(uid);
    if (!(await this.repo.consentContext(workspaceId, user.id))) throw notFound('Workspace');
    return { redirectTo: await this.finish(interaction, { error: 'access_denied', error_description: 'The person declined to connect the client' }) };
  }

  async grants(caller: Caller, agentId: string): Promise<Grant[]> {
    const grants = await this.repo.grants(caller.workspaceId, agentId);
    if (!grants) throw notFound('Agent');
    return grants;
  }

  /** Ends a grant: its tokens are refused from the next request on, on every API process. */
  async revokeGrant(caller: Caller, agentId: string, grantId: string): Promise<void> {
    const now = this.deps.clock().toISOString();
    const outcome = await this.repo.revokeGrant(caller.workspaceId, agentId, grantId, { userId: caller.actingUserId, isOwner: roleAtLeast(caller.role, 'owner') }, now, stampOf(caller, now));
    if (!outcome) throw notFound('Agent');
    if (!outcome.allowed) throw new AppError('insufficient_role', 'Only the agent’s sponsor or a workspace owner can do this');
    if (!outcome.grant) throw notFound('Grant');
    // Its tokens and codes leave the authorization server's store; removing its record signals the change.
    const provider = await this.provider();
    await provider.AccessToken.adapter.revokeByGrantId(grantId);
    await provider.Grant.adapter.destroy(grantId);
  }

  /**
   * A grant ended, by a person or by the authorization server (a code or refresh token used twice): marked in the
   * graph, and every process's cached access to the workspace replaced, so its tokens are refused from the next
   * request on.
   */
  private async grantEnded(grantId: string): Promise<void> {
    const workspaceId = await this.repo.grantEnded(grantId, this.deps.clock().toISOString());
    if (workspaceId) await this.deps.gate.accessChanged([workspaceId]);
  }

  /**
   * Access tokens the authorization server removed (their client revoked them, RFC 7009, or their grant ended):
   * marked revoked for their workspace and every process's cached access to it replaced, as for a revoked API key,
   * so they are refused from the next request on.
   */
  private async tokensEnded(tokens: EndedToken[]): Promise<void> {
    for (const workspaceId of new Set(tokens.map((ended) => ended.workspaceId))) {
      const hashes = tokens.filter((ended) => ended.workspaceId === workspaceId).map(({ token }) => hashKey(token));
      await this.deps.gate.accessChanged([workspaceId], hashes);
    }
  }

  private async interaction(uid: string): Promise<{ interaction: Interaction; workspaceId: string; resource: string }> {
    const provider = await this.provider();
    const interaction = await provider.Interaction.find(uid);
    const resource = interaction && [interaction.params.resource].flat()[0];
    const workspaceId = mcpEndpointWorkspace(resource);
    if (!interaction || !workspaceId || interaction.result) throw notFound('Authorization request');
    return { interaction, workspaceId, resource: String(resource) };
  }

  private async finish(interaction: Interaction, result: Interaction['result']): Promise<string> {
    interaction.result = result;
    await interaction.save(Math.max(1, interaction.exp - Math.floor(this.deps.clock().getTime() / 1000)));
    return interaction.returnTo;
  }
}

/** The kept keys, opened; undefined when they were sealed under another key. */
function opened(box: SecretBox, kept: ProviderKeys): { jwks: { keys: object[] }; cookieKeys: string[] } | undefined {
  try {
    return { jwks: JSON.parse(box.open(kept.jwks)), cookieKeys: JSON.parse(box.open(kept.cookieKeys)) };
  } catch {
    return undefined;
  }
}

function userOnly(principal: Principal): UserPrincipal {
  if (principal.kind !== 'user') throw new AppError('user_key_required', 'Consent is given by a person, with a user key');
  return principal;
}
