import { useTranslation } from "react-i18next";
import { Check } from "lucide-react";

import type { CatalogPersona } from "../../api";

/** One catalog specialist: who it is, what it uses. Clicking selects it. */
export function PersonaCard({ persona, selected, onToggle }: { persona: CatalogPersona; selected: boolean; onToggle(): void }) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      role="checkbox"
      aria-checked={selected}
      className={selected ? "persona persona-on" : "persona"}
      data-testid={`persona-${persona.id}`}
      onClick={onToggle}
    >
      <span className="persona-check" aria-hidden="true">{selected && <Check size={14} />}</span>
      <span className="persona-name">{t(`personas.${persona.id}.name`, { defaultValue: persona.name })}</span>
      <span className="persona-description">{t(`personas.${persona.id}.description`, { defaultValue: persona.description })}</span>
      <span className="persona-meta mono">
        {persona.toolPatterns.join(" · ")}
      </span>
    </button>
  );
}
