// Runs once when the server starts: fail at boot, not at the first request, on a bad environment; stamp each
// request with its socket's address (sign-in throttling); and on a server with sign-in but no account yet, print
// the one-time setup link that makes the first account.
export async function register() {
  // NEXT_RUNTIME is not configuration: Next inlines it per bundle (nodejs or edge) at build time.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./lib/env");
  const { stampPeerAddresses } = await import("./lib/server/client-address");
  await stampPeerAddresses();
  if (env.OPSBENCH_AUTH === "off") return;
  const { printSetupLink } = await import("./lib/server/setup-link");
  await printSetupLink();
}
