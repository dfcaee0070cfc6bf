// The agents an agent may hand work to with `delegate_task` outside a swarm
// (in a swarm it hands work to the members). None until a person ticks
// them: a page or a message the agent read must not be able to pick any
// agent of the workspace, with that agent's tools, to do what it says.

import { useTranslation } from "react-i18next";

import type { Agent } from "../../api";
import { useAgentName } from "./agentName";

interface DelegatePickerProps {
  /** The other agents of the workspace. */
  agents: readonly Agent[];
  chosen: string[];
  onChange(next: string[]): void;
  error: string | null;
}

export function DelegatePicker({ agents, chosen, onChange, error }: DelegatePickerProps) {
  const { t } = useTranslation();
  const shownName = useAgentName();
  const toggle = (id: string, on: boolean) => onChange(on ? [...chosen, id] : chosen.filter((d) => d !== id));
  return (
    <fieldset className="field rules-box" data-testid="agent-delegates">
      <legend className="field-label">{t("agents.fields.delegates")}</legend>
      <p className="field-hint">{t("agents.delegatesHint")}</p>
      {agents.length === 0 ? (
        <p className="muted small">{t("agents.noOtherAgents")}</p>
      ) : (
        <div className="check-grid">
          {agents.map((other) => (
            <label key={other.id} className="check">
              <input
                type="checkbox"
                checked={chosen.includes(other.id)}
                onChange={(e) => toggle(other.id, e.target.checked)}
                data-testid={`delegate-${other.id}`}
              />
              <span>{shownName(other)}</span>
            </label>
          ))}
        </div>
      )}
      {error && (
        <p className="field-error" role="alert" data-testid="error-delegates">
          {error}
        </p>
      )}
    </fieldset>
  );
}
