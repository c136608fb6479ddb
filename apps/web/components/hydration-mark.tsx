"use client";

import { useEffect } from "react";

/**
 * Marks the page interactive: `<html data-hydrated>` once React has attached the handlers of everything rendered
 * before it (effects run in tree order, so it goes last in the body). Browser tests wait for it before they click: on
 * a busy machine a page hydrates many seconds after its load event, and a click before that does nothing.
 */
export function HydrationMark() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return null;
}
