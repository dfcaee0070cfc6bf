// The permission gate's rules for one agent, as a table: for each class of
// tool (reads, writes files, runs programs, reaches the network, sends
// messages, changes other systems) Allow · Ask me · Deny; and whether
// network tools may reach this computer and its local network.

import { useTranslation } from "react-i18next";

import type { Permissions, Risk, Rule } from "../../api";
import { Segmented } from "../../components/Segmented";

/** The classes tools have (`reply` is a grant only, see GrantFields). */
export const RISKS: Exclude<Risk, "reply">[] = ["read", "write", "run", "network", "send", "act"];
const RULES: Rule[] = ["allow", "ask", "deny"];

export const DEFAULT_PERMISSIONS: Permissions = {
  read: "allow",
  write: "ask",
  run: "ask",
  network: "ask",
  send: "ask",
  act: "ask",
  localNetwork: false,
};

export function PermissionsFields({ value, onChange }: { value: Permissions; onChange(next: Permissions): void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="field rules-box" data-testid="agent-permissions">
      <legend className="field-label">{t("permissions.title")}</legend>
      <p className="field-hint">{t("permissions.hint")}</p>
      <table className="permissions-table">
        <tbody>
          {RISKS.map((risk) => (
            <tr key={risk} data-testid={`permission-${risk}`} data-value={value[risk] ?? "ask"}>
              <th scope="row">{t(`permissions.risk.${risk}`)}</th>
              <td>
                <Segmented<Rule>
                  label={t(`permissions.risk.${risk}`)}
                  value={value[risk] ?? "ask"}
                  options={RULES.map((rule) => ({ value: rule, label: t(`permissions.rule.${rule}`), testId: `permission-${risk}-${rule}` }))}
                  onChange={(rule) => onChange({ ...value, [risk]: rule })}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <label className="check">
        <input
          type="checkbox"
          checked={value.localNetwork}
          onChange={(e) => onChange({ ...value, localNetwork: e.target.checked })}
          data-testid="permission-local-network"
        />
        <span>{t("permissions.localNetwork")}</span>
      </label>
    </fieldset>
  );
}
