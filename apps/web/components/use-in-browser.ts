"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False while rendering on the server and while hydrating, true in the browser after. A button rendered on the
 * server does nothing when clicked before React attaches its handler, so action buttons stay disabled until then:
 * an early click is refused visibly rather than lost.
 */
export const useInBrowser = () =>
  useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
