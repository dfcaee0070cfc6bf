import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { api, type ApiError, type SetupStatus } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Logo } from "../../components/Logo";
import { useDebounced } from "../../components/useDebounced";
import { errorText } from "../../app/errorText";
import { catalogKeys } from "../catalog/queries";
import { PersonaCard } from "./PersonaCard";

/** The first screen of a new workspace: which specialists to install
 * (SPEC H32). All are offered checked except those that run programs
 * (chosen only on purpose); "start empty" installs none. */
export function FirstRunScreen({ status }: { status: SetupStatus }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [chosen, setChosen] = useState<string[]>(status.personas.filter((p) => !p.runsPrograms).map((p) => p.id));
  const settled = useDebounced(chosen, 150);
  const plan = useQuery({ queryKey: ["seed-plan", ...settled], queryFn: () => api.planSeed(settled) });
  const apply = useMutation<SetupStatus, ApiError, string[]>({
    mutationFn: (ids) => api.applySeed(ids),
    onSuccess: () => {
      for (const key of [catalogKeys.setup, catalogKeys.agents, catalogKeys.tools, catalogKeys.skills]) {
        void client.invalidateQueries({ queryKey: key });
      }
    },
  });
  const toggle = (id: string) => setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id]));

  return (
    <div className="first-run" data-testid="first-run">
      <div className="first-run-inner">
        <header className="first-run-head">
          <Logo size={44} />
          <div>
            <h1>{t("setup.welcome")}</h1>
            <p className="muted">{t("setup.intro")}</p>
          </div>
        </header>
        <div className="persona-grid">
          {status.personas.map((persona) => (
            <PersonaCard key={persona.id} persona={persona} selected={chosen.includes(persona.id)} onToggle={() => toggle(persona.id)} />
          ))}
        </div>
        <p className="muted small" data-testid="seed-summary">
          {plan.data && t("setup.summary", { agents: plan.data.agents.length, tools: plan.data.tools.length, skills: plan.data.skills.length })}
        </p>
        {apply.error && <Banner tone="danger">{errorText(t, apply.error)}</Banner>}
        <footer className="first-run-foot">
          <Button variant="ghost" onClick={() => apply.mutate([])} disabled={apply.isPending} data-testid="start-empty">
            {t("setup.startEmpty")}
          </Button>
          <Button variant="primary" busy={apply.isPending} onClick={() => apply.mutate(chosen)} disabled={chosen.length === 0} data-testid="install-specialists">
            {t("setup.install", { count: chosen.length })}
          </Button>
        </footer>
        <p className="muted small">{t("setup.later")}</p>
      </div>
    </div>
  );
}
