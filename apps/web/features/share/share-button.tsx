"use client";

// "Share": creates a read-only link to this run, study or comparison, shows it
// once (only its hash is kept), and lists this subject's live links with Revoke.
import { useCallback, useEffect, useRef, useState } from "react";
import type { ShareInput } from "@opsbench/api";
import { storedSubject } from "@/features/share/share-subject";
import { fmtTime } from "@/lib/format";

interface ShareRow {
  id: string;
  kind: string;
  title: string | null;
  subject: unknown;
  createdAt: string;
  revokedAt: string | null;
}

const btn =
  "rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs font-medium text-zinc-700 hover:border-zinc-400 hover:text-zinc-900 disabled:opacity-50";

async function errorText(res: Response) {
  try {
    const body = (await res.json()) as { error?: { message?: string } };
    return body.error?.message ?? `HTTP ${res.status}`;
  } catch {
    return `HTTP ${res.status}`;
  }
}

export function ShareButton({ input }: { input: ShareInput }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ id: string; url: string } | null>(null);
  const [links, setLinks] = useState<ShareRow[]>([]);
  const [copied, setCopied] = useState(false);
  const subjectKey = JSON.stringify(storedSubject(input));
  const popover = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  // Escape, or a press outside the popover, closes it (Escape gives the focus back to the button).
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      toggle.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (e.target instanceof Node && !popover.current?.contains(e.target)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const refresh = useCallback(async () => {
    const res = await fetch("/api/v1/shares", { cache: "no-store" });
    if (!res.ok) return setError(await errorText(res));
    const all = (await res.json()) as ShareRow[];
    setLinks(all.filter((l) => !l.revokedAt && l.kind === input.kind && JSON.stringify(l.subject) === subjectKey));
  }, [input.kind, subjectKey]);

  useEffect(() => {
    if (open) void refresh();
  }, [open, refresh]);

  const create = async () => {
    setBusy(true);
    setError(null);
    setCopied(false);
    try {
      const res = await fetch("/api/v1/shares", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      if (!res.ok) throw new Error(await errorText(res));
      const body = (await res.json()) as { id: string; path: string };
      setCreated({ id: body.id, url: `${window.location.origin}${body.path}` });
      await refresh();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (id: string) => {
    setError(null);
    const res = await fetch(`/api/v1/shares/${id}`, { method: "DELETE" });
    if (!res.ok && res.status !== 404) setError(await errorText(res));
    if (created?.id === id) setCreated(null);
    await refresh();
  };

  return (
    <div ref={popover} className="relative inline-block print:hidden">
      <button type="button" ref={toggle} className={btn} data-testid="share-button" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        Share…
      </button>
      {open && (
        <div
          data-testid="share-panel"
          className="absolute right-0 z-20 mt-1 w-[26rem] rounded-md border border-zinc-200 bg-white p-3 text-xs shadow-lg"
        >
          <p className="text-zinc-600">
            A read-only link to this {input.kind}: anyone with it sees these results without an account, and nothing else of this workspace.
            Revoke it any time.
          </p>
          <div className="mt-2 flex gap-2">
            <button type="button" className={btn} data-testid="share-create" disabled={busy} onClick={() => void create()}>
              {busy ? "Creating…" : "Create link"}
            </button>
            <a href="/share" className="self-center text-blue-600 hover:underline">
              All shared links
            </a>
          </div>
          {created && (
            <div className="mt-2 space-y-1">
              <div className="flex gap-1">
                <input
                  data-testid="share-url"
                  readOnly
                  value={created.url}
                  className="min-w-0 flex-1 rounded border border-zinc-300 px-1.5 py-0.5 font-mono text-2xs"
                  onFocus={(e) => e.currentTarget.select()}
                />
                <button
                  type="button"
                  className={btn}
                  onClick={() => void navigator.clipboard?.writeText(created.url).then(() => setCopied(true))}
                >
                  {copied ? "Copied" : "Copy"}
                </button>
              </div>
              <p className="text-2xs text-amber-700">Copy it now: only a hash of it is kept, so it cannot be shown again.</p>
            </div>
          )}
          {error && (
            <p className="mt-2 text-red-600" data-testid="share-error">
              {error}
            </p>
          )}
          <div className="mt-3 border-t border-zinc-100 pt-2">
            <h4 className="text-2xs font-medium uppercase tracking-wide text-zinc-500">
              Live links to this {input.kind} ({links.length})
            </h4>
            {links.length === 0 ? (
              <p className="text-zinc-400">none</p>
            ) : (
              <ul className="mt-1 divide-y divide-zinc-100">
                {links.map((l) => (
                  <li key={l.id} data-testid="share-link" data-share-id={l.id} className="flex items-center gap-2 py-1">
                    <span className="font-mono text-zinc-500">{fmtTime(l.createdAt)}</span>
                    <span className="min-w-0 flex-1 truncate">{l.title ?? ""}</span>
                    <button type="button" className={btn} data-testid="share-revoke" onClick={() => void revoke(l.id)}>
                      Revoke
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
