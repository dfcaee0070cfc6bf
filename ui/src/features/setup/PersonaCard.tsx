import { useTranslation } from "react-i18next";
import { Check, PackagePlus, TerminalSquare } from "lucide-react";

import type { CatalogPersona } from "../../api";
import { addOnOf } from "./steps";

/** One catalog specialist, said in words: who it is and what it does for
 * you. The tool patterns and skills behind it sit under "Details" for
 * whoever wants them. Clicking the card selects it. */
export function PersonaCard({ persona, selected, onToggle, onInstall }: { persona: CatalogPersona; selected: boolean; onToggle(): void; onInstall?(): void }) {
  const { t } = useTranslation();
  return (
    <div className={selected ? "persona persona-on" : "persona"}>
      <button type="button" role="checkbox" aria-checked={selected} className="persona-toggle" data-testid={`persona-${persona.id}`} onClick={onToggle}>
        <span className="persona-check" aria-hidden="true">
          {selected && <Check size={14} />}
        </span>
        <span className="persona-name">{t(`personas.${persona.id}.name`, { defaultValue: persona.name })}</span>
        <span className="persona-description">{t(`personas.${persona.id}.description`, { defaultValue: persona.description })}</span>
        {persona.runsPrograms && (
          <span className="persona-runs" data-testid={`specialist-runs-${persona.id}`}>
            <TerminalSquare size={13} aria-hidden="true" />
            {t("onboarding.specialists.runsPrograms")}
          </span>
        )}
        {persona.missing.length > 0 && (
          <span className="persona-runs persona-needs" data-testid={`specialist-needs-${persona.id}`}>
            <PackagePlus size={13} aria-hidden="true" />
            {persona.missing.map((p) => t("onboarding.specialists.needs", { what: addOnOf(p) })).join(" · ")}
          </span>
        )}
      </button>
      {persona.missing.length > 0 && onInstall && (
        <button type="button" className="link persona-install" onClick={onInstall} data-testid={`specialist-install-${persona.id}`}>
          {t("onboarding.specialists.install")}
        </button>
      )}
      <details className="persona-details">
        <summary data-testid={`specialist-details-${persona.id}`}>{t("onboarding.specialists.details")}</summary>
        <dl>
          <dt>{t("onboarding.specialists.tools")}</dt>
          <dd className="mono">{persona.toolPatterns.join(" · ")}</dd>
          {persona.skills.length > 0 && (
            <>
              <dt>{t("onboarding.specialists.skills")}</dt>
              <dd className="mono">{persona.skills.join(" · ")}</dd>
            </>
          )}
        </dl>
      </details>
    </div>
  );
}
