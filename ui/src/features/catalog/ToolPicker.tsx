// Which tools an agent may call, picked by name: chips for the chosen ones
// and a box that suggests tools from the catalog as you type. Patterns
// (`web_*`) stay possible as the "advanced" mode — the old text field with
// its live expansion — and show as chips here with how many tools they
// cover. Both modes edit the same list, so switching loses nothing.

import { useMemo, useState } from "react";
import type { KeyboardEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { AlertTriangle, Asterisk, X } from "lucide-react";

import type { Tool } from "../../api";
import { filterList } from "../../components/ListFilter";
import { changedKeys } from "../../components/SaveBar";
import { PatternPreview } from "./PatternPreview";
import { expansionQuery, parsePatterns } from "./queries";

/** Whether an entry is a pattern rather than one tool's id. */
export const isPattern = (entry: string) => /[*?[\]]/.test(entry);

const MAX_SUGGESTIONS = 8;

/** The tools to offer for `query`: matching, not yet chosen, active first. */
export function suggestTools(tools: readonly Tool[], chosen: readonly string[], query: string): Tool[] {
  const open = tools.filter((tool) => !chosen.includes(tool.id));
  const found = filterList(open, query, (tool) => [tool.id, tool.displayName, tool.description]);
  // Name hits before description hits; active before switched-off ones.
  const rank = (tool: Tool) =>
    (query && (tool.id.includes(query.toLowerCase()) || tool.displayName.toLowerCase().includes(query.toLowerCase())) ? 0 : 2) + (tool.active ? 0 : 1);
  return found.sort((a, b) => rank(a) - rank(b)).slice(0, MAX_SUGGESTIONS);
}

interface ToolPickerProps {
  /** The id of the text input, which the field's label and error point at. */
  inputId: string;
  value: string[];
  onChange(next: string[]): void;
  tools: readonly Tool[];
  invalid: boolean;
}

export function ToolPicker({ inputId, value, onChange, tools, invalid }: ToolPickerProps) {
  const { t } = useTranslation();
  const [advanced, setAdvanced] = useState(false);
  return (
    <div className="tool-picker">
      {advanced ? (
        <PatternText inputId={inputId} value={value} onChange={onChange} invalid={invalid} />
      ) : (
        <ToolChips inputId={inputId} value={value} onChange={onChange} tools={tools} invalid={invalid} />
      )}
      <button type="button" className="link small tool-mode" onClick={() => setAdvanced(!advanced)} aria-pressed={advanced} data-testid="tools-advanced">
        {advanced ? t("forms.tools.pickByName") : t("forms.tools.advanced")}
      </button>
    </div>
  );
}

/** The advanced mode: patterns typed freely, with what they expand to. */
function PatternText({ inputId, value, onChange, invalid }: Omit<ToolPickerProps, "tools">) {
  const [text, setText] = useState(value.join(", "));
  const [seen, setSeen] = useState(value);
  // The list changed from outside (Discard, the other mode): show it.
  if (seen !== value) {
    setSeen(value);
    if (changedKeys({ v: parsePatterns(text) }, { v: value }).length > 0) setText(value.join(", "));
  }
  return (
    <>
      <input
        id={inputId}
        className="input mono"
        value={text}
        spellCheck={false}
        placeholder="web_*, fs_read"
        aria-invalid={invalid}
        onChange={(e) => {
          setText(e.target.value);
          onChange(parsePatterns(e.target.value));
        }}
      />
      <PatternPreview text={text} />
    </>
  );
}

function ToolChips({ inputId, value, onChange, tools, invalid }: ToolPickerProps) {
  const { t } = useTranslation();
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  // With nothing typed, the list shows only when asked for (arrow keys).
  const [browsing, setBrowsing] = useState(false);
  const [index, setIndex] = useState(0);
  const byId = useMemo(() => new Map(tools.map((tool) => [tool.id, tool])), [tools]);
  const patterns = value.filter(isPattern);
  const expansion = useQuery({ ...expansionQuery(patterns), enabled: patterns.length > 0 });
  const counts = new Map((expansion.data?.patterns ?? []).map((m) => [m.pattern, m.tools]));

  const typed = query.trim();
  const suggestions = suggestTools(tools, value, typed);
  const offerPattern = isPattern(typed) && !value.includes(typed);
  const options = [...(offerPattern ? [{ pattern: typed }] : []), ...suggestions.map((tool) => ({ tool }))];
  const active = Math.min(index, Math.max(options.length - 1, 0));
  const listId = `${inputId}-suggestions`;

  const add = (entry: string) => {
    if (!value.includes(entry)) onChange([...value, entry]);
    setQuery("");
    setBrowsing(false);
    setIndex(0);
  };
  const remove = (entry: string) => onChange(value.filter((v) => v !== entry));

  const showList = open && (typed !== "" || browsing);
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setOpen(true);
      setBrowsing(true);
      const step = event.key === "ArrowDown" ? 1 : -1;
      setIndex((active + step + options.length) % Math.max(options.length, 1));
    } else if (event.key === "Enter") {
      // Enter picks; it never submits the form from here.
      event.preventDefault();
      const option = showList ? options[active] : undefined;
      if (option) add("pattern" in option ? option.pattern : option.tool.id);
      else if (typed && byId.has(typed)) add(typed);
    } else if (event.key === "Escape" && (showList || typed)) {
      event.stopPropagation();
      setOpen(false);
      setBrowsing(false);
      setQuery("");
    } else if (event.key === "Backspace" && query === "" && value.length > 0) {
      remove(value[value.length - 1] as string);
    }
  };

  return (
    <div className={invalid ? "chip-input chip-input-invalid" : "chip-input"} data-testid="tool-chips">
      {value.map((entry) => {
        const tool = byId.get(entry);
        const matched = counts.get(entry);
        const unknown = !tool && !isPattern(entry);
        const off = tool && !tool.active;
        const title = tool
          ? `${tool.id} — ${tool.description}${off ? ` (${t("forms.tools.offHint")})` : ""}`
          : isPattern(entry)
            ? matched?.length
              ? matched.join(", ")
              : t("agents.matchesNothing")
            : t("forms.tools.unknown");
        return (
          <span key={entry} className={["tool-chip", off && "tool-chip-off", unknown && "tool-chip-bad", isPattern(entry) && "tool-chip-pattern"].filter(Boolean).join(" ")} title={title} data-testid={`tool-chip-${entry}`}>
            {isPattern(entry) && <Asterisk size={12} aria-hidden="true" />}
            {unknown && <AlertTriangle size={12} aria-hidden="true" />}
            <span className={tool && tool.displayName !== tool.id ? "" : "mono"}>{tool ? tool.displayName : entry}</span>
            {isPattern(entry) && matched && <span className="tool-chip-count">{t("forms.tools.patternCount", { count: matched.length })}</span>}
            {off && <span className="tool-chip-count">{t("forms.offBadge.tool")}</span>}
            <button type="button" className="tool-chip-remove" aria-label={t("forms.tools.remove", { name: tool?.displayName ?? entry })} onClick={() => remove(entry)}>
              <X size={12} aria-hidden="true" />
            </button>
          </span>
        );
      })}
      <span className="chip-input-box">
        <input
          id={inputId}
          className="chip-input-field"
          value={query}
          spellCheck={false}
          autoComplete="off"
          placeholder={value.length ? t("forms.tools.addMore") : t("forms.tools.placeholder")}
          role="combobox"
          aria-expanded={showList}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-invalid={invalid}
          aria-activedescendant={showList && options[active] ? `${listId}-${active}` : undefined}
          onChange={(e) => {
            setQuery(e.target.value);
            setOpen(true);
            setIndex(0);
          }}
          onFocus={() => setOpen(true)}
          onBlur={() => {
            setOpen(false);
            setBrowsing(false);
          }}
          onKeyDown={onKeyDown}
        />
        {showList && (
          <ul className="suggestions" id={listId} role="listbox" data-testid="tool-suggestions">
            {options.length === 0 && <li className="suggestion-empty muted small">{t("forms.tools.noMatch", { query: typed })}</li>}
            {options.map((option, i) => (
              <li
                key={"pattern" in option ? `pattern-${option.pattern}` : option.tool.id}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                className={i === active ? "suggestion active" : "suggestion"}
                data-testid={"pattern" in option ? "suggest-pattern" : `suggest-${option.tool.id}`}
                onMouseDown={(e) => e.preventDefault()}
                onMouseMove={() => i !== active && setIndex(i)}
                onClick={() => add("pattern" in option ? option.pattern : option.tool.id)}
              >
                {"pattern" in option ? (
                  <span className="suggestion-main">
                    <Asterisk size={13} aria-hidden="true" /> {t("forms.tools.addPattern", { pattern: option.pattern })}
                  </span>
                ) : (
                  <>
                    <span className="suggestion-main">
                      <span className="suggestion-name">{option.tool.displayName}</span>
                      {option.tool.displayName !== option.tool.id && <span className="mono muted small">{option.tool.id}</span>}
                      {!option.tool.active && <span className="badge badge-off">{t("forms.offBadge.tool")}</span>}
                    </span>
                    <span className="suggestion-sub muted small">{option.tool.description}</span>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </span>
    </div>
  );
}
