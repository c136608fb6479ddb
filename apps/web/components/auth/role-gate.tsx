"use client";

// The signed-in member's role, for hiding what they may not do (the API refuses it anyway: 403).
import { roleAllows, type WorkspaceRole } from "@opsbench/core";
import { createContext, type ReactNode, useContext } from "react";

const RoleContext = createContext<WorkspaceRole | null>(null);

export function RoleProvider({ role, children }: { role: WorkspaceRole | null; children: ReactNode }) {
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

/** Renders its children only for a member whose role is at least `atLeast`. */
export function RoleGate({ atLeast, children }: { atLeast: WorkspaceRole; children: ReactNode }) {
  const mine = useContext(RoleContext);
  return mine && roleAllows(mine, atLeast) ? children : null;
}
