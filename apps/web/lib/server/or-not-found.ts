import { NotFoundError } from "@opsbench/db";
import { notFound } from "next/navigation";

/** Awaits a load for a page; an id that is not in the workspace renders the 404 page. */
export async function orNotFound<T>(load: Promise<T>): Promise<T> {
  try {
    return await load;
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
}
