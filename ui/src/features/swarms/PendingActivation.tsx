// What a saved swarm's members still need that is switched off (H10), and
// the one button that switches it on as a union with what is already on.
// Asked of the backend for the saved members, so it is right after a save,
// after a restart, and after something was switched off elsewhere.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Zap } from "lucide-react";

import { runtimeApi, type ActivationPlan, type ApiError, type Swarm, type SwarmSaved } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { runtimeKeys } from "../runs/queries";
import { toolTitle } from "../../app/toolTitle";

/** The query key of a member list's pending activation (under `swarms`, so a swarm or agent change refetches it). */
export const pendingKey = (agentIds: string[]) => [...runtimeKeys.swarms, "pending", agentIds.join(",")] as const;

export function PendingActivation({ swarm, names }: { swarm: Swarm; names: Record<string, string> }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const ids = swarm.members.map((m) => m.agentId);
  const plan = useQuery({ queryKey: pendingKey(ids), queryFn: () => runtimeApi.swarmPendingActivation(ids) }).data;
  const activate = useMutation<SwarmSaved, ApiError>({
    mutationFn: () => runtimeApi.updateSwarm(swarm.id, { activateMembers: true }),
    onSuccess: (saved) => {
      client.setQueryData<ActivationPlan>(pendingKey(ids), saved.pendingActivation);
      void client.invalidateQueries({ queryKey: runtimeKeys.swarms });
      void client.invalidateQueries({ queryKey: ["agents"] });
      void client.invalidateQueries({ queryKey: ["tools"] });
    },
  });
  if (!plan || (plan.agents.length === 0 && plan.tools.length === 0 && plan.skills.length === 0)) return null;
  return (
    <Banner tone="warning" testId="pending-activation">
      <p>{t("swarms.pending.title")}</p>
      <ul className="pending-list">
        {plan.agents.length > 0 && <li>{t("swarms.pending.agents", { list: plan.agents.map((id) => names[id] ?? id).join(", ") })}</li>}
        {plan.tools.length > 0 && <li>{t("swarms.pending.tools", { list: plan.tools.map((tool) => toolTitle(t, tool)).join(", ") })}</li>}
        {plan.skills.length > 0 && <li>{t("swarms.pending.skills", { list: plan.skills.join(", ") })}</li>}
      </ul>
      {activate.error && <p className="field-error">{errorText(t, activate.error)}</p>}
      <Button size="sm" variant="primary" icon={<Zap size={14} />} busy={activate.isPending} onClick={() => activate.mutate()} data-testid="activate-members">
        {t("swarms.pending.activate")}
      </Button>
    </Banner>
  );
}
