import type { ReactNode } from "react";

interface ListItemProps {
  active: boolean;
  /** Dimmed icon for something switched off. */
  off?: boolean;
  icon: ReactNode;
  title: ReactNode;
  sub: ReactNode;
  titleClass?: string;
  onSelect(): void;
  testId: string;
}

/** One row of a list pane: icon, title and a line under it; the selected one stands out. */
export function ListItem({ active, off = false, icon, title, sub, titleClass, onSelect, testId }: ListItemProps) {
  return (
    <li>
      <button className={active ? "item active" : "item"} aria-current={active || undefined} onClick={onSelect} data-testid={testId}>
        <span className={off ? "item-icon item-off" : "item-icon"}>{icon}</span>
        <span className="item-text">
          <span className={titleClass ? `item-title ${titleClass}` : "item-title"}>{title}</span>
          <span className="item-sub">{sub}</span>
        </span>
      </button>
    </li>
  );
}
