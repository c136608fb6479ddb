// Runs once when the server starts: fail at boot, not at the first request, on a bad environment.
export async function register() {
  // NEXT_RUNTIME is not configuration: Next inlines it per bundle (nodejs or edge) at build time.
  if (process.env.NEXT_RUNTIME === "nodejs") await import("./lib/env");
}
