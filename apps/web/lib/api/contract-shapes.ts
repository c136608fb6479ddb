// The API's answer schemas (@opsbench/api) checked against the types the services return: the type check fails
// as soon as a handler's answer and its schema drift apart. Here, not in @opsbench/api, because these types
// are the web app's and the database's (the package, packed into the CLI, imports neither).
import type {
  compareDataSchema,
  publicShareSchema,
  runListItemSchema,
  runViewSchema,
  SameShape,
  Fits,
  seriesItemSchema,
  seriesPointsSchema,
  studyListItemSchema,
  studyViewSchema,
} from "@opsbench/api";
import type { TimeBucket, timeBucketSchema } from "@opsbench/core";
import type { RunView, SeriesItem, SeriesPoints, StudyView } from "@opsbench/db";
import type { z } from "zod";
import type { CompareData } from "../../features/compare/compare-data";
import type { PublicShare } from "../../features/share/public-share";
import type { RunListItem } from "./run-list-item";
import type { StudyListItem } from "./study-list-item";

true satisfies SameShape<z.output<typeof runListItemSchema>, RunListItem>;
true satisfies SameShape<z.output<typeof timeBucketSchema>, TimeBucket>;
true satisfies SameShape<z.output<typeof runViewSchema>, RunView>;
true satisfies SameShape<z.output<typeof studyListItemSchema>, StudyListItem>;
true satisfies SameShape<z.output<typeof studyViewSchema>, StudyView>;
// One way: the stored runs' flags are still typed `unknown` in the comparison view.
true satisfies Fits<z.output<typeof compareDataSchema>, CompareData>;
true satisfies Fits<z.output<typeof publicShareSchema>, PublicShare>;
true satisfies SameShape<z.output<typeof seriesItemSchema>, SeriesItem>;
true satisfies SameShape<z.output<typeof seriesPointsSchema>, SeriesPoints>;
