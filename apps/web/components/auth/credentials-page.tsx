import Link from "next/link";
import type { ReactNode } from "react";
import { Panel } from "@/components/panel";

/** The frame of the sign-in and sign-up pages: the form, then a link to the other page (keeping an invitation link's secret). */
export function CredentialsPage(props: {
  title: string;
  children: ReactNode;
  otherPage: { path: "/sign-in" | "/sign-up"; question: string; label: string };
  /** The invitation link's secret. */
  invitation?: string;
}) {
  const { path, question, label } = props.otherPage;
  return (
    <div className="mx-auto max-w-sm">
      <Panel title={props.title}>
        <div className="space-y-3 p-3">
          {props.children}
          <p className="text-xs text-zinc-500">
            {question}{" "}
            <Link className="text-blue-600 hover:underline" href={props.invitation ? `${path}?invitation=${props.invitation}` : path}>
              {label}
            </Link>
          </p>
        </div>
      </Panel>
    </div>
  );
}
