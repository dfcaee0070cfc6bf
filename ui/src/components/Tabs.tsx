import type { LucideIcon } from "lucide-react";

interface Tab<T extends string> {
  id: T;
  label: string;
  icon?: LucideIcon;
  count?: number;
}

/** A row of tabs that switch the panel below; the active tab is in the URL. */
export function Tabs<T extends string>({ tabs, active, onChange, label }: { tabs: Tab<T>[]; active: T; onChange(id: T): void; label: string }) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map(({ id, label: text, icon: Icon, count }) => (
        <button
          key={id}
          role="tab"
          aria-selected={id === active}
          className={id === active ? "tab tab-active" : "tab"}
          data-testid={`tab-${id}`}
          title={text}
          onClick={() => onChange(id)}
        >
          {Icon && <Icon size={15} aria-hidden="true" />}
          <span className="tab-label">{text}</span>
          {count !== undefined && <span className="tab-count">{count}</span>}
        </button>
      ))}
    </div>
  );
}
