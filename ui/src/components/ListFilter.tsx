// A filter box for any list, and the one rule every list filters by.
//
// Lists grow (agents, tools, skills, canvases, swarms, conversations,
// authors, memories); each gets the same box and the same matching so a
// user learns it once: case and accents do not matter ("accion" finds
// "Acción"), and every word typed must appear in one of the item's fields,
// in any order ("web inv" finds "Investigadora · web_search").
import { Search, X } from "lucide-react";
import type { KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";

/** Lower-case, without accents or surrounding space: the form compared. */
export function normalize(text: string): string {
  return text.normalize("NFD").replace(/\p{Diacritic}/gu, "").toLowerCase().trim();
}

/**
 * Whether an item whose searchable `fields` are given matches `query`:
 * an empty query matches everything; otherwise each word of the query must
 * appear (as a substring) in at least one field.
 */
export function matches(query: string, ...fields: ReadonlyArray<string | null | undefined>): boolean {
  const words = normalize(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = fields.filter((f): f is string => typeof f === "string" && f !== "").map(normalize);
  return words.every((word) => haystack.some((field) => field.includes(word)));
}

/** The items of `list` that match `query`, in their order. */
export function filterList<T>(list: readonly T[], query: string, fields: (item: T) => ReadonlyArray<string | null | undefined>): T[] {
  if (normalize(query) === "") return [...list];
  return list.filter((item) => matches(query, ...fields(item)));
}

interface ListFilterProps {
  value: string;
  onChange: (value: string) => void;
  /** What is filtered, e.g. "Filter agents": the placeholder and the accessible name. */
  label: string;
  /** How many items are shown / exist; shown as "3 of 12" while filtering. */
  shown?: number;
  total?: number;
  testId?: string;
  className?: string;
}

/** The filter box: a search field with a clear button; Escape clears it. */
export function ListFilter({ value, onChange, label, shown, total, testId, className }: ListFilterProps) {
  const { t } = useTranslation();
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Escape" && value !== "") {
      event.stopPropagation();
      onChange("");
    }
  };
  const counting = value.trim() !== "" && shown !== undefined && total !== undefined;
  return (
    <div className={["list-filter", className].filter(Boolean).join(" ")} role="search">
      <Search size={14} aria-hidden="true" className="list-filter-icon" />
      <input
        type="search"
        className="input input-sm list-filter-input"
        value={value}
        placeholder={label}
        aria-label={label}
        data-testid={testId}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {counting && (
        <span className="list-filter-count muted small" aria-live="polite" data-testid={testId ? `${testId}-count` : undefined}>
          {t("forms.filter.count", { shown, total })}
        </span>
      )}
      {value !== "" && (
        <button type="button" className="icon-btn list-filter-clear" aria-label={t("forms.filter.clear")} title={t("forms.filter.clear")} onClick={() => onChange("")}>
          <X size={13} aria-hidden="true" />
        </button>
      )}
    </div>
  );
}
