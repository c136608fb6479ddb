"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/** Public share pages and the printable report have no app navigation (and no links into the app). */
export const isChromeless = (path: string | null) => !!path && (/^\/share\/[^/]+/.test(path) || path.startsWith("/compare/report"));

/** Renders the app's chrome (the nav bar) everywhere except on chromeless pages. */
export function AppChrome({ children }: { children: ReactNode }) {
  return isChromeless(usePathname()) ? null : children;
}
