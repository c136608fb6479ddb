/// <reference path="./oidc-provider-module.d.ts" />
// A real OpenID Connect provider (npm oidc-provider) on loopback, for the OIDC sign-in test: one confidential
// client, and its development login page, where any login name signs in as `<login>@sso.test` (email verified).
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export const SSO_EMAIL_DOMAIN = "sso.test";

export async function startIdentityProvider(redirectUri: string): Promise<TestIdentityProvider> {
  let handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer((req, res) => {
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { clientId: "opsbench-test", clientSecret: "opsbench-test-client-secret-0123456789" };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, email: `${sub}@${SSO_EMAIL_DOMAIN}`, email_verified: true, name: `SSO ${sub}` }),
    }),
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // The ID token carries the claims too, not only the userinfo endpoint.
    conformIdTokenClaims: false,
    cookies: { keys: ["opsbench-test-idp-cookie-key"] },
    features: { devInteractions: { enabled: true } },
  });
  handle = provider.callback();
  return {
    issuer,
    ...client,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
