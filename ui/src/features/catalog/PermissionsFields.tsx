// The permission gate's rules for one agent: for each class of tool
// (reads, writes files, runs programs, reaches the network, sends
// messages, changes other systems) allow, ask or deny; and whether network tools may reach this
// computer and its local network.

import { useTranslation } from "react-i18next";

import type { Permissions, Risk, Rule } from "../../api";

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
      <div className="permissions-grid">
        {RISKS.map((risk) => (
          <label key={risk} className="contents">
            <span>{t(`permissions.risk.${risk}`)}</span>
            <select
              className="input"
              value={value[risk]}
              aria-label={t(`permissions.risk.${risk}`)}
              onChange={(e) => onChange({ ...value, [risk]: e.target.value as Rule })}
              data-testid={`permission-${risk}`}
            >
              {RULES.map((rule) => (
                <option key={rule} value={rule}>
                  {t(`permissions.rule.${rule}`)}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
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
