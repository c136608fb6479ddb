import type { ReactNode } from "react";

/**
 * A table's box that scrolls sideways when the table is wider than the page. It takes the keyboard's focus, so that
 * someone without a mouse can scroll it too (WCAG 2.1.1; axe: scrollable-region-focusable).
 */
export function ScrollX({ children, className = "" }: { children: ReactNode; className?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must be reachable by keyboard
    <div className={`overflow-x-auto ${className}`} tabIndex={0}>
      {children}
    </div>
  );
}
