// Small pieces every response schema uses: in @opsbench/api (packages/api/src/wire.ts), shared with the CLI.
export { id, isoTime, nullableIsoTime, runStatus } from "@opsbench/api";
