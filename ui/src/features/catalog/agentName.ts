// The name to show for an agent: a catalog specialist keeps its translated
// name until someone renames it.

import { useCallback } from "react";
import { useTranslation } from "react-i18next";

export function useAgentName(): (agent: { name: string; persona: string | null }) => string {
  const { t, i18n } = useTranslation();
  return useCallback(
    (agent) =>
      agent.persona && agent.name === i18n.t(`personas.${agent.persona}.name`, { lng: "en" })
        ? t(`personas.${agent.persona}.name`)
        : agent.name,
    [t, i18n],
  );
}
