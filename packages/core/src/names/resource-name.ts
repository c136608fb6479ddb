import { z } from "zod";

/**
 * The name of a target or a workload. It is part of its page's address (/targets/NAME, /workloads/NAME), so "new",
 * the address of the form that makes one, cannot be a name.
 */
export const resourceName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "use lower-case letters, digits, '.', '_' or '-'")
  .refine((n) => n !== "new", "'new' is reserved: it is the address of the form for a new one");
