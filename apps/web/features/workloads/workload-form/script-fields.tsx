import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { inputClass } from "@/components/form-field";
import { buttonSecondary } from "@/components/panel";
import { LoopbackHint } from "@/features/workloads/loopback-hint";

const MAX_SCRIPT_CHARS = 1_000_000;
const PLACEHOLDER =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an example k6 script, shown as text
  'import http from "k6/http";\n\nexport const options = { vus: 5, duration: "30s" };\n\nexport default function () {\n  http.get(`${__ENV.OPSBENCH_BASE_URL}/`);\n}';

/** A chosen .js file: its text (null when too large), a note about it, and a workload name made from its file name. */
export async function readScriptFile(file: File): Promise<{ source: string | null; note: string; name: string }> {
  if (file.size > MAX_SCRIPT_CHARS * 4)
    return { source: null, note: `${file.name} is too large (a script may be at most 1,000,000 characters)`, name: "" };
  const name = file.name
    .replace(/\.(m?js)$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "");
  return { source: await file.text(), note: `loaded ${file.name} (${file.size} bytes)`, name };
}

/** The "Own k6 script" tab: the script typed or uploaded, and k6's refusal when it does not parse. */
export function ScriptFields({
  source,
  onSource,
  fileNote,
  onFile,
  errors,
}: {
  source: string;
  onSource: (s: string) => void;
  fileNote: string;
  onFile: (file: File | undefined) => void;
  errors: FormErrors;
}) {
  const scriptErrors = errorsAt(errors, "spec.source");
  return (
    <div className="space-y-2">
      <p className="text-2xs text-zinc-500">
        Send requests to <code className="rounded bg-zinc-100 px-1">__ENV.OPSBENCH_BASE_URL</code>. The script is checked with k6 (
        <code>k6 inspect</code>) before it is saved; its checks and custom metrics appear on the run page.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label className={`${buttonSecondary} cursor-pointer`}>
          Upload a .js file
          <input
            type="file"
            data-testid="script-file"
            accept=".js,.mjs,text/javascript,application/javascript"
            className="hidden"
            onChange={(e) => onFile(e.target.files?.[0])}
          />
        </label>
        {fileNote && <span className="text-2xs text-zinc-500">{fileNote}</span>}
      </div>
      <textarea
        data-testid="script-source"
        name="source"
        spellCheck={false}
        value={source}
        onChange={(e) => onSource(e.target.value)}
        aria-invalid={scriptErrors.length > 0 || undefined}
        placeholder={PLACEHOLDER}
        className={`${inputClass} h-72 resize-y py-1 leading-5`}
      />
      <LoopbackHint source={source} />
      {scriptErrors.length > 0 && (
        <div data-testid="script-error" role="alert" className="rounded border border-red-300 bg-red-50 px-2 py-1.5 text-xs text-red-800">
          <p className="font-medium">k6 refused the script; nothing was saved.</p>
          <pre className="mt-1 whitespace-pre-wrap break-words font-mono text-2xs">{scriptErrors.join("\n")}</pre>
        </div>
      )}
    </div>
  );
}
