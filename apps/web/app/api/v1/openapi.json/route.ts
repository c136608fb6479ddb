import { NextResponse } from "next/server";
import { openApiDocument } from "@/lib/api/openapi";

export const runtime = "nodejs";
export const dynamic = "force-static";

/** This API as an OpenAPI 3.1 document, made from the route contracts at build time. */
export async function GET(): Promise<Response> {
  return NextResponse.json(openApiDocument());
}
