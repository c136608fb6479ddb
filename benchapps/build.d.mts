// Types of build.mjs, for the TypeScript tests that import it.
export function listBenchapps(dir?: string, prefix?: string): string[];
export function buildBenchapp(app: string, opts?: { log?: (msg: string) => void }): "built" | "fresh" | "none";
export function buildBenchapps(opts?: { apps?: string[]; log?: (msg: string) => void }): Record<string, "built" | "fresh" | "none">;
