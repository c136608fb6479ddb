"use server";

// The settings page's change of the instance's ceilings: the instance admin only (checked here, as the API route does).
import { instanceCeilingsSchema } from "@opsbench/core";
import { setInstanceCeilings } from "@opsbench/db";
import { revalidatePath } from "next/cache";
import { getDb } from "@/lib/server/singletons";
import { requireMember } from "@/lib/server/workspace";
import type { ActionResult } from "./actions";

export async function setCeilingsAction(_prev: ActionResult, form: FormData): Promise<ActionResult> {
  const member = await requireMember();
  if (!member.instanceAdmin) return { error: "only the instance admin sets the ceilings" };
  const values = Object.fromEntries(Object.keys(instanceCeilingsSchema.shape).map((k) => [k, Number(form.get(k))]));
  const parsed = instanceCeilingsSchema.safeParse(values);
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  await setInstanceCeilings(getDb(), parsed.data);
  revalidatePath("/settings");
  return { value: "saved" };
}
