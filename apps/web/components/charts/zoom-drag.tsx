"use client";

// Drag across a chart over time to zoom into that window: the page's URL gets
// `from`/`to` (seconds after the load start) and the server sends the window again
// at its finest resolution. Recharts reports the x value under the pointer as activeLabel.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ReferenceArea } from "recharts";

type ChartPointer = { activeLabel?: string | number } | null | undefined;

export function useZoomDrag() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [start, setStart] = useState<number | null>(null);
  const [end, setEnd] = useState<number | null>(null);
  const at = (e: ChartPointer) => (e?.activeLabel === undefined ? null : Number(e.activeLabel));
  const zoomTo = (from: number, to: number) => {
    const q = new URLSearchParams(params.toString());
    q.set("from", String(Math.floor(from)));
    q.set("to", String(Math.ceil(to)));
    router.push(`${pathname}?${q.toString()}`, { scroll: false });
  };
  return {
    handlers: {
      onMouseDown: (e: ChartPointer) => {
        setStart(at(e));
        setEnd(null);
      },
      onMouseMove: (e: ChartPointer) => {
        if (start !== null) setEnd(at(e));
      },
      onMouseUp: () => {
        if (start !== null && end !== null && start !== end) zoomTo(Math.min(start, end), Math.max(start, end));
        setStart(null);
        setEnd(null);
      },
    },
    area: start !== null && end !== null ? <ReferenceArea x1={start} x2={end} fill="#3b82f6" fillOpacity={0.12} /> : null,
  };
}

/** The URL without the zoom (back to the whole run). */
export function useZoomReset(): string {
  const pathname = usePathname();
  const q = new URLSearchParams(useSearchParams().toString());
  q.delete("from");
  q.delete("to");
  return `${pathname}?${q.toString()}`;
}
