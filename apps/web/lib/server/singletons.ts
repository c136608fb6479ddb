// Server-side singletons, kept on globalThis so hot reloads in `next dev` reuse
// them instead of opening new Postgres pools and Redis connections each time.
const store = globalThis as unknown as { __opsbench?: Map<string, unknown> };

export function singleton<T>(key: string, make: () => T): T {
  const map = (store.__opsbench ??= new Map());
  if (!map.has(key)) map.set(key, make());
  return map.get(key) as T;
}
