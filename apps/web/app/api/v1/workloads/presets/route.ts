import { loadProfile, plannedSeconds, WORKLOAD_PRESETS } from "@opsbench/core";
import { NextResponse } from "next/server";
import { z } from "zod";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { apiRoute, parseQuery } from "@/lib/api/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The load-profile presets of the five studies, each with its workloads (one,
 * or one per sweep member) built from default parameters at ?timeScale=F, and
 * the load profile to chart before running: points { t, vus | rate | percentOfMax }.
 * Presets that require a parameter (stable-at-percent: runId) are previewed with a placeholder.
 */
export const GET = apiRoute(async ({ request }) => {
  const { timeScale } = parseQuery(API_CONTRACTS["GET /api/v1/workloads/presets"].query, request);
  return NextResponse.json(
    WORKLOAD_PRESETS.map((p) => ({
      name: p.name,
      study: p.study,
      description: p.description,
      requires: p.requires,
      parameters: z.toJSONSchema(p.params, { io: "input", unrepresentable: "any" }),
      workloads: p.build({ ...p.example, timeScale }).map((w) => ({
        name: w.name,
        ...(w.repetitions ? { repetitions: w.repetitions } : {}),
        spec: w.spec,
        plannedSeconds: plannedSeconds(w.spec),
        loadProfile: loadProfile(w.spec),
      })),
    })),
  );
});
