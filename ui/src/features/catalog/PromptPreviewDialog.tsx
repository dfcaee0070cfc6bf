import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { api, type Agent } from "../../api";
import { Dialog } from "../../components/Dialog";
import { Spinner } from "../../components/Spinner";
import { catalogKeys } from "./queries";

/** The exact system prompt the runtime will use: own prompt, ethics, skills. */
export function PromptPreviewDialog({ agent, onClose }: { agent: Agent; onClose(): void }) {
  const { t } = useTranslation();
  const prompt = useQuery({ queryKey: catalogKeys.prompt(agent.id), queryFn: () => api.agentSystemPrompt(agent.id) });
  return (
    <Dialog title={t("agents.promptTitle", { name: agent.name })} onClose={onClose} closeLabel={t("common.close")} width={760}>
      <p className="dialog-text">{t("agents.promptBody")}</p>
      {prompt.isPending ? <Spinner /> : <pre className="prompt-preview" data-testid="prompt-preview">{prompt.data || t("agents.promptEmpty")}</pre>}
    </Dialog>
  );
}
