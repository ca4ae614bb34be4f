import type { Context } from 'koa';
import { expect } from 'chai';
import { AppError } from '../../src/errors.js';
import { checkHostAndOrigin } from '../../src/mcp/routes.js';

/**
 * The MCP endpoint's Host/Origin rule, for the configurations the HTTP tests (test/mcp/mcp.test.ts) do not start a
 * server for: a list of allowed hosts, `*`, allowed origins, and connections that arrive from elsewhere than
 * loopback (a server behind a proxy or load balancer).
 */
describe('the MCP Host and Origin check', () => {
  const request = (host: string, localAddress: string, origin = '') =>
    ({ get: (name: string) => ({ host, origin })[name.toLowerCase()] ?? '', socket: { localAddress } }) as unknown as Context;
  const config = (allowedHosts: string[] = [], allowedOrigins: string[] = []) => ({ allowedHosts, allowedOrigins, defaultMaxTokens: 8000 });

  function refused(ctx: Context, mcp: ReturnType<typeof config>): string {
    try {
      checkHostAndOrigin(ctx, mcp);
    } catch (err) {
      expect(err).to.be.instanceOf(AppError);
      expect((err as AppError).code).to.equal('forbidden');
      return (err as AppError).message;
    }
    throw new Error('expected the request to be refused');
  }

  it('on a loopback connection takes loopback names and the listed hosts, and nothing else', () => {
    const mcp = config(['mcp.example.com']);
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'MCP.example.com', 'mcp.example.com:443']) {
      expect(() => checkHostAndOrigin(request(host, '127.0.0.1'), mcp), host).not.to.throw();
    }
    expect(refused(request('evil.example', '127.0.0.1'), mcp)).to.match(/MCP_ALLOWED_HOSTS/);
    expect(refused(request('evil.example', '::ffff:127.0.0.1'), config())).to.match(/evil\.example/);
  });

  it('from elsewhere takes any Host while no list is set (behind a proxy), and only the listed ones once it is', () => {
    expect(() => checkHostAndOrigin(request('api.internal:8080', '10.0.0.5'), config())).not.to.throw();
    const mcp = config(['mcp.example.com']);
    expect(() => checkHostAndOrigin(request('mcp.example.com', '10.0.0.5'), mcp)).not.to.throw();
    refused(request('api.internal:8080', '10.0.0.5'), mcp);
  });

  it('`*` takes any Host, loopback or not', () => {
    expect(() => checkHostAndOrigin(request('anything.example', '127.0.0.1'), config(['*']))).not.to.throw();
    expect(() => checkHostAndOrigin(request('anything.example', '10.0.0.5'), config(['*']))).not.to.throw();
  });

  it('an Origin must be the request’s own or a listed one; "null" is nobody’s', () => {
    const mcp = config([], ['https://console.example.com']);
    expect(() => checkHostAndOrigin(request('localhost:3000', '127.0.0.1', 'http://localhost:3000'), mcp)).not.to.throw();
    expect(() => checkHostAndOrigin(request('localhost:3000', '127.0.0.1', 'https://console.example.com'), mcp)).not.to.throw();
    expect(refused(request('localhost:3000', '127.0.0.1', 'https://evil.example'), mcp)).to.match(/MCP_ALLOWED_ORIGINS/);
    refused(request('localhost:3000', '127.0.0.1', 'null'), mcp);
  });
});
