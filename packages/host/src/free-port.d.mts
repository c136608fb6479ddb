/** A port nothing listens on at `host` (default 127.0.0.1), outside the kernel's ephemeral range when it leaves room. */
export function freePort(host?: string): Promise<number>;
