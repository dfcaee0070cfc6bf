import { useEffect, useRef } from "react";
import type { ReactNode } from "react";
import { X } from "lucide-react";

import { IconButton } from "./Button";

interface DialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  footer?: ReactNode;
  testId?: string;
  closeLabel: string;
  width?: number;
}

/** A modal dialog: Escape or the close button dismiss it; focus starts on
 * the field marked `data-autofocus` (the one it was opened to fix), else
 * its first field, and stays inside while it is open. */
export function Dialog({ title, onClose, children, footer, testId, closeLabel, width = 520 }: DialogProps) {
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first =
      panel.current?.querySelector<HTMLElement>("[data-autofocus]:not([disabled])") ??
      panel.current?.querySelector<HTMLElement>("input:not([disabled]), select, textarea") ??
      panel.current?.querySelector<HTMLElement>("button:not(.dialog-close)");
    first?.focus();
    return () => previous?.focus();
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
      if (event.key !== "Tab" || !panel.current) return;
      const focusable = [...panel.current.querySelectorAll<HTMLElement>("input, select, textarea, button, [href]")].filter(
        (el) => !el.hasAttribute("disabled"),
      );
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (!first || !last) return;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={panel}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="dialog-title"
        data-testid={testId}
        style={{ maxWidth: width }}
      >
        <header className="dialog-header">
          <h2 id="dialog-title">{title}</h2>
          <IconButton label={closeLabel} className="dialog-close" onClick={onClose}>
            <X size={18} />
          </IconButton>
        </header>
        <div className="dialog-body">{children}</div>
        {footer && <footer className="dialog-footer">{footer}</footer>}
      </div>
    </div>
  );
}
