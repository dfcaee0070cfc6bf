import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { api, type ApiError, type SetupStatus } from "../../api";
import { Banner } from "../../components/Banner";
import { errorText } from "../../app/errorText";
import { useRoute } from "../../app/route";
import { PersonaCard } from "../setup/PersonaCard";
import { catalogKeys, setupQuery } from "./queries";

/** Installing or removing catalog specialists after the first run. */
export function SpecialistsPanel() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const status = useQuery(setupQuery);
  const [, navigate] = useRoute();
  const change = useMutation<SetupStatus, ApiError, { id: string; enable: boolean }>({
    mutationFn: ({ id, enable }) => (enable ? api.enableCatalogAgent(id) : api.disableCatalogAgent(id)),
    onSettled: () => {
      for (const key of [catalogKeys.setup, catalogKeys.agents, catalogKeys.tools, catalogKeys.skills]) {
        void client.invalidateQueries({ queryKey: key });
      }
    },
  });
  return (
    <div className="section">
      <p className="muted">{t("setup.panelIntro")}</p>
      {change.error && <Banner tone="danger">{errorText(t, change.error)}</Banner>}
      {status.data && (
        <>
          <div className="persona-grid">
            {status.data.personas.map((persona) => (
              <PersonaCard
                key={persona.id}
                persona={persona}
                selected={persona.enabled}
                onToggle={() => change.mutate({ id: persona.id, enable: !persona.enabled })}
                onInstall={() => navigate("catalog", "mcp")}
              />
            ))}
          </div>
          <p className="muted small">{t("setup.activeCounts", { tools: status.data.activeTools, skills: status.data.activeSkills })}</p>
        </>
      )}
    </div>
  );
}
