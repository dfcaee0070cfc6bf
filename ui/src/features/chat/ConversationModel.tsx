// Which model a conversation answers with (issue 37): its agent's own by
// default, or any enabled model for this conversation only — the switch
// applies from the next message.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { runtimeApi, type ApiError, type Conversation } from "../../api";
import { errorText } from "../../app/errorText";
import { agentsQuery, enabledModelsQuery } from "../catalog/queries";
import { defaultModelQuery, runtimeKeys } from "../runs/queries";

export function ConversationModel({ conversation }: { conversation: Conversation }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const models = useQuery(enabledModelsQuery).data ?? [];
  const defaultId = useQuery(defaultModelQuery).data ?? null;
  const agent = (useQuery(agentsQuery).data ?? []).find((a) => a.id === conversation.agentId);
  const agentsOwn = agent?.modelId ?? defaultId;
  const label = (id: string | null) => (id ? (models.find((m) => m.id === id)?.label ?? id) : null);
  const choose = useMutation<Conversation, ApiError, string | null>({
    mutationFn: (id) => runtimeApi.setConversationModel(conversation.id, id),
    onSuccess: () => void client.invalidateQueries({ queryKey: runtimeKeys.conversations }),
  });
  const own = label(agentsOwn);
  return (
    <select
      className="input input-sm chat-model"
      aria-label={t("chat.model.label")}
      title={choose.error ? errorText(t, choose.error) : t("chat.model.hint")}
      value={conversation.modelId ?? ""}
      disabled={choose.isPending}
      onChange={(e) => choose.mutate(e.target.value || null)}
      data-testid="chat-model"
    >
      <option value="">{own ? t("chat.model.agents", { model: own }) : t("chat.model.none")}</option>
      {conversation.modelId && !models.some((m) => m.id === conversation.modelId) && (
        <option value={conversation.modelId}>{conversation.modelId}</option>
      )}
      {models.map((m) => (
        <option key={m.id} value={m.id}>
          {m.label ?? m.id}
        </option>
      ))}
    </select>
  );
}
