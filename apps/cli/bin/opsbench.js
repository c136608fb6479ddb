#!/usr/bin/env node
// The `opsbench` command. Sources are TypeScript, run through tsx's loader.
// On a Node older than 24 (e.g. `npx opsbench` with the machine's Node 20), it continues on the
// project's Node that the set-up installed into .tools/ (scripts/project-node.mjs).
if (Number(process.versions.node.split(".")[0]) < 24) {
  const { continueOnProjectNode } = await import("../../../scripts/project-node.mjs");
  await continueOnProjectNode();
}
const { register } = await import("tsx/esm/api");
register();
await import("../src/main.ts");
