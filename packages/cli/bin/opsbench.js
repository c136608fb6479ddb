#!/usr/bin/env node
// The `opsbench` command. Sources are TypeScript, run through tsx's loader.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
