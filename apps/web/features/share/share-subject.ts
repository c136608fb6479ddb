// A share link's subject as it is stored (core's shareSubjectSchema), from what POST /api/v1/shares takes
// (@opsbench/api's shareInputs): a run ({ runIds: [id] }), a study ({ studyId }) or a comparison ({ groups }).
import type { ShareInput } from "@opsbench/api";
import type { ShareSubject } from "@opsbench/core";

/** The subject as it is stored (and compared, to find the links of a page's subject). */
export function storedSubject(input: ShareInput): ShareSubject {
  switch (input.kind) {
    case "run":
      return { runIds: [input.subject.runId] };
    case "study":
      return { studyId: input.subject.studyId };
    case "comparison":
      return { groups: input.subject.groups.map((g) => (g.label ? { label: g.label, runIds: g.runIds } : { runIds: g.runIds })) };
  }
}
