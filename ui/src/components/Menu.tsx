// A button that opens a short list of actions: the "⋯" of a canvas (what
// should not sit next to "Generate all", one click further away) and the
// "▾" of "New chat" (which agent to talk to).

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

interface MenuProps {
  /** The button's name (its tooltip and, for a screen reader, its label). */
  label: string;
  actions: MenuAction[];
  /** What the button shows; "⋯" by default. */
  icon?: ReactNode;
  testId: string;
  /** Where the list opens: under the button's right edge (default) or its left. */
  align?: "left" | "right";
}

/** A button that opens a short list of actions; Escape or a click outside closes it. */
export function Menu({ label, actions, icon, testId, align = "right" }: MenuProps) {
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
    <div className="menu" ref={box}>
      <button
        type="button"
        className="icon-btn"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid={testId}
      >
        {icon ?? <MoreHorizontal size={16} />}
      </button>
      {open && (
        <div className={align === "left" ? "menu-list menu-list-left" : "menu-list"} role="menu">
          {actions.map((a) => (
            <button
              key={a.testId}
              type="button"
              role="menuitem"
              className={a.tone === "danger" ? "menu-item danger" : "menu-item"}
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
