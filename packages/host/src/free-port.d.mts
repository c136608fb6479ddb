/** A port nothing listens on at `host` (default 127.0.0.1), outside the kernel's ephemeral range when it leaves room. */
export function freePort(host?: string): Promise<number>;

/** A free port held (listened on) until `release()`, for a server that starts long after its port is chosen. */
export function reservePort(host?: string): Promise<{ port: number; release: () => Promise<void> }>;
