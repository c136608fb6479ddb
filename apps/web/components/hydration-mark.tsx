"use client";

import { useEffect } from "react";

/**
 * Marks the page as interactive (`<html data-hydrated>`) once React has attached its handlers: a click before that
 * (a slow machine, a big page) does nothing, so browser tests wait for the mark before they click (tests/helpers.ts
 * `hydrated`).
 */
export function HydrationMark() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return null;
}
