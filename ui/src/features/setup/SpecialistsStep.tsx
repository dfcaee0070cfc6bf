import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { api, type CatalogPersona } from "../../api";
import { Button } from "../../components/Button";
import { useDebounced } from "../../components/useDebounced";
import { PersonaCard } from "./PersonaCard";
import { toggleChoice } from "./steps";

/** Step 2: which specialists the hive starts with (SPEC H32), each said in
 * words. Nothing is installed yet: the choice is applied when the first run
 * ends, so going back changes nothing. */
export function SpecialistsStep({
  personas,
  chosen,
  onChange,
  onBack,
  onNext,
}: {
  personas: CatalogPersona[];
  chosen: string[];
  onChange(next: string[]): void;
  onBack(): void;
  onNext(ids: string[]): void;
}) {
  const { t } = useTranslation();
  const settled = useDebounced(chosen, 150);
  const plan = useQuery({ queryKey: ["seed-plan", ...settled], queryFn: () => api.planSeed(settled) });
  return (
    <section className="first-run-step" aria-labelledby="step-specialists-title" data-testid="step-specialists">
      <header>
        <h2 id="step-specialists-title">{t("onboarding.specialists.title")}</h2>
        <p className="muted">{t("onboarding.specialists.body")}</p>
      </header>
      <div className="persona-grid">
        {personas.map((persona) => (
          <PersonaCard
            key={persona.id}
            persona={persona}
            selected={chosen.includes(persona.id)}
            onToggle={() => onChange(toggleChoice(personas, chosen, persona.id))}
          />
        ))}
      </div>
      <p className="muted small" data-testid="seed-summary">
        {plan.data && t("setup.summary", { agents: plan.data.agents.length, tools: plan.data.tools.length, skills: plan.data.skills.length })}{" "}
        {t("setup.later")}
      </p>
      <footer className="first-run-foot">
        <Button variant="ghost" onClick={onBack} data-testid="specialists-back">
          {t("onboarding.back")}
        </Button>
        <span className="first-run-spacer" />
        <Button variant="secondary" onClick={() => onNext([])} data-testid="start-empty">
          {t("onboarding.specialists.none")}
        </Button>
        <Button variant="primary" onClick={() => onNext(chosen)} disabled={chosen.length === 0} data-testid="install-specialists">
          {t("onboarding.specialists.continue", { count: chosen.length })}
        </Button>
      </footer>
    </section>
  );
}
