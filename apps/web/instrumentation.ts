// Runs once when the server starts: fail at boot, not at the first request, on a bad environment.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") await import("./lib/env");
}
