// What the API returns for runs: the schemas are in @opsbench/api (packages/api/src/runs.ts), shared with the CLI;
// here they are checked against the types the services return.
import type { TimeBucket } from "@opsbench/core";
import type { RunView } from "@opsbench/db";
import type { z } from "zod";
import type { runListItemSchema, runViewSchema, timeBucketSchema } from "@opsbench/api";
import type { RunListItem } from "../run-list-item";
import type { SameShape } from "./same-type";

export {
  runAbortSchema,
  runCreatedSchema,
  runListItemSchema,
  runViewSchema,
  startRunInput,
  timeBucketSchema,
  windowQuery,
  windowSummarySchema,
} from "@opsbench/api";

true satisfies SameShape<z.output<typeof runListItemSchema>, RunListItem>;
true satisfies SameShape<z.output<typeof timeBucketSchema>, TimeBucket>;
true satisfies SameShape<z.output<typeof runViewSchema>, RunView>;
