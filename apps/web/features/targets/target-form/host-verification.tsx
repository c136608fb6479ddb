"use client";

// Beside an address the target names itself (an endpoint's url, an endpointUrl...): what admits load to it, so that a
// host name off the admin's allowlist is not a surprise at Start run. A saved target's own token is asked for (GET
// /api/v1/targets/{name}/verification); a new one's appears once it is saved. What is refused whatever a run finds is
// refused at save (core load-hosts/save-time-refusal.ts).
import { isIpAddress, isLoopbackAddress, policyHost, typedEndpointField } from "@opsbench/core";
import { useEffect, useState } from "react";

interface Verification {
  host: string | null;
  token: string | null;
  wellKnownUrl: string | null;
  dnsTxt: { name: string; value: string } | null;
}

const hostOf = (url: string) => {
  try {
    return policyHost(new URL(url).hostname);
  } catch {
    return null;
  }
};

export function HostVerification({ spec, savedName, savedSpec }: { spec: unknown; savedName?: string; savedSpec?: unknown }) {
  const typed = typedEndpointField(spec);
  const host = typed ? hostOf(typed.url) : null;
  const savedHost = savedSpec ? hostOf(typedEndpointField(savedSpec)?.url ?? "") : null;
  const [proof, setProof] = useState<Verification | null>(null);
  useEffect(() => {
    if (!savedName || !savedHost) return;
    let live = true;
    fetch(`/api/v1/targets/${encodeURIComponent(savedName)}/verification`)
      .then((r) => (r.ok ? (r.json() as Promise<Verification>) : null))
      .then((v) => live && setProof(v))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [savedName, savedHost]);
  if (!typed || !host) return null;
  const own = proof?.host === host ? proof : null;
  return (
    <section data-testid="host-verification" className="rounded-md border border-zinc-200 bg-white p-3 text-2xs text-zinc-600">
      <h3 className="text-xs font-medium text-zinc-700">Before a run loads {host}</h3>
      {isLoopbackAddress(host) ? (
        <p className="mt-1">A loopback address is loaded only when the admin lists it with its port on OPSBENCH_LOAD_ALLOWED_HOSTS.</p>
      ) : (
        <ol className="mt-1 list-decimal space-y-0.5 pl-4">
          <li>
            Saving checks the host policy: loopback, this machine's services, the metadata ranges and private addresses the admin did not
            open are refused then.
          </li>
          <li>
            At Start run, the admin&apos;s OPSBENCH_LOAD_ALLOWED_HOSTS admits {host}
            {isIpAddress(host) ? "" : " (or its address)"}; otherwise the workspace proves it owns it:
          </li>
          <li>
            {own?.wellKnownUrl ? (
              <>
                serve <code className="break-all">{own.wellKnownUrl}</code> answering 200 with the token
                {own.dnsTxt ? (
                  <>
                    , or publish the TXT record <code className="break-all">{own.dnsTxt.value}</code> on the reverse name of its address
                  </>
                ) : null}
              </>
            ) : (
              "serve this workspace's token at /.well-known/opsbench-verify/<token>, or publish it in a TXT record: the token is shown here and in the targets list once the target is saved"
            )}
            .
          </li>
        </ol>
      )}
    </section>
  );
}
