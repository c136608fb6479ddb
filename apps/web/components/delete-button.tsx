"use client";

import { RoleGate } from "@/components/auth/role-gate";
import { AbortButton } from "./abort-button";

/**
 * Deletes a run, a study, a target or a workload through its DELETE route after asking, then goes to `then`
 * (the list page). The API aborts what is under way first, and refuses a target or workload that runs still use:
 * its message is shown beside the button.
 */
export function DeleteButton({ url, confirmText, testId, then }: { url: string; confirmText: string; testId: string; then: string }) {
  return (
    <AbortButton
      url={url}
      method="DELETE"
      confirmText={confirmText}
      label="Delete"
      busyLabel="Deleting…"
      testId={testId}
      onAborted={() => window.location.assign(then)}
    />
  );
}

/** The delete button of a target or workload row (editors and owners); one that runs use is refused by the API. */
export function DeleteDefinitionButton({ kind, id, name }: { kind: "target" | "workload"; id: string; name: string }) {
  return (
    <RoleGate atLeast="editor">
      <DeleteButton
        url={`/api/v1/${kind}s/${id}`}
        confirmText={`Delete the ${kind} "${name}"? A ${kind} that runs use is kept: delete those runs first.`}
        testId={`${kind}-delete`}
        then={`/${kind}s`}
      />
    </RoleGate>
  );
}
