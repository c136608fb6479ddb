"use client";

// Drag across a chart over time to zoom into that window: the page's URL gets
// `from`/`to` (seconds after the load start) and the server sends the window again
// at its finest resolution. Put <ZoomDrag /> inside a Recharts chart. It listens to
// the chart's own SVG with pointer events and turns pixels into seconds with the
// x axis' inverse scale: Recharts' onMouseDown/Up give the label of the last
// *throttled* mouse move (one per animation frame), which a quick drag never updates.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { usePlotArea, useXAxisInverseScale } from "recharts";

/** A drag shorter than this (px) is a click, not a zoom. */
const MIN_DRAG_PX = 4;

function useZoomTo() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  return (from: number, to: number) => {
    const q = new URLSearchParams(params.toString());
    q.set("from", String(Math.max(0, Math.floor(from))));
    q.set("to", String(Math.ceil(to)));
    router.push(`${pathname}?${q.toString()}`, { scroll: false });
  };
}

export function ZoomDrag() {
  const zoomTo = useZoomTo();
  const plot = usePlotArea();
  const invert = useXAxisInverseScale();
  const [svg, setSvg] = useState<SVGSVGElement | null>(null);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  // The listeners are attached once per SVG; they read the chart's current scale from here.
  const latest = useRef({ plot, invert, zoomTo });
  latest.current = { plot, invert, zoomTo };
  // Where the drag started (px): kept across re-renders while dragging.
  const start = useRef<number | null>(null);
  // A stable ref callback that never sets null: the listeners must not be re-attached mid-drag.
  const anchor = useCallback((g: SVGGElement | null) => {
    if (g?.ownerSVGElement) setSvg(g.ownerSVGElement);
  }, []);

  useEffect(() => {
    if (!svg) return;
    const at = (e: PointerEvent) => {
      const r = svg.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    const clampX = (x: number) => {
      const p = latest.current.plot;
      return p ? Math.min(p.x + p.width, Math.max(p.x, x)) : x;
    };
    const down = (e: PointerEvent) => {
      const p = latest.current.plot;
      const { x, y } = at(e);
      if (e.button !== 0 || !p || x < p.x || x > p.x + p.width || y < p.y || y > p.y + p.height) return;
      start.current = x;
      svg.setPointerCapture(e.pointerId);
      setDrag({ from: x, to: x });
      e.preventDefault();
    };
    const move = (e: PointerEvent) => {
      const from = start.current;
      if (from !== null) setDrag({ from, to: clampX(at(e).x) });
    };
    const up = (e: PointerEvent) => {
      const from = start.current;
      if (from === null) return;
      const a = Math.min(from, clampX(at(e).x));
      const b = Math.max(from, clampX(at(e).x));
      start.current = null;
      setDrag(null);
      const { invert: inv, zoomTo: go } = latest.current;
      if (b - a < MIN_DRAG_PX || !inv) return;
      const lo = Number(inv(a));
      const hi = Number(inv(b));
      if (Number.isFinite(lo) && Number.isFinite(hi) && hi > lo) go(lo, hi);
    };
    const cancel = () => {
      start.current = null;
      setDrag(null);
    };
    svg.addEventListener("pointerdown", down);
    svg.addEventListener("pointermove", move);
    svg.addEventListener("pointerup", up);
    svg.addEventListener("pointercancel", cancel);
    return () => {
      svg.removeEventListener("pointerdown", down);
      svg.removeEventListener("pointermove", move);
      svg.removeEventListener("pointerup", up);
      svg.removeEventListener("pointercancel", cancel);
    };
  }, [svg]);

  return (
    <g ref={anchor}>
      {drag && plot && Math.abs(drag.to - drag.from) >= MIN_DRAG_PX && (
        <rect
          data-testid="zoom-selection"
          x={Math.min(drag.from, drag.to)}
          width={Math.abs(drag.to - drag.from)}
          y={plot.y}
          height={plot.height}
          fill="#3b82f6"
          fillOpacity={0.12}
          pointerEvents="none"
        />
      )}
    </g>
  );
}

/** The URL without the zoom (back to the whole run). */
export function useZoomReset(): string {
  const pathname = usePathname();
  const q = new URLSearchParams(useSearchParams().toString());
  q.delete("from");
  q.delete("to");
  return `${pathname}?${q.toString()}`;
}
