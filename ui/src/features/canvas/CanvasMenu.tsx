// The "⋯" menu of a canvas: the actions that should not sit next to
// "Generate all" (deleting the canvas), one click further away.

import { useEffect, useRef, useState } from "react";
import type { ReactNode } from "react";
import { MoreHorizontal } from "lucide-react";

export interface MenuAction {
  label: string;
  icon?: ReactNode;
  tone?: "danger";
  onSelect(): void;
  testId: string;
}

/** A button that opens a short list of actions; Escape or a click outside closes it. */
export function CanvasMenu({ label, actions }: { label: string; actions: MenuAction[] }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  return (
    <div className="canvas-menu" ref={box}>
      <button
        type="button"
        className="icon-btn"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="canvas-menu"
      >
        <MoreHorizontal size={16} />
      </button>
      {open && (
        <div className="canvas-menu-list" role="menu">
          {actions.map((a) => (
            <button
              key={a.testId}
              type="button"
              role="menuitem"
              className={a.tone === "danger" ? "canvas-menu-item danger" : "canvas-menu-item"}
              onClick={() => {
                setOpen(false);
                a.onSelect();
              }}
              data-testid={a.testId}
            >
              {a.icon}
              {a.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
