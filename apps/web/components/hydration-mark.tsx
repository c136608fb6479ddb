"use client";

import { useEffect } from "react";

declare global {
  interface Window {
    /** True once the page's React has attached its handlers (HydrationMark). */
    __opsbenchHydrated?: boolean;
  }
}

/**
 * Marks the page interactive: `window.__opsbenchHydrated` once React has attached the handlers of everything rendered
 * before it (effects run in tree order, so it goes last in the body), bar a part whose script failed to load, which
 * stays unhydrated while the rest goes on (the tests load such a page again). Browser tests wait for it before they
 * click: on a busy machine a page hydrates many seconds after its load event, and a click before that does nothing.
 * A window property, not an attribute of `<html>`: React 19 clears the attributes of `<html>` when it renders the
 * document again (an attribute mark was seen to vanish on some pages).
 */
export function HydrationMark() {
  useEffect(() => {
    window.__opsbenchHydrated = true;
  }, []);
  return null;
}
